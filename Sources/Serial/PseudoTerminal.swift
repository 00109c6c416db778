import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pseudo-terminal's controlling side, for a simulated serial device: whatever opens
/// ``devicePath`` talks to whoever holds this end (boardsim, tests).
public final class PseudoTerminal {
    /// The path of the device side (`/dev/pts/N`).
    public let devicePath: String
    /// The controlling side's descriptor (non-blocking); `-1` once closed.
    public private(set) var descriptor: Int32

    /// `TIOCSPTLCK` and `TIOCGPTN` (Linux; the C macros do not reach Swift).
    static let setLock: UInt = 0x4004_5431
    static let getNumber: UInt = 0x8004_5430

    /// Opens a new pseudo-terminal, raw, its controlling side non-blocking.
    public init() throws(SerialError) {
        // The multiplexer of Linux pseudo-terminals: unlock the new one, ask its number.
        let descriptor: Int32
        do {
            descriptor = try FileDescriptor.open(
                "/dev/ptmx", .readWrite, options: [.noControllingTerminal, .nonBlocking]
            ).rawValue
        } catch {
            throw SerialSystem.error("open", path: "/dev/ptmx", error)
        }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(descriptor, Self.setLock, &unlock) == 0, ioctl(descriptor, Self.getNumber, &number) == 0 else {
            let error = SerialSystem.error("ioctl", path: "/dev/ptmx")
            FileDescriptor(rawValue: descriptor).close()
            throw error
        }
        var settings = termios()
        if tcgetattr(descriptor, &settings) == 0 {
            cfmakeraw(&settings)
            tcsetattr(descriptor, TCSANOW, &settings)
        }
        devicePath = "/dev/pts/\(number)"
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Up to `maximum` bytes the device side wrote; `[]` when none (or nobody has it open).
    public func read(maximum: Int = 4096) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count =
            (try? buffer.withUnsafeMutableBytes { (bytes) throws(Errno) in
                try FileDescriptor(rawValue: descriptor).read(into: bytes)
            }) ?? 0
        return Array(buffer.prefix(count))
    }

    /// Writes `bytes` towards the device side; returns how many were taken.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Int {
        (try? bytes.withUnsafeBytes { (buffer) throws(Errno) in
            try FileDescriptor(rawValue: descriptor).write(buffer)
        }) ?? 0
    }

    /// Closes the controlling side: the device side reads end of file or fails (an unplug).
    public func close() {
        guard descriptor >= 0 else { return }
        FileDescriptor(rawValue: descriptor).close()
        descriptor = -1
    }
}
