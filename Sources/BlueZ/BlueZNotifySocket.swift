import MainLoop

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The reading end of a characteristic's `AcquireNotify` socket: an `AF_UNIX`
/// `SOCK_SEQPACKET` descriptor on which BlueZ writes every notification as one datagram
/// (reference/bluez-dbus.md §4.2), bypassing `dbus-daemon` and the `PropertiesChanged`
/// signal.
///
/// Watched through ``MainLoop/ReadableWatch`` (the daemon's own main-thread loop, or a
/// Dispatch read source). End of file or a read error (BlueZ released the notifications, the link went down) is
/// reported once through `onClose`, after which the socket is closed. ``close()`` closes it
/// without a report. The descriptor is owned: it is closed exactly once, when the read source
/// is cancelled.
@MainActor
final class BlueZNotifySocket {
    /// Larger than any ATT notification (MTU ≤ 517; BlueZ itself writes ≤ 512 bytes).
    static let bufferSize = 1024

    /// One receive buffer for every socket: all of them are read on the main actor, one
    /// datagram at a time, and each datagram is copied out before the next read, so a
    /// buffer per board (1 KB each) would only cost memory.
    private static var sharedBuffer = [UInt8](repeating: 0, count: bufferSize)

    private var watch: ReadableWatch?
    private let descriptor: Int32
    private let onDatagram: @MainActor (Data) -> Void
    private let onClose: @MainActor (String) -> Void

    /// Starts reading `descriptor` (taken over: made non-blocking and close-on-exec).
    init(
        descriptor: Int32, onDatagram: @escaping @MainActor (Data) -> Void,
        onClose: @escaping @MainActor (String) -> Void
    ) {
        self.descriptor = descriptor
        self.onDatagram = onDatagram
        self.onClose = onClose
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        // Unowned, not weak (a weak load per notification is measurable): the watch is
        // cancelled in `close()`, which `deinit` calls, so it never outlives the socket.
        watch = ReadableWatch(descriptor: descriptor, closesDescriptor: true) { [unowned self] in
            self.readOne()
        }
    }

    /// Whether the socket is still being read.
    var isOpen: Bool { watch != nil }

    /// Stops reading and closes the descriptor, without reporting. Idempotent.
    func close() {
        watch?.cancel()
        watch = nil
    }

    /// Reads one datagram (the watch is level-triggered: it calls again while more wait, so a
    /// lone notification costs one `recv`); reports and closes at EOF or an error.
    private func readOne() {
        guard watch != nil else { return }
        let descriptor = descriptor
        let received = Self.sharedBuffer.withUnsafeMutableBytes { raw -> (count: Int, data: Data?) in
            let count = recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
            // From the pointer: the generic `Data(slice)` path looks up metadata at run time.
            guard count > 0, let base = raw.baseAddress else { return (count, nil) }
            return (count, Data(bytes: base, count: count))
        }
        let count = received.count
        if let data = received.data {
            onDatagram(data)
        } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            return
        } else {
            let reason = count == 0 ? "closed by BlueZ" : "read failed (errno \(errno))"
            close()
            onClose(reason)
        }
    }

    isolated deinit {
        close()
    }
}
