import SystemCalls

/// The figures of this process and its state directory that the health report carries,
/// read from `/proc/self` and with `statvfs(3)`.
enum ProcessFigures {
    /// Clock ticks per second of the `/proc` times (`sysconf(_SC_CLK_TCK)`).
    static let ticksPerSecond = Double(Host.clockTicksPerSecond)

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
        return pages * Host.pageSize
    }

    /// Bytes free to unprivileged users on the file system of `path` (`statvfs(3)`).
    static func freeBytes(_ path: String) -> Int? {
        try? FileSystem.freeBytes(path)
    }

    /// Creates, writes one byte to and removes a probe file in `directory`: `nil` when that
    /// works, else why not (`Read-only file system`, `No space left on device`…). A byte is
    /// written because a full file system may still have room for an empty file.
    static func probeWritable(_ directory: String) -> String? {
        let path = directory + "/.health-probe"
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o600)
        } catch {
            return error.description
        }
        defer { try? FileSystem.remove(path) }
        var writeError: Errno?
        do {
            try file.writeAll([0x0A])
        } catch {
            writeError = error
        }
        var closeError: Errno?
        do {
            try file.closeReportingErrors()
        } catch {
            closeError = error
        }
        return (writeError ?? closeError)?.description
    }

    /// The whole of a small `/proc` file (their size reads as 0, so read to the end).
    private static func read(_ path: String) -> String? {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { file.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { raw in (try? file.read(into: raw)) ?? 0 }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
