#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small, bounded file reads for the loader (the configuration, secret files), with
/// messages that name the path and never the content.
enum ConfigFiles {
    /// The largest file read (a configuration or a secret is far smaller).
    static let maximumSize = 1 << 20

    /// The bytes of the file at `path`, or a message: "file not found", "permission
    /// denied", "is a directory, not a file", "is larger than 1 MiB", …
    static func read(_ path: String) -> Result<[UInt8], ConfigProblem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(ConfigProblem(message(for: errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(ConfigProblem(message(for: errno))) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return .failure(ConfigProblem("is a directory, not a file")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ConfigProblem(message(for: errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumSize {
                let mark = bytes.withUnsafeBufferPointer { YAMLDocument.mark(ofOffset: maximumSize, in: $0) }
                return .failure(ConfigProblem("is larger than 1 MiB", mark: mark))
            }
        }
        return .success(bytes)
    }

    /// A problem with reading the file at `path`, or `nil` when it can be read.
    static func readabilityProblem(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return message(for: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return message(for: errno) }
        return (status.st_mode & S_IFMT) == S_IFDIR ? "is a directory, not a file" : nil
    }

    /// Why `path` cannot serve as a directory ("is a file, not a directory", "a part of
    /// the path is not a directory", …), or `nil` when it is a directory or does not exist
    /// yet (the bridge creates it).
    static func directoryProblem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT ? nil : message(for: errno)
        }
        return (status.st_mode & S_IFMT) == S_IFDIR ? nil : "is a file, not a directory"
    }

    /// `path` itself when absolute, else joined to `directory`.
    static func resolve(_ path: String, against directory: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty || directory == "." { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// The folder part of `path` (`.` when there is none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #else
            Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func message(for code: Int32) -> String {
        switch code {
        case ENOENT: "file not found"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory, not a file"
        case ENOTDIR: "a part of the path is not a directory"
        default: String(cString: strerror(code))
        }
    }
}

/// A reason, as text, for a failure inside the loader.
struct ConfigProblem: Error, Equatable {
    let message: String
    /// Where in the file the problem lies, when it lies at a place (the first byte past
    /// the size limit).
    let mark: YAMLMark?

    init(_ message: String, mark: YAMLMark? = nil) {
        self.message = message
        self.mark = mark
    }
}
