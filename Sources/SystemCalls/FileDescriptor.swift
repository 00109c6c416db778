internal import CSystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor (swift-system's shape): the calls above the C wrappers make on
/// files and sockets, each retrying `EINTR` and throwing ``Errno``. Descriptors it opens
/// are close-on-exec.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The descriptor number.
    public let rawValue: Int32

    /// Wraps `rawValue` (not taken over: closing stays the caller's business).
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Standard error (2).
    public static let standardError = FileDescriptor(rawValue: 2)

    /// How a file is opened.
    public enum AccessMode: Sendable {
        /// `O_RDONLY`.
        case readOnly
        /// `O_WRONLY`.
        case writeOnly
        /// `O_RDWR`.
        case readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// Further `open(2)` flags.
    public struct OpenOptions: OptionSet, Sendable {
        /// The flag bits.
        public let rawValue: Int32
        /// Creates options from flag bits.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_CREAT`.
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_TRUNC`.
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_APPEND`.
        public static let append = OpenOptions(rawValue: O_APPEND)
        /// `O_DIRECTORY`.
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NONBLOCK`.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_NOCTTY`: a terminal opened does not become the controlling one.
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    }

    /// Opens `path` (close-on-exec); `permissions` apply when `.create` makes the file.
    public static func open(
        _ path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: UInt32 = 0o640
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.flags | options.rawValue | O_CLOEXEC
        let descriptor = try SystemCall.retryingInterrupts { Glibc.open(path, flags, mode_t(permissions)) }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Closes the descriptor. Not retried on `EINTR`: on Linux the descriptor is gone
    /// whatever `close(2)` returns, and a retry could close another thread's new one.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// One `read(2)` into `buffer`: the byte count, 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try SystemCall.retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// One `pread(2)` at `offset` into `buffer`: the byte count, 0 at end of file.
    public func read(fromAbsoluteOffset offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try SystemCall.retryingInterrupts { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Everything up to end of file, read in chunks of `chunk` bytes.
    public func readAll(chunk: Int = 16_384) throws(Errno) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) -> Int in try read(into: raw) }
            }.get()
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// One `write(2)` of `buffer`: the byte count written (possibly fewer than asked).
    public func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try SystemCall.retryingInterrupts { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes all of `bytes`: a partial write continues with the rest, `EINTR` retries, and
    /// `EAGAIN` (a non-blocking descriptor that is full) waits with `poll(2)` until the
    /// descriptor takes more. Returns the byte count (`bytes.count`).
    @discardableResult
    public func writeAll(_ bytes: some Collection<UInt8>, waitingWhenFull: Bool = true) throws(Errno) -> Int {
        let array = Array(bytes)
        return try array.withUnsafeBytes { buffer in
            Result { () throws(Errno) -> Int in try writeAll(buffer, waitingWhenFull: waitingWhenFull) }
        }.get()
    }

    /// Writes all of `buffer`: partial writes continue, `EINTR` retries, `EAGAIN` polls
    /// (with `waitingWhenFull` false it is thrown instead: for a caller that must never
    /// block, such as the log sink on the event loop's thread).
    @discardableResult
    public func writeAll(_ buffer: UnsafeRawBufferPointer, waitingWhenFull: Bool = true) throws(Errno) -> Int {
        var offset = 0
        while offset < buffer.count {
            do {
                offset += try write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            } catch  where error == .wouldBlock && waitingWhenFull {
                try waitUntilWritable()
            }
        }
        return offset
    }

    private func waitUntilWritable() throws(Errno) {
        var entry = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
        _ = try SystemCall.retryingInterrupts { poll(&entry, 1, -1) }
    }

    /// `fsync(2)`: the file's data and metadata are on the disk.
    public func sync() throws(Errno) {
        _ = try SystemCall.retryingInterrupts { fsync(rawValue) }
    }

    /// `fdatasync(2)`: the file's data are on the disk.
    public func dataSync() throws(Errno) {
        _ = try SystemCall.retryingInterrupts { fdatasync(rawValue) }
    }

    /// `ftruncate(2)` to `size` bytes.
    public func resize(to size: Int) throws(Errno) {
        _ = try SystemCall.retryingInterrupts { ftruncate(rawValue, off_t(size)) }
    }

    /// The file's size (`fstat(2)`).
    public func size() throws(Errno) -> Int {
        var status = stat()
        _ = try SystemCall.retryingInterrupts { fstat(rawValue, &status) }
        return Int(status.st_size)
    }

    /// Whether the descriptor is a directory (`fstat(2)`).
    public func isDirectory() throws(Errno) -> Bool {
        var status = stat()
        _ = try SystemCall.retryingInterrupts { fstat(rawValue, &status) }
        return (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// One `recv(2)` without blocking (`MSG_DONTWAIT`) into `buffer`: the byte count, 0 at
    /// end of file; throws ``Errno/wouldBlock`` when nothing waits.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try SystemCall.retryingInterrupts { recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    /// One `recvmmsg(2)` without blocking (`MSG_DONTWAIT`): up to `lengths.count` datagrams
    /// in one system call however many wait, datagram `i` into slot `i` of `region`
    /// (`slotSize` bytes each; a longer datagram is cut, as `SOCK_SEQPACKET` cuts it) and its
    /// length into `lengths[i]`. Returns how many came; a length of 0 is the end of file, as
    /// `recv(2)` says it. Throws ``Errno/wouldBlock`` when none waits.
    ///
    /// With `waited`, `waited[i]` is how long datagram `i` had waited in the socket when the
    /// call returned, in nanoseconds (the wall clock less its kernel receive timestamp, at
    /// least 0), or -1 when it carries none (``enableReceiveTimestamps()`` not called, or
    /// not before the datagram came).
    public func receiveDatagrams(
        into region: UnsafeMutableRawBufferPointer, slotSize: Int, lengths: UnsafeMutableBufferPointer<Int>,
        waited: UnsafeMutableBufferPointer<Int64>? = nil
    ) throws(Errno) -> Int {
        var slots = min(lengths.count, region.count / max(1, slotSize), Int(CSC_DATAGRAMS_MAX))
        if let waited { slots = min(slots, waited.count) }
        guard slots > 0, let base = region.baseAddress, let sizes = lengths.baseAddress else { return 0 }
        let stamps = waited?.baseAddress
        return Int(
            try SystemCall.retryingInterrupts {
                csc_receive_datagrams(rawValue, base, slotSize, sizes, stamps, UInt32(slots))
            })
    }

    /// Asks the kernel to stamp every datagram this socket receives from now on with the
    /// time it arrived (`SO_TIMESTAMPNS`), which ``receiveDatagrams(into:slotSize:lengths:waited:)``
    /// then reports as the time each waited.
    public func enableReceiveTimestamps() throws(Errno) {
        _ = try SystemCall.retryingInterrupts { csc_enable_receive_timestamps(rawValue) }
    }

    /// One `send(2)` of `buffer` without blocking and without `SIGPIPE` (`MSG_DONTWAIT |
    /// MSG_NOSIGNAL`): the byte count sent (possibly fewer than asked); throws
    /// ``Errno/wouldBlock`` when the socket is full, ``Errno/brokenPipe`` or
    /// ``Errno/connectionReset`` when the peer is gone.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try SystemCall.retryingInterrupts {
            Glibc.send(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        }
    }

    /// One byte looked at without taking it or blocking (`recv(2)` with `MSG_PEEK |
    /// MSG_DONTWAIT`): 1 when input waits, 0 at end of file (the peer closed); throws
    /// ``Errno/wouldBlock`` when nothing waits.
    public func peek() throws(Errno) -> Int {
        var byte: UInt8 = 0
        return try SystemCall.retryingInterrupts { recv(rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) }
    }

    /// A duplicate of the descriptor (`F_DUPFD_CLOEXEC`), the caller's to close: what an
    /// event-loop watch holds while the descriptor's owner may close its own at any time.
    public func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try SystemCall.retryingInterrupts { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// Marks the descriptor close-on-exec (a library's socket that is not).
    public func setCloseOnExec() throws(Errno) {
        let flags = try SystemCall.retryingInterrupts { fcntl(rawValue, F_GETFD) }
        _ = try SystemCall.retryingInterrupts { fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Closes the descriptor and reports what `close(2)` said (a file system may report a
    /// failed write only here). Not retried, as ``close()``.
    public func closeReportingErrors() throws(Errno) {
        if Glibc.close(rawValue) != 0 { throw Errno.current }
    }

    /// Makes the descriptor non-blocking and close-on-exec (a descriptor taken over from
    /// another process, such as BlueZ's notify socket).
    public func makeNonBlockingAndCloseOnExec() throws(Errno) {
        let status = try SystemCall.retryingInterrupts { fcntl(rawValue, F_GETFL) }
        _ = try SystemCall.retryingInterrupts { fcntl(rawValue, F_SETFL, status | O_NONBLOCK) }
        let flags = try SystemCall.retryingInterrupts { fcntl(rawValue, F_GETFD) }
        _ = try SystemCall.retryingInterrupts { fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// A connected pair of unix sockets of `type` (`SOCK_DGRAM`, `SOCK_SEQPACKET`,
    /// `SOCK_STREAM`), close-on-exec.
    public static func socketPair(type: Int32) throws(Errno) -> (FileDescriptor, FileDescriptor) {
        var pair: [Int32] = [-1, -1]
        _ = try SystemCall.retryingInterrupts { socketpair(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) }
        return (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
    }
}
