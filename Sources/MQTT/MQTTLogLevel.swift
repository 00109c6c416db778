/// Severity of a client log line.
public enum MQTTLogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Protocol chatter (libmosquitto's packet log); off unless asked for.
    case debug
    /// Connections made and lost, subscriptions, protocol fallback.
    case info
    /// Something lost or refused that the client recovered from (dropped messages,
    /// refused subscriptions).
    case warning
    /// A failure the owner should see (refused connection, TLS failure).
    case error

    /// `debug`, `info`, `warning` or `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Orders by severity.
    public static func < (lhs: MQTTLogLevel, rhs: MQTTLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Receives the client's log lines, on the main actor. Lines never contain the password.
public typealias MQTTLogHandler = @MainActor (MQTTLogLevel, String) -> Void
