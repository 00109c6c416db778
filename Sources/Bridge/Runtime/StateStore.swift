#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

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
        var isDirectory = stat()
        if stat(directory, &isDirectory) != 0 {
            if mkdir(directory, 0o750) != 0 && errno != EEXIST {
                throw StateStoreError(path: directory, operation: "mkdir", reason: Self.lastError())
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
        let temporaryPath = finalPath + ".tmp"
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StateStoreError(path: temporaryPath, operation: "open", reason: Self.lastError()) }
        var failure = Self.writeAll(data, to: fd, path: temporaryPath)
        if failure == nil && durably && fsync(fd) != 0 {
            failure = StateStoreError(path: temporaryPath, operation: "fsync", reason: Self.lastError())
        }
        close(fd)
        if let failure {
            unlink(temporaryPath)
            throw failure
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            let error = StateStoreError(path: finalPath, operation: "rename", reason: Self.lastError())
            unlink(temporaryPath)
            throw error
        }
        if durably { syncDirectory() }
    }

    /// `fsync`s the file `name` and the directory (after a ``write(_:as:durably:)`` without).
    public func flush(_ name: String) throws(StateStoreError) {
        let filePath = path(for: name)
        let fd = open(filePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StateStoreError(path: filePath, operation: "open", reason: Self.lastError()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw StateStoreError(path: filePath, operation: "fsync", reason: Self.lastError())
        }
        syncDirectory()
    }

    private func syncDirectory() {
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
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
        let fd = open(journal, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StateStoreError(path: journal, operation: "open", reason: Self.lastError()) }
        do throws(StateStoreError) {
            let cut = try Self.cutTornTail(of: fd, path: journal)
            return (JournalFile(path: journal, descriptor: fd), cut)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }

    /// Truncates the file after its last newline (everything, when it has none); returns
    /// the number of bytes removed.
    private static func cutTornTail(of fd: Int32, path: String) throws(StateStoreError) -> Int {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw StateStoreError(path: path, operation: "stat", reason: lastError())
        }
        let size = Int(status.st_size)
        var end = size
        var buffer = [UInt8](repeating: 0, count: 4096)
        search: while end > 0 {
            let start = max(0, end - buffer.count)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, end - start, off_t(start)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StateStoreError(path: path, operation: "read", reason: lastError())
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
        guard ftruncate(fd, off_t(end)) == 0 else {
            throw StateStoreError(path: path, operation: "truncate", reason: lastError())
        }
        return size - end
    }

    /// Renames the file at `path` to `<path>.corrupt-<UTC time>` (a further `-<n>` if that
    /// exists): kept for inspection, out of the way of what is written next. Returns the
    /// new path, or `nil` when there is no such file.
    @discardableResult
    public func moveAside(_ path: String) throws(StateStoreError) -> String? {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let stamp =
            padded(parts.tm_year + 1900, 4) + padded(parts.tm_mon + 1, 2) + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + padded(parts.tm_min, 2) + padded(parts.tm_sec, 2) + "Z"
        var target = path + ".corrupt-" + stamp
        var number = 1
        var existing = stat()
        while stat(target, &existing) == 0 {
            number += 1
            target = path + ".corrupt-" + stamp + "-\(number)"
        }
        guard rename(path, target) == 0 else {
            if errno == ENOENT { return nil }
            throw StateStoreError(path: path, operation: "rename", reason: Self.lastError())
        }
        syncDirectory()
        return target
    }

    /// A journal open for appending (``openJournal(_:)``).
    public struct JournalFile: Sendable, Hashable {
        /// Where it is.
        public let path: String
        let descriptor: Int32

        /// Appends `data` with one `write(2)`: the change is in the kernel (it survives a
        /// crash of the process) when this returns.
        public func append(_ data: Data) throws(StateStoreError) {
            if let failure = StateStore.writeAll(data, to: descriptor, path: path) { throw failure }
        }

        /// Empties the journal (its changes are in the file now).
        public func truncate() throws(StateStoreError) {
            guard ftruncate(descriptor, 0) == 0 else {
                throw StateStoreError(path: path, operation: "truncate", reason: StateStore.lastError())
            }
        }

        /// `fdatasync`s the journal.
        public func sync() throws(StateStoreError) {
            guard fdatasync(descriptor) == 0 else {
                throw StateStoreError(path: path, operation: "fsync", reason: StateStore.lastError())
            }
        }

        /// Closes the journal; no other call may follow.
        public func close() {
            _ = Glibc.close(descriptor)
        }
    }

    /// The content of the journal of `name`, or `nil` when there is none.
    public func readJournal(_ name: String) throws(StateStoreError) -> Data? {
        try read(path: journalPath(for: name))
    }

    // MARK: Files

    fileprivate static func writeAll(_ data: Data, to fd: Int32, path: String) -> StateStoreError? {
        data.withUnsafeBytes { buffer -> StateStoreError? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return StateStoreError(path: path, operation: "write", reason: Self.lastError())
                }
                offset += written
            }
            return nil
        }
    }

    private func read(path filePath: String) throws(StateStoreError) -> Data? {
        let fd = open(filePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StateStoreError(path: filePath, operation: "open", reason: Self.lastError())
        }
        defer { close(fd) }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StateStoreError(path: filePath, operation: "read", reason: Self.lastError())
            }
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// Removes file `name` and its journal if present.
    public func remove(_ name: String) {
        unlink(path(for: name))
        unlink(journalPath(for: name))
    }

    fileprivate static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
