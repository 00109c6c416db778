/// How much the bridge logs.
public enum LogLevel: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
    /// Everything, including frames.
    case debug
    /// Normal operation (default).
    case info
    /// Noteworthy events.
    case notice
    /// Problems the bridge works around.
    case warning
    /// Failures.
    case error

    /// Orders levels from `debug` (lowest) to `error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        let order = allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}

/// How log lines are written.
public enum LogFormat: String, Sendable, Equatable, Hashable, CaseIterable {
    /// One readable line per entry (default).
    case text
    /// One JSON object per line.
    case json
}

/// The `logging` section.
public struct LoggingConfiguration: Sendable, Equatable, Hashable {
    /// The lowest level written (default `info`).
    public var level: LogLevel
    /// The line format (default `text`).
    public var format: LogFormat

    /// The defaults, or the given values.
    public init(level: LogLevel = .info, format: LogFormat = .text) {
        self.level = level
        self.format = format
    }
}
