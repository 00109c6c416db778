public import Logging

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
