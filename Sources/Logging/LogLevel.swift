/// How serious a log line is; the one level type of every module (the configuration's
/// `logging.level`, the MQTT client's and the BlueZ module's lines, the bridge's own).
public enum LogLevel: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
    /// Everything, including frames and every D-Bus step.
    case debug
    /// Normal operation (default).
    case info
    /// Noteworthy events.
    case notice
    /// Problems the bridge works around (a retry, a reconnect).
    case warning
    /// Failures that need attention.
    case error

    /// Orders levels from `debug` (lowest) to `error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    /// The syslog priority journald reads from a `<N>` line prefix.
    public var syslogPriority: Int {
        switch self {
        case .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        }
    }

    private var severity: Int { 7 - syslogPriority }
}

/// How log lines are written.
public enum LogFormat: String, Sendable, Equatable, Hashable, CaseIterable {
    /// One readable line per entry (default).
    case text
    /// One JSON object per line.
    case json
}
