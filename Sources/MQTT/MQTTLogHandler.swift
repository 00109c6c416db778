public import Logging

/// Receives the client's log lines, on the main actor. Lines never contain the password.
public typealias MQTTLogHandler = @MainActor (LogLevel, String) -> Void
