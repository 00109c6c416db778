import Config

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension LogLevel {
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
}

/// Where log lines go. The default writes to standard error, one line per call.
public protocol LogSink: Sendable {
    /// Writes one complete line (without the newline).
    func write(line: String)
}

/// Writes lines to standard error (journald captures it under systemd).
public struct StandardErrorSink: LogSink {
    /// A sink on file descriptor 2.
    public init() {}

    /// Writes `line` and a newline with a single `write(2)`, so lines never interleave.
    public func write(line: String) {
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}

/// A small value logger: a label (the board id or subsystem), a level threshold, a
/// format and a sink. Pass it by value; `labelled(_:)` derives one per board.
/// Secrets must never be passed to it: the config layer redacts them at the source.
public struct Logger: Sendable {
    /// What the lines are about (`bridge`, `mqtt`, `board-01`).
    public var label: String
    /// The least severe level written.
    public var level: LogLevel
    /// The line format.
    public var format: LogFormat
    /// Where lines go.
    public var sink: any LogSink

    /// A logger writing to standard error.
    public init(
        label: String, level: LogLevel = .info, format: LogFormat = .text, sink: any LogSink = StandardErrorSink()
    ) {
        self.label = label
        self.level = level
        self.format = format
        self.sink = sink
    }

    /// The same logger with another label.
    public func labelled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// Logs `message` with optional key/value metadata at `level`.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        guard level >= self.level else { return }
        sink.write(line: render(level, message(), metadata))
    }

    /// Logs at `debug`.
    public func debug(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.debug, message(), metadata)
    }

    /// Logs at `info`.
    public func info(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.info, message(), metadata)
    }

    /// Logs at `notice`.
    public func notice(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.notice, message(), metadata)
    }

    /// Logs at `warning`.
    public func warning(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.warning, message(), metadata)
    }

    /// Logs at `error`.
    public func error(_ message: @autoclosure () -> String, _ metadata: [(String, String)] = []) {
        log(.error, message(), metadata)
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

    func render(_ level: LogLevel, _ rawMessage: String, _ rawMetadata: [(String, String)]) -> String {
        let message = Self.capped(rawMessage, limit: Self.messageLimit)
        let metadata = rawMetadata.map { ($0.0, Self.capped($0.1, limit: Self.valueLimit)) }
        switch format {
        case .text:
            let extra = metadata.map { " \($0.0)=\($0.1)" }.joined()
            return "<\(level.syslogPriority)>\(label): \(message)\(extra)"
        case .json:
            var fields = [("level", level.rawValue), ("label", label), ("message", message)]
            fields += metadata
            return "{" + fields.map { "\(Self.quoted($0.0)):\(Self.quoted($0.1))" }.joined(separator: ",") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
