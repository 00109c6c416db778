import SystemCalls

/// Where log entries go.
///
/// A sink either writes formatted lines (implement ``write(line:)``; the default
/// ``write(_:format:)`` renders the entry first) or takes the entry itself (implement
/// ``write(_:format:)``, as ``ClosureSink`` does for tests and for modules that hand
/// their lines on).
public protocol LogSink: Sendable {
    /// Writes one complete line (without the newline).
    func write(line: String)
    /// Receives one entry that passed the level filter. The default writes
    /// `entry.line(format)` through ``write(line:)``.
    func write(_ entry: LogEntry, format: LogFormat)
}

extension LogSink {
    /// Renders `entry` in `format` and writes the line.
    public func write(_ entry: LogEntry, format: LogFormat) {
        write(line: entry.line(format))
    }
}

/// Writes lines to standard error (journald captures it under systemd).
public struct StandardErrorSink: LogSink {
    /// A sink on file descriptor 2.
    public init() {}

    /// Writes `line` and a newline (partial writes continue, `EINTR` retries), so lines
    /// never interleave. A full non-blocking stderr is not waited for (the event loop runs
    /// on this thread): the rest of the line is dropped, as is a line that cannot be
    /// written at all; there is nowhere left to report it.
    public func write(line: String) {
        _ = try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8), waitingWhenFull: false)
    }
}

/// Hands every entry to a closure, unformatted.
public struct ClosureSink: LogSink {
    private let handler: @Sendable (LogEntry) -> Void

    /// A sink calling `handler` for each entry.
    public init(_ handler: @escaping @Sendable (LogEntry) -> Void) {
        self.handler = handler
    }

    /// Calls the handler with `entry`.
    public func write(_ entry: LogEntry, format: LogFormat) {
        handler(entry)
    }

    /// Calls the handler with `line` as an `info` entry without a label (only reached when
    /// called directly).
    public func write(line: String) {
        handler(LogEntry(level: .info, label: "", message: line))
    }
}

/// Drops everything.
public struct DiscardingSink: LogSink {
    /// A sink that writes nothing.
    public init() {}

    /// Does nothing.
    public func write(line: String) {}

    /// Does nothing.
    public func write(_ entry: LogEntry, format: LogFormat) {}
}
