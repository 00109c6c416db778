import JSON

/// One log entry that passed the level filter: what a ``LogSink`` receives.
public struct LogEntry: Sendable, Equatable {
    /// How serious it is.
    public var level: LogLevel
    /// What it is about (`bridge`, `mqtt`, `board-01`).
    public var label: String
    /// The message, with the logger's prefix and capped at ``Logger/messageLimit`` bytes.
    public var message: String
    /// Key/value pairs in order, each value capped at ``Logger/valueLimit`` bytes.
    public var metadata: [(String, String)]

    /// Creates an entry.
    public init(level: LogLevel, label: String, message: String, metadata: [(String, String)] = []) {
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }

    /// Compares level, label, message and metadata.
    public static func == (lhs: LogEntry, rhs: LogEntry) -> Bool {
        lhs.level == rhs.level && lhs.label == rhs.label && lhs.message == rhs.message
            && lhs.metadata.elementsEqual(rhs.metadata) { $0 == $1 }
    }

    /// The entry as one line (without the newline): `<4>label: message key=value` for
    /// `.text` (the priority prefix journald reads), one compact JSON object
    /// `{"level":…,"label":…,"message":…,"key":"value"}` for `.json`.
    public func line(_ format: LogFormat) -> String {
        switch format {
        case .text:
            var line = "<\(level.syslogPriority)>\(label): \(message)"
            for (key, value) in metadata { line += " \(key)=\(value)" }
            return line
        case .json:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(64 + message.utf8.count)
            bytes.append(UInt8(ascii: "{"))
            let fields = [("level", level.rawValue), ("label", label), ("message", message)] + metadata
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONText.appendQuoted(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
