import FoundationEssentials
import MainLoop
import SystemCalls

/// The reading end of a characteristic's `AcquireNotify` socket: an `AF_UNIX`
/// `SOCK_SEQPACKET` descriptor on which BlueZ writes every notification as one datagram
/// (reference/bluez-dbus.md §4.2), bypassing `dbus-daemon` and the `PropertiesChanged`
/// signal.
///
/// Watched through ``MainLoop/DescriptorWatch``. End of file or a read error (BlueZ released
/// the notifications, the link went down) is reported once through `onClose`, after which
/// the socket is closed. ``close()`` closes it without a report. The descriptor is owned: it
/// is closed exactly once, when the watch is cancelled.
///
/// Each datagram is handed to `onDatagram` as a `Data` slice of one receive buffer shared by
/// every socket (``BlueZDatagramBuffer``): valid as a value like any `Data`, but a receiver
/// that keeps it pins the buffer's storage (the next read then copies the buffer first), so
/// code that stores datagrams stores a compact copy.
@MainActor
final class BlueZNotifySocket {
    /// Larger than any ATT notification (MTU ≤ 517; BlueZ itself writes ≤ 512 bytes): the
    /// room for one datagram.
    static let bufferSize = 1024

    /// One receive buffer for every socket: all of them are read on the main actor, one
    /// datagram at a time, and each datagram is done with (or copied) before the next read,
    /// so a buffer per board (1 KB each) would only cost memory.
    private static let sharedBuffer = BlueZDatagramBuffer(slots: datagramsPerWake, slotSize: bufferSize)

    /// ``sharedBuffer``, held here so that a read needs no lazy-global access.
    private let buffer: BlueZDatagramBuffer
    // Read on every notification and only ever touched on the main actor by this class's
    // own short, non-nested accesses: no run-time exclusivity bookkeeping.
    @exclusivity(unchecked) private var watch: DescriptorWatch?
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
        buffer = Self.sharedBuffer
        // A descriptor BlueZ handed over is valid: `fcntl` cannot fail on it.
        try? FileDescriptor(rawValue: descriptor).makeNonBlockingAndCloseOnExec()
        // Every datagram from now on carries when it arrived. Should the kernel refuse, a
        // datagram's arrival is unknown and the time it is handled stands for it.
        try? FileDescriptor(rawValue: descriptor).enableReceiveTimestamps()
        // Unowned, not weak (a weak load per notification is measurable): the watch is
        // cancelled in `close()`, which `deinit` calls, so it never outlives the socket. The
        // unowned load also keeps the socket alive while `readOne` runs, when `onDatagram` or
        // `onClose` releases the last other reference to it (the link's teardown).
        watch = DescriptorWatch(descriptor: descriptor, closesDescriptor: true) { [unowned self] in
            self.readWaiting(limit: Self.datagramsPerWake)
        }
    }

    /// How many datagrams one wake-up reads at most. One was enough while every wake-up of
    /// the loop was short; when another descriptor's handler runs long (a flood of large
    /// commands on the broker connection), a board streaming ten frames a second fell
    /// further behind at every turn, and its moves came out tens of seconds late (#29).
    static let datagramsPerWake = 16

    /// Whether the socket is still being read.
    var isOpen: Bool { watch != nil }

    /// Stops reading and closes the descriptor, without reporting. Idempotent.
    func close() {
        watch?.cancel()
        watch = nil
    }

    /// Reads the datagrams waiting, up to `limit`, in `recvmmsg` calls of at most
    /// ``datagramsPerWake`` (the watch is level-triggered and asks for one call: it calls
    /// again while more wait; a lone notification costs that one call, where reading until
    /// `EAGAIN` cost a second), and hands them on in order, each with when it reached the
    /// kernel as ``MainLoop/inputReceivedAt`` (a datagram that waited behind a long handler
    /// is then still timed by its arrival); reports and closes at EOF or an error.
    func readWaiting(limit: Int) {
        var left = limit
        while left > 0 {
            let batch = min(left, Self.datagramsPerWake)
            let handed = readBatch(limit: batch)
            // Fewer than asked: the socket had no more (or the link ended).
            guard handed == batch else { return }
            left -= handed
        }
    }

    /// One `recvmmsg` of up to `limit` datagrams, handed on: how many were handed on.
    private func readBatch(limit: Int) -> Int {
        guard watch != nil else { return 0 }
        let (count, error) = buffer.receive(from: descriptor, limit: limit)
        if count < 0 {
            if Errno(rawValue: error) == .wouldBlock { return 0 }
            close()
            onClose("read failed (errno \(error))")
            return 0
        }
        // recvmmsg gives at least one datagram or an error; nothing at all is an end too.
        if count == 0 {
            close()
            onClose("closed by BlueZ")
            return 0
        }
        for index in 0..<count {
            // A datagram's handler may have torn the link down: the rest was its link's.
            guard watch != nil else { return index }
            guard let datagram = buffer.datagram(index) else {
                close()
                onClose("closed by BlueZ")
                return index
            }
            MainLoop.handlingInput(readAt: buffer.readAt, waited: buffer.waited(index)) { onDatagram(datagram) }
        }
        return count
    }

    isolated deinit {
        close()
    }
}

