import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The fake's end of an `AcquireNotify`/`AcquireWrite` socket pair (`AF_UNIX`,
/// `SOCK_SEQPACKET`: one datagram per notification or write command). The client's end goes
/// out in the method reply. When the client closes its end, ``onClose`` runs; closing ours
/// (link loss) gives the client EOF.
@MainActor
final class AcquiredSocket {
    /// BlueZ reads the write side with a 512-byte buffer.
    static let bufferSize = 512

    private var descriptor: Int32
    private var source: (any DispatchSourceRead)?
    private let onDatagram: @MainActor ([UInt8]) -> Void
    private let onClose: @MainActor () -> Void

    /// A new socket pair: ours (kept, non-blocking) and theirs (to send, then close).
    static func makePair() -> (ours: Int32, theirs: Int32)? {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_SEQPACKET | SOCK_CLOEXEC
        #endif
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { return nil }
        _ = fcntl(descriptors[0], F_SETFL, fcntl(descriptors[0], F_GETFL) | O_NONBLOCK)
        return (descriptors[0], descriptors[1])
    }

    /// Watches `descriptor` (ours): datagrams go to `onDatagram`, EOF or an error closes it.
    init(
        descriptor: Int32, onDatagram: @escaping @MainActor ([UInt8]) -> Void,
        onClose: @escaping @MainActor () -> Void
    ) {
        self.descriptor = descriptor
        self.onDatagram = onDatagram
        self.onClose = onClose
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.readAvailable() }
        }
        source.setCancelHandler {
            SystemCalls.close(descriptor)
        }
        source.resume()
        self.source = source
    }

    var isOpen: Bool { descriptor >= 0 }

    /// What became of one datagram.
    enum SendResult: Equatable {
        /// It is in the socket.
        case sent
        /// The socket buffer is full (`EAGAIN`: the client reads too slowly). bluetoothd's
        /// socket is non-blocking too, and `notify_io_cb` logs "sendmsg: Resource temporarily
        /// unavailable" and drops the notification; the socket stays open.
        case full
        /// The client is gone (the socket is then closed and ``onClose`` has run).
        case closed
    }

    /// Sends one datagram without blocking.
    @discardableResult
    func send(_ bytes: [UInt8]) -> SendResult {
        guard isOpen else { return .closed }
        let sent = bytes.withUnsafeBytes { buffer in
            SystemCalls.send(descriptor, buffer)
        }
        guard sent < 0 else { return .sent }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { return .full }
        closeAndReport()
        return .closed
    }

    /// Closes our end without reporting (the client sees EOF). Idempotent.
    func close() {
        guard isOpen else { return }
        descriptor = -1
        source?.cancel()
        source = nil
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        while isOpen {
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 {
                onDatagram(Array(buffer[0..<count]))
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return
            } else {
                closeAndReport()
            }
        }
    }

    private func closeAndReport() {
        guard isOpen else { return }
        close()
        onClose()
    }

    isolated deinit {
        close()
    }
}

/// The libc calls whose names clash with methods here.
enum SystemCalls {
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #endif
    }

    static func send(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        let flags = Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)
        #if canImport(Glibc)
            return Glibc.send(descriptor, buffer.baseAddress, buffer.count, flags)
        #elseif canImport(Musl)
            return Musl.send(descriptor, buffer.baseAddress, buffer.count, flags)
        #endif
    }
}
