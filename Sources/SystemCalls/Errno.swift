#if canImport(Glibc)
    import Glibc
#endif

/// An error number a system call reported (swift-system's `Errno`, the few the callers need
/// named). Its description is the system's message (`strerror`).
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let rawValue: Int32

    /// The error `rawValue`.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(rawValue: errno) }

    /// `EINTR`: a signal interrupted the call (retried by every wrapper here).
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` / `EWOULDBLOCK`: a non-blocking call would block.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ENAMETOOLONG`.
    public static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `EIO`.
    public static let ioError = Errno(rawValue: EIO)
    /// `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EISDIR`.
    public static let isDirectory = Errno(rawValue: EISDIR)
    /// `EPIPE`.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ECONNRESET`.
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    /// `ENOTDIR`.
    public static let notDirectory = Errno(rawValue: ENOTDIR)

    /// `strerror` of the value (`No such file or directory`).
    public var description: String { String(cString: strerror(rawValue)) }
}

/// The one retry policy of this module, used by every wrapper: a call that fails with
/// `EINTR` is made again; every other failure (`EAGAIN` included: only the caller of a
/// non-blocking descriptor knows what to do then) is thrown as its ``Errno``.
enum SystemCall {
    /// Runs `call` until it does not fail with `EINTR`; returns its non-negative result
    /// or throws the `errno` of a failure (a negative result).
    @inline(__always)
    static func retryingInterrupts<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }
}
