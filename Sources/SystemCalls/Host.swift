#if canImport(Glibc)
    import Glibc
#endif

/// Facts about the machine and the process.
public enum Host {
    /// The host name (`gethostname(2)`).
    public static func name() throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = try SystemCall.retryingInterrupts { gethostname(&buffer, buffer.count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Clock ticks per second of the times in `/proc` (`sysconf(_SC_CLK_TCK)`), 100 when the
    /// system does not say.
    public static var clockTicksPerSecond: Int {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? ticks : 100
    }

    /// The size of a memory page in bytes (`sysconf(_SC_PAGESIZE)`).
    public static var pageSize: Int { sysconf(Int32(_SC_PAGESIZE)) }
}

/// Signals and the end of the process.
public enum ProcessControl {
    /// `SIGTERM`.
    public static let terminateSignal = SIGTERM
    /// `SIGINT`.
    public static let interruptSignal = SIGINT

    /// Ends the process with `status` (`exit(3)`: buffers flushed, `atexit` handlers run).
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// The absolute path of the running executable (`/proc/self/exe`), or `nil` when the
    /// link cannot be read.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Replaces the process image with `path` run with `arguments` (its `argv`, the
    /// program name included) and the same environment (`execv(2)`): the same PID,
    /// descriptors and signal dispositions. Returns only on failure, with its error.
    public static func replace(with path: String, arguments: [String]) -> Errno {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        _ = execv(path, &argv)
        return .current
    }
}
