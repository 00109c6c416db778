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
        let descriptor = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SerialSystem.error("open", path: "/dev/ptmx") }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(descriptor, Self.setLock, &unlock) == 0, ioctl(descriptor, Self.getNumber, &number) == 0 else {
            let error = SerialSystem.error("ioctl", path: "/dev/ptmx")
            Glibc.close(descriptor)
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
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, maximum) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    /// Writes `bytes` towards the device side; returns how many were taken.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Int {
        let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, bytes.count) }
        return max(0, count)
    }

    /// Closes the controlling side: the device side reads end of file or fails (an unplug).
    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}
