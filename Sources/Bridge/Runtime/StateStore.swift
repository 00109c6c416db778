import Contract
public import FoundationEssentials
import SystemCalls

/// A failure to read or write persisted state, with the path and the system's reason.
public struct StateStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file involved.
    public var path: String
    /// What failed (`open`, `write`, `fsync`, `rename`, `read`).
    public var operation: String
    /// `strerror` of the failing call.
    public var reason: String

    /// A readable message.
    public var description: String { "\(operation) \(path): \(reason)" }

    init(path: String, operation: String, reason: String) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    init(path: String, operation: String, _ errno: Errno) {
        self.init(path: path, operation: operation, reason: errno.description)
    }

    init(_ error: FileSystemError) {
        self.init(path: error.path, operation: error.operation, error.errno)
    }
}

/// Persists one small file per board under the state directory, crash-safely:
/// write a temporary file, `fsync` it, `rename(2)` it over the old one, `fsync` the
/// directory. A reader therefore sees either the old or the new content, never a mix.
public struct StateStore: Sendable {
    /// The directory files are kept in.
    public let directory: String

    /// A store in `directory` (created with mode 0750 if missing).
    public init(directory: String) throws(StateStoreError) {
        self.directory = directory
        if !FileSystem.exists(directory) {
            do {
                try FileSystem.createDirectory(directory, permissions: 0o750)
            } catch {
                throw StateStoreError(path: directory, operation: "mkdir", error)
            }
        }
    }

    /// The path of the file named `name` (a board id; topic-safe names are file-safe).
    public func path(for name: String) -> String {
        directory + "/" + name + ".json"
    }

    /// Atomically replaces the file `name` with `data`. With `durably` (the default) the file
    /// and the directory are `fsync`ed too; without, the new content is in the kernel (it
    /// survives a crash of the process) and ``flush(_:)`` makes it survive a power cut.
    public func write(_ data: Data, as name: String, durably: Bool = true) throws(StateStoreError) {
        let finalPath = path(for: name)
        do {
            try FileSystem.replaceAtomically(
                finalPath, with: data, temporaryPath: finalPath + ".tmp", durably: durably, permissions: 0o640)
        } catch {
            throw StateStoreError(error)
        }
    }

