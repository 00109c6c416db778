import SystemCalls

/// Small, bounded file reads for the loader (the configuration, secret files), with
/// messages that name the path and never the content.
enum ConfigFiles {
    /// The largest file read (a configuration or a secret is far smaller).
    static let maximumSize = 1 << 20

    /// The bytes of the file at `path`, or a message: "file not found", "permission
    /// denied", "is a directory, not a file", "is larger than 1 MiB", …
    static func read(_ path: String) -> Result<[UInt8], ConfigProblem> {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readOnly)
        } catch {
            return .failure(ConfigProblem(message(for: error)))
        }
        defer { file.close() }
        do {
            if try file.isDirectory() { return .failure(ConfigProblem("is a directory, not a file")) }
        } catch {
            return .failure(ConfigProblem(message(for: error)))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let result = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) -> Int in try file.read(into: raw) }
            }
            let count: Int
            switch result {
            case .success(let read): count = read
            case .failure(let error): return .failure(ConfigProblem(message(for: error)))
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
        do {
            let file = try FileDescriptor.open(path, .readOnly)
            defer { file.close() }
            return try file.isDirectory() ? "is a directory, not a file" : nil
        } catch {
            return message(for: error)
        }
    }

    /// Why `path` cannot serve as a directory ("is a file, not a directory", "a part of
    /// the path is not a directory", …), or `nil` when it is a directory or does not exist
    /// yet (the bridge creates it).
    static func directoryProblem(_ path: String) -> String? {
        do {
            return try FileSystem.isDirectory(path) ? nil : "is a file, not a directory"
        } catch {
            return error == .noSuchFileOrDirectory ? nil : message(for: error)
        }
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

    private static func message(for error: Errno) -> String {
        switch error {
        case .noSuchFileOrDirectory: "file not found"
        case .permissionDenied, .notPermitted: "permission denied"
        case .isDirectory: "is a directory, not a file"
        case .notDirectory: "a part of the path is not a directory"
        default: error.description
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
