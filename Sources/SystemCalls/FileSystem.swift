#if canImport(Glibc)
    import Glibc
#endif

/// A file-system call that failed: what was done to which path, and why.
public struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What failed (`open`, `write`, `fsync`, `rename`, …).
    public var operation: String
    /// The path involved.
    public var path: String
    /// The system's reason.
    public var errno: Errno

    /// Creates an error.
    public init(operation: String, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// `operation path: reason`.
    public var description: String { "\(operation) \(path): \(errno)" }
}

/// Calls on paths (swift-system has them on `FilePath` and `FileDescriptor`).
public enum FileSystem {
    /// Whether something exists at `path` (`stat(2)` succeeds).
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Whether `path` is a file this process may execute (`access(2)` with `X_OK`, and no
    /// directory).
    public static func isExecutable(_ path: String) -> Bool {
        var status = stat()
        return access(path, X_OK) == 0 && stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFDIR
    }

    /// Whether `path` is a directory (`stat(2)`, following links); throws when there is
    /// nothing there (``Errno/noSuchFileOrDirectory``) or it cannot be looked at.
    public static func isDirectory(_ path: String) throws(Errno) -> Bool {
        var status = stat()
        _ = try SystemCall.retryingInterrupts { stat(path, &status) }
        return (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Bytes free to unprivileged users on the file system of `path` (`statvfs(3)`).
    public static func freeBytes(_ path: String) throws(Errno) -> Int {
        var info = statvfs()
        _ = try SystemCall.retryingInterrupts { statvfs(path, &info) }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Creates the directory `path` with `permissions`; one that already exists is fine.
    public static func createDirectory(_ path: String, permissions: UInt32) throws(Errno) {
        do {
            _ = try SystemCall.retryingInterrupts { mkdir(path, mode_t(permissions)) }
        } catch  where error == .fileExists {
            return
        }
    }

    /// `rename(2)`: atomically puts `source` in the place of `destination`.
    public static func rename(_ source: String, to destination: String) throws(Errno) {
        _ = try SystemCall.retryingInterrupts { Glibc.rename(source, destination) }
    }

    /// `unlink(2)`.
    public static func remove(_ path: String) throws(Errno) {
        _ = try SystemCall.retryingInterrupts { unlink(path) }
    }

    /// `fsync(2)`s the directory `path`, so renames and new names in it are on the disk.
    public static func syncDirectory(_ path: String) throws(Errno) {
        let directory = try FileDescriptor.open(path, .readOnly, options: .directory)
        defer { directory.close() }
        try directory.sync()
    }

    /// The whole content of the file at `path`, or `nil` when there is none.
    public static func contents(of path: String) throws(FileSystemError) -> [UInt8]? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readOnly)
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw FileSystemError(operation: "open", path: path, errno: error)
        }
        defer { file.close() }
        do {
            return try file.readAll()
        } catch {
            throw FileSystemError(operation: "read", path: path, errno: error)
        }
    }

    /// Replaces the file at `path` with `bytes` so that a reader (or a crash) sees the old
    /// content or the new, never a mix: writes `temporaryPath`, `fsync`s it (with
    /// `durably`), renames it over `path` and `fsync`s the directory (with `durably`).
    /// Without `durably` the new content is in the kernel (it survives a crash of the
    /// process, not a power cut). On a failure the temporary file is removed and `path`
    /// keeps its old content.
    public static func replaceAtomically(
        _ path: String, with bytes: some Collection<UInt8>, temporaryPath: String, durably: Bool = true,
        permissions: UInt32 = 0o640
    ) throws(FileSystemError) {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                temporaryPath, .writeOnly, options: [.create, .truncate], permissions: permissions)
        } catch {
            throw FileSystemError(operation: "open", path: temporaryPath, errno: error)
        }
        var failure: FileSystemError?
        do {
            try file.writeAll(bytes)
        } catch {
            failure = FileSystemError(operation: "write", path: temporaryPath, errno: error)
        }
        if failure == nil && durably {
            do {
                try file.sync()
            } catch {
                failure = FileSystemError(operation: "fsync", path: temporaryPath, errno: error)
            }
        }
        file.close()
        if let failure {
            try? remove(temporaryPath)
            throw failure
        }
        do {
            try rename(temporaryPath, to: path)
        } catch {
            try? remove(temporaryPath)
            throw FileSystemError(operation: "rename", path: path, errno: error)
        }
        if durably { try? syncDirectory(directory(of: path)) }
    }

    /// The directory part of `path` (`.` when it has none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
