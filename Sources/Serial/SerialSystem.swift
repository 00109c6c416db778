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
        let code = errno
        return SerialError(operation: operation, path: path, code: code, reason: String(cString: strerror(code)))
    }
}
