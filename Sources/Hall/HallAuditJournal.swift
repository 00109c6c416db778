import JSON
import SystemCalls

/// The audit log on disk: one JSON line per ``HallAudit/Line``, appended and `fdatasync`ed
/// before the action it records is answered, so an entry survives a crash of the hall or
/// of the machine. Read back at start; a torn last line (a crash mid-write) is cut off and
/// reported, a line that is not an entry is skipped and counted.
///
/// A write that fails (a full disk, a directory gone) is reported in ``problem`` and the
/// entry stays in memory; the next write tries again.
public final class HallAuditJournal {
    /// The file.
    public let path: String
    /// Why the last open or write failed, or `nil`.
    public private(set) var problem: String?
    /// Lines skipped when reading (not an entry, or torn).
    public private(set) var skippedLines = 0
    private var file: FileDescriptor?

    /// The journal at `path` (nothing is opened before ``open()``).
    public init(path: String) {
        self.path = path
    }

    deinit { file?.close() }

    /// Reads every line of the journal and opens it for appending; returns the lines.
    public func open() -> [HallAudit.Line] {
        var lines: [HallAudit.Line] = []
        var bytes: [UInt8] = []
        do {
            bytes = try FileSystem.contents(of: path) ?? []
        } catch {
            problem = "cannot read \(path): \(error)"
        }
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            if let line = Self.line(bytes[start..<index]) { lines.append(line) } else { skippedLines += 1 }
            start = index + 1
        }
        do {
            let descriptor = try FileDescriptor.open(path, .writeOnly, options: [.create, .append], permissions: 0o640)
            file = descriptor
            if start < bytes.count {
                // A torn last line: cut off, so the next line starts on a line of its own.
                skippedLines += 1
                try descriptor.resize(to: start)
            }
        } catch {
            problem = "cannot open \(path): \(error)"
        }
        return lines
    }

    /// Appends `line` and waits until it is on disk; `false` when it could not be written
    /// (``problem`` says why).
    @discardableResult
    public func append(_ line: HallAudit.Line) -> Bool {
        if file == nil {
            do {
                file = try FileDescriptor.open(path, .writeOnly, options: [.create, .append], permissions: 0o640)
            } catch {
                problem = "cannot open \(path): \(error)"
                return false
            }
        }
        guard let file else { return false }
        let size = try? file.size()
        do {
            _ = try file.writeAll(line.json.encoded() + [UInt8(ascii: "\n")])
            try file.dataSync()
            problem = nil
            return true
        } catch {
            // Half a line (a full disk) is cut off again, so the next line is whole.
            if let size { try? file.resize(to: size) }
            problem = "cannot write \(path): \(error)"
            return false
        }
    }

    static func line(_ bytes: ArraySlice<UInt8>) -> HallAudit.Line? {
        guard let json = try? JSONValue(parsing: Array(bytes), maximumDepth: 10) else { return nil }
        if let answer = HallAuditAnswer(json: json) { return .answer(answer) }
        return HallAuditRecord(json: json).map(HallAudit.Line.record)
    }
}