    /// `fsync`s the file `name` and the directory (after a ``write(_:as:durably:)`` without).
    public func flush(_ name: String) throws(StateStoreError) {
        let filePath = path(for: name)
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(filePath, .readOnly)
        } catch {
            throw StateStoreError(path: filePath, operation: "open", error)
        }
        defer { file.close() }
        do {
            try file.sync()
        } catch {
            throw StateStoreError(path: filePath, operation: "fsync", error)
        }
        syncDirectory()
    }

    private func syncDirectory() {
        try? FileSystem.syncDirectory(directory)
    }

    /// The content of file `name`, or `nil` when there is none.
    public func read(_ name: String) throws(StateStoreError) -> Data? {
        try read(path: path(for: name))
    }

    // MARK: Journals

    /// The path of the journal of `name`: the changes appended since its file was written.
    public func journalPath(for name: String) -> String {
        directory + "/" + name + ".journal"
    }

    /// Opens the journal of `name` for appending (created if missing); the caller closes it.
    /// A last line without its newline (a write torn by a crash, a power cut or a full disk)
    /// is cut off first, so nothing is ever appended to a fragment; `cut` is how many bytes
    /// that took (0 normally). Whole lines are never touched.
    public func openJournal(_ name: String) throws(StateStoreError) -> (file: JournalFile, cut: Int) {
        let journal = journalPath(for: name)
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(journal, .readWrite, options: [.append, .create], permissions: 0o640)
        } catch {
            throw StateStoreError(path: journal, operation: "open", error)
        }
        do throws(StateStoreError) {
            let cut = try Self.cutTornTail(of: file, path: journal)
            return (JournalFile(path: journal, descriptor: file), cut)
        } catch {
            file.close()
            throw error
        }
    }

    /// Truncates the file after its last newline (everything, when it has none); returns
    /// the number of bytes removed.
    private static func cutTornTail(of file: FileDescriptor, path: String) throws(StateStoreError) -> Int {
        let size: Int
        do {
            size = try file.size()
        } catch {
            throw StateStoreError(path: path, operation: "stat", error)
        }
        var end = size
        var buffer = [UInt8](repeating: 0, count: 4096)
        search: while end > 0 {
            let start = max(0, end - buffer.count)
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) -> Int in
                    try file.read(
                        fromAbsoluteOffset: start, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(end - start)])
                    )
                }
            }
            let count: Int
            do {
                count = try result.get()
            } catch {
                throw StateStoreError(path: path, operation: "read", error)
            }
            guard count == end - start else {
                throw StateStoreError(path: path, operation: "read", reason: "short read")
            }
            var index = count
            while index > 0 {
                if buffer[index - 1] == UInt8(ascii: "\n") {
                    end = start + index
                    break search
                }
                index -= 1
            }
            end = start
        }
        guard end < size else { return 0 }
        do {
            try file.resize(to: end)
        } catch {
            throw StateStoreError(path: path, operation: "truncate", error)
        }
        return size - end
    }

    /// Renames the file at `path` to `<path>.corrupt-<UTC time>` (a further `-<n>` if that
    /// exists): kept for inspection, out of the way of what is written next. Returns the
    /// new path, or `nil` when there is no such file.
    @discardableResult
    public func moveAside(_ path: String) throws(StateStoreError) -> String? {
        // `20260501T140311Z`: the payload timestamp of the whole second, without separators.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let stamp = String(ISO8601Timestamp.string(from: now).filter { $0 != "-" && $0 != ":" }.prefix(15)) + "Z"
        var target = path + ".corrupt-" + stamp
        var number = 1
        while FileSystem.exists(target) {
            number += 1
            target = path + ".corrupt-" + stamp + "-\(number)"
        }
        do {
            try FileSystem.rename(path, to: target)
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw StateStoreError(path: path, operation: "rename", error)
        }
        syncDirectory()
        return target
    }

    /// A journal open for appending (``openJournal(_:)``).
    public struct JournalFile: Sendable, Hashable {
        /// Where it is.
        public let path: String
        let descriptor: FileDescriptor

        /// Appends `data` with one `write(2)` (more only if the kernel takes part of it): the
        /// change is in the kernel (it survives a crash of the process) when this returns.
        public func append(_ data: Data) throws(StateStoreError) {
            do {
                try descriptor.writeAll(data)
            } catch {
                throw StateStoreError(path: path, operation: "write", error)
            }
        }

        /// Empties the journal (its changes are in the file now).
        public func truncate() throws(StateStoreError) {
            do {
                try descriptor.resize(to: 0)
            } catch {
                throw StateStoreError(path: path, operation: "truncate", error)
            }
        }

        /// `fdatasync`s the journal.
        public func sync() throws(StateStoreError) {
            do {
                try descriptor.dataSync()
            } catch {
                throw StateStoreError(path: path, operation: "fsync", error)
            }
        }

        /// Closes the journal; no other call may follow.
        public func close() {
            descriptor.close()
        }
    }

    /// The content of the journal of `name`, or `nil` when there is none.
    public func readJournal(_ name: String) throws(StateStoreError) -> Data? {
        try read(path: journalPath(for: name))
    }

    // MARK: Files

    private func read(path filePath: String) throws(StateStoreError) -> Data? {
        do {
            return try FileSystem.contents(of: filePath).map { Data($0) }
        } catch {
            throw StateStoreError(error)
        }
    }

    /// Removes file `name` and its journal if present.
    public func remove(_ name: String) {
        try? FileSystem.remove(path(for: name))
        try? FileSystem.remove(journalPath(for: name))
    }
}