/// A receive buffer reused for every read: a `Data` of fixed capacity, one slot per datagram,
/// that `recvmmsg` writes into in place; each datagram is handed on as a slice of its slot.
///
/// While nobody keeps a datagram, the buffer's storage is uniquely referenced and each read
/// writes into it without allocating (the previous design allocated, copied and freed a
/// `Data` per notification). A receiver that keeps a datagram keeps the storage it shares:
/// the next read then copies the buffer (copy on write) and the kept bytes stay intact.
///
/// Not isolated (so the `recvmmsg` closure carries no run-time executor check); used on the
/// main actor only, one read at a time.
final class BlueZDatagramBuffer {
    // Accessed once per read and never across a call that could reach it again: no run-time
    // exclusivity bookkeeping.
    @exclusivity(unchecked) private var storage: Data
    private let slotSize: Int
    /// The lengths of the last read's datagrams, one per slot.
    private let lengths: UnsafeMutableBufferPointer<Int>
    /// How long each of the last read's datagrams had waited in the socket, in nanoseconds
    /// (-1: not stamped).
    private let waited: UnsafeMutableBufferPointer<Int64>
    /// When the last read returned.
    private(set) var readAt = ContinuousClock.now

    /// A buffer that takes up to `slots` datagrams of up to `slotSize` bytes a read (longer
    /// ones are cut, as `SOCK_SEQPACKET` does).
    init(slots: Int, slotSize: Int) {
        self.slotSize = slotSize
        storage = Data(count: slots * slotSize)
        lengths = .allocate(capacity: slots)
        lengths.initialize(repeating: 0)
        waited = .allocate(capacity: slots)
        waited.initialize(repeating: -1)
    }

    deinit {
        lengths.deallocate()
        waited.deallocate()
    }

    /// One `recvmmsg` of up to `limit` datagrams from `descriptor` without blocking (`EINTR`
    /// retried): how many came (-1 on an error) and the error number (0 on success).
    func receive(from descriptor: Int32, limit: Int) -> (count: Int, error: Int32) {
        let lengths = UnsafeMutableBufferPointer(rebasing: self.lengths.prefix(max(1, limit)))
        let waited = waited
        let slotSize = slotSize
        let result = storage.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) -> Int in
                try FileDescriptor(rawValue: descriptor).receiveDatagrams(
                    into: raw, slotSize: slotSize, lengths: lengths, waited: waited)
            }
        }
        readAt = .now
        switch result {
        case .success(let count): return (count, 0)
        case .failure(let error): return (-1, error.rawValue)
        }
    }

    /// Datagram `index` of the last read (a slice sharing the buffer), `nil` when it is the
    /// end of file (an empty read).
    func datagram(_ index: Int) -> Data? {
        let length = lengths[index]
        guard length > 0 else { return nil }
        let start = index * slotSize
        return storage[start..<(start + min(length, slotSize))]
    }

    /// How long datagram `index` of the last read had waited in the socket when the read
    /// returned (``readAt``), in nanoseconds; -1 when it carries no receive timestamp.
    func waited(_ index: Int) -> Int64 {
        waited[index]
    }
}
