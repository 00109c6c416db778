#if canImport(Glibc)
    import Glibc
#endif

/// The figures of this process and its state directory that the health report carries,
/// read from `/proc/self` and with `statvfs(3)`.
enum ProcessFigures {
    /// Clock ticks per second of the `/proc` times (`sysconf(_SC_CLK_TCK)`).
    static let ticksPerSecond: Double = {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? Double(ticks) : 100
    }()

    /// User plus system time of the process in clock ticks (`/proc/self/stat` fields 14
    /// and 15), `nil` without `/proc`.
    static func cpuTicks() -> Int? {
        guard let text = read("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After the command name: field 3 (state) onwards.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// Resident memory in bytes (`/proc/self/statm`, second field, in pages).
    static func residentBytes() -> Int? {
        guard let text = read("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes free to unprivileged users on the file system of `path` (`statvfs(3)`).
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Creates, writes one byte to and removes a probe file in `directory`: `nil` when that
    /// works, else why not (`Read-only file system`, `No space left on device`…). A byte is
    /// written because a full file system may still have room for an empty file.
    static func probeWritable(_ directory: String) -> String? {
        let path = directory + "/.health-probe"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { unlink(path) }
        var byte: UInt8 = 0x0A
        let written = write(descriptor, &byte, 1)
        let writeError = errno
        let closed = close(descriptor)
        let closeError = errno
        if written != 1 { return String(cString: strerror(writeError)) }
        if closed != 0 { return String(cString: strerror(closeError)) }
        return nil
    }

    /// The whole of a small `/proc` file (their size reads as 0, so read to the end).
    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
