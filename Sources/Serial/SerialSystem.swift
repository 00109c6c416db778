import SystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few system values the rest of the module names without importing the C library.
enum SerialSystem {
    static let noSuchFile = ENOENT
    static let noSuchDevice = ENXIO
    static let ioError = EIO

    static func error(_ operation: String, path: String?) -> SerialError {
        error(operation, path: path, Errno.current)
    }

    /// Whether the modem-line call that just failed found a line without modem control lines
    /// (a pseudo-terminal answers `ENOTTY`, older kernels `EINVAL`), not a fault.
    static func lastErrorMeansNoModemLines() -> Bool {
        let code = Errno.current.rawValue
        return code == ENOTTY || code == EINVAL
    }

    /// The error of a call that failed with `errno` (a ``SystemCalls/Errno``).
    static func error(_ operation: String, path: String?, _ errno: Errno) -> SerialError {
        SerialError(operation: operation, path: path, code: errno.rawValue, reason: errno.description)
    }
}
