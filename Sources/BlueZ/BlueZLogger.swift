/// How serious a BlueZ log line is.
public enum BlueZLogLevel: Int, Comparable, Hashable, Sendable, CaseIterable {
    /// Details for debugging (every D-Bus step).
    case debug
    /// Normal events (connected, scanning).
    case info
    /// Something went wrong and is being handled (a retry, a reconnect).
    case warning
    /// Something went wrong that needs attention (giving up, malformed input).
    case error

    /// Orders levels from least to most severe.
    public static func < (lhs: BlueZLogLevel, rhs: BlueZLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Where the BlueZ module's log lines go: a small closure the bridge wires onto its own
/// logger (this module never prints). Each line carries its context (`[hci0 AA:BB:…] …`).
public struct BlueZLogger: Sendable {
    /// Receives a level and a complete line.
    public let handler: @Sendable (BlueZLogLevel, String) -> Void

    /// A logger calling `handler` for each line.
    public init(_ handler: @escaping @Sendable (BlueZLogLevel, String) -> Void) {
        self.handler = handler
    }

    /// Drops every line.
    public static let silent = BlueZLogger { _, _ in }

    /// Logs `message` at `level`.
    public func log(_ level: BlueZLogLevel, _ message: String) {
        handler(level, message)
    }

    /// Logs at ``BlueZLogLevel/debug``.
    public func debug(_ message: String) { handler(.debug, message) }
    /// Logs at ``BlueZLogLevel/info``.
    public func info(_ message: String) { handler(.info, message) }
    /// Logs at ``BlueZLogLevel/warning``.
    public func warning(_ message: String) { handler(.warning, message) }
    /// Logs at ``BlueZLogLevel/error``.
    public func error(_ message: String) { handler(.error, message) }

    /// The same logger with `prefix` put in front of every line (`"[board-1] "`).
    public func prefixed(_ prefix: String) -> BlueZLogger {
        let handler = self.handler
        return BlueZLogger { level, message in handler(level, prefix + message) }
    }
}
