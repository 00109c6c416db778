import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One open serial line in raw, non-blocking mode: the termios calls behind a small
/// wrapper, so nothing above this module imports the C library.
///
/// ``open(path:baudRate:lowersDataTerminalReady:)`` sets 8 data bits, no parity, 1 stop bit,
/// no flow control, the receiver on and modem lines ignored, and no line discipline at all
/// (raw); it can lower DTR, which opening a line raises. Reads and
/// writes never block: ``read(maximum:)`` returns `[]` when nothing is there, and
/// ``write(_:)`` says how many bytes the line took. The caller watches ``descriptor`` for
/// readability on its event loop.
public final class SerialPort {
    /// The speeds this wrapper sets.
    public enum BaudRate: Int, Sendable, CaseIterable {
        /// 9600 baud (DGT e-Boards).
        case b9600 = 9600
        /// 38400 baud (Certabo).
        case b38400 = 38400

        var speed: speed_t {
            switch self {
            case .b9600: speed_t(B9600)
            case .b38400: speed_t(B38400)
            }
        }
    }

    /// The path opened (a `/dev/serial/by-id/…` link is resolved for ``devicePath``).
    public let path: String
    /// The device the path led to when it was opened.
    public let devicePath: String
    /// The file descriptor, for the caller's readability watch; `-1` once closed.
    public private(set) var descriptor: Int32

    /// `TIOCMGET` and `TIOCMBIC` (Linux; the C macros do not reach Swift), and `TIOCM_DTR`.
    static let getModemLines: UInt = 0x5415
    static let clearModemLines: UInt = 0x5417
    static let dataTerminalReadyBit: CInt = 0x002

    private init(path: String, devicePath: String, descriptor: Int32) {
        self.path = path
        self.devicePath = devicePath
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Where `path` leads (symbolic links such as `/dev/serial/by-id/…` resolved), or `nil`
    /// when it leads nowhere (the device is unplugged).
    public static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens `path` raw, non-blocking, 8N1 at `baudRate`; with `lowersDataTerminalReady`, DTR
    /// is lowered once the line is set (a line without modem control lines, such as a
    /// pseudo-terminal, has none to lower and is opened all the same).
    public static func open(
        path: String, baudRate: BaudRate = .b9600, lowersDataTerminalReady: Bool = false
    ) throws(SerialError) -> SerialPort {
        let device = resolve(path) ?? path
        let descriptor: Int32
        do {
            descriptor = try FileDescriptor.open(path, .readWrite, options: [.noControllingTerminal, .nonBlocking])
                .rawValue
        } catch {
            throw SerialSystem.error("open", path: path, error)
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let error = SerialSystem.error("tcgetattr", path: path)
            FileDescriptor(rawValue: descriptor).close()
            throw error
        }
        cfmakeraw(&settings)
        settings.c_cflag &= ~(tcflag_t(PARENB | CSTOPB | CSIZE) | tcflag_t(CRTSCTS))
        settings.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
        settings.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        cfsetispeed(&settings, baudRate.speed)
        cfsetospeed(&settings, baudRate.speed)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            let error = SerialSystem.error("tcsetattr", path: path)
            FileDescriptor(rawValue: descriptor).close()
            throw error
        }
        tcflush(descriptor, TCIOFLUSH)
        let port = SerialPort(path: path, devicePath: device, descriptor: descriptor)
        if lowersDataTerminalReady {
            var bits = dataTerminalReadyBit
            if ioctl(descriptor, clearModemLines, &bits) != 0, !SerialSystem.lastErrorMeansNoModemLines() {
                throw SerialSystem.error("lower DTR", path: path)
            }
        }
        return port
    }

    /// Whether DTR is raised, as the driver holds it now; `nil` for a line without modem
    /// control lines (a pseudo-terminal).
    public func dataTerminalReady() throws(SerialError) -> Bool? {
        var bits: CInt = 0
        guard ioctl(descriptor, Self.getModemLines, &bits) == 0 else {
            if SerialSystem.lastErrorMeansNoModemLines() { return nil }
            throw SerialSystem.error("read modem lines", path: path)
        }
        return bits & Self.dataTerminalReadyBit != 0
    }

    /// The line's settings as the driver holds them now.
    public func settings() throws(SerialError) -> SerialSettings {
        var current = termios()
        guard tcgetattr(descriptor, &current) == 0 else { throw SerialSystem.error("tcgetattr", path: path) }
        return SerialSettings(current)
    }

    /// Up to `maximum` bytes waiting on the line; `[]` when none are.
    public func read(maximum: Int = 4096) throws(SerialError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let outcome = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(Errno) -> Int in try FileDescriptor(rawValue: descriptor).read(into: bytes) }
        }
        let count: Int
        switch outcome {
        case .success(let read): count = read
        case .failure(let error) where error == .wouldBlock: return []
        case .failure(let error): throw SerialSystem.error("read", path: path, error)
        }
        if count == 0 {
            // End of file: the other end (a pseudo-terminal's master, a vanished device) is gone.
            throw SerialError(operation: "read", path: path, code: EIO, reason: "the line was closed")
        }
        return Array(buffer.prefix(count))
    }

    /// Writes what the line takes of `bytes` now; returns how many it took.
    public func write(_ bytes: [UInt8]) throws(SerialError) -> Int {
        let outcome = bytes.withUnsafeBytes { buffer in
            Result { () throws(Errno) -> Int in try FileDescriptor(rawValue: descriptor).write(buffer) }
        }
        switch outcome {
        case .success(let written): return written
        case .failure(let error) where error == .wouldBlock: return 0
        case .failure(let error): throw SerialSystem.error("write", path: path, error)
        }
    }

    /// Closes the line (idempotent).
    public func close() {
        guard descriptor >= 0 else { return }
        FileDescriptor(rawValue: descriptor).close()
        descriptor = -1
    }
}

/// What a serial line is set to, as plain values.
public struct SerialSettings: Hashable, Sendable {
    /// The input and output speed in baud (`nil` for a speed this wrapper does not name).
    public var baudRate: Int?
    /// 8 data bits.
    public var eightDataBits: Bool
    /// Parity on.
    public var parity: Bool
    /// Two stop bits.
    public var twoStopBits: Bool
    /// Canonical (line) input, echo or signals on: anything but raw.
    public var lineDiscipline: Bool

    init(_ settings: termios) {
        var copy = settings
        let speed = cfgetispeed(&copy)
        baudRate = SerialPort.BaudRate.allCases.first { $0.speed == speed }?.rawValue
        eightDataBits = settings.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8)
        parity = settings.c_cflag & tcflag_t(PARENB) != 0
        twoStopBits = settings.c_cflag & tcflag_t(CSTOPB) != 0
        lineDiscipline = settings.c_lflag & tcflag_t(ICANON | ECHO | ISIG) != 0
    }
}
