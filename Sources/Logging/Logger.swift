/// A small value logger: a label (the board id or subsystem), a level threshold, a format
/// and a sink. Pass it by value; ``labelled(_:)`` derives one per board, ``prefixed(_:)``
/// one per link.
///
/// The message and the metadata are `@autoclosure`s (swift-log's shape): below the
/// threshold nothing is built, so a debug line with hex dumps costs one comparison.
/// Secrets must never be passed to it: the config layer redacts them at the source.
public struct Logger: Sendable {
    /// What the lines are about (`bridge`, `mqtt`, `board-01`).
    public var label: String
    /// The least severe level written.
    public var level: LogLevel
    /// The line format.
    public var format: LogFormat
    /// Where entries go.
    public var sink: any LogSink
    /// Put in front of every message (`"[hci0 AA:BB:…] "`); empty by default.
    public var prefix: String

    /// A logger writing to standard error.
    public init(
        label: String, level: LogLevel = .info, format: LogFormat = .text, sink: any LogSink = StandardErrorSink()
    ) {
        self.label = label
        self.level = level
        self.format = format
        self.sink = sink
        prefix = ""
    }

    /// A logger that drops everything (the default of modules whose owner may not log).
    public static let silent = Logger(label: "", level: .error, sink: DiscardingSink())

    /// The same logger with another label.
    public func labelled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// The same logger with `prefix` added after its own prefix.
    public func prefixed(_ prefix: String) -> Logger {
        var copy = self
        copy.prefix += prefix
        return copy
    }

    /// Whether a line at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool {
        level >= self.level
    }

    /// Logs `message` with optional key/value metadata at `level`; neither is evaluated
    /// when `level` is below the threshold.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String,
        _ metadata: @autoclosure () -> [(String, String)] = []
    ) {
        guard level >= self.level else { return }
        sink.write(entry(level, message(), metadata()), format: format)
    }

    /// Logs at `debug`.
    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [(String, String)] = []) {
        log(.debug, message(), metadata())
    }

    /// Logs at `info`.
    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [(String, String)] = []) {
        log(.info, message(), metadata())
    }

    /// Logs at `notice`.
    public func notice(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [(String, String)] = []) {
        log(.notice, message(), metadata())
    }

    /// Logs at `warning`.
    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [(String, String)] = []) {
        log(.warning, message(), metadata())
    }

    /// Logs at `error`.
    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [(String, String)] = []) {
        log(.error, message(), metadata())
    }

    /// The most UTF-8 bytes of a metadata value written; longer values are cut (``capped(_:limit:)``).
    public static let valueLimit = 200
    /// The most UTF-8 bytes of a message written.
    public static let messageLimit = 1_000

    /// `text`, or its first `limit` bytes of UTF-8 (whole characters) followed by
    /// `… (N bytes)` when it is longer: a refused 60 KB command costs a short line.
    public static func capped(_ text: String, limit: Int) -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        var used = 0
        var end = text.unicodeScalars.startIndex
        for index in text.unicodeScalars.indices {
            let width = UTF8.width(text.unicodeScalars[index])
            if used + width > limit { break }
            used += width
            end = text.unicodeScalars.index(after: index)
        }
        return String(String.UnicodeScalarView(text.unicodeScalars[..<end])) + "… (\(count) bytes)"
    }

    /// The entry for an accepted line: prefix added, message and values capped.
    func entry(_ level: LogLevel, _ message: String, _ metadata: [(String, String)]) -> LogEntry {
        LogEntry(
            level: level, label: label, message: Self.capped(prefix + message, limit: Self.messageLimit),
            metadata: metadata.map { ($0.0, Self.capped($0.1, limit: Self.valueLimit)) })
    }
}
