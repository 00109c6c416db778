import SystemCalls

/// Where the command line writes; tests capture it, the executable uses ``StandardStreams``.
public protocol CLIOutput {
    /// Writes `text` to standard output.
    func writeOutput(_ text: String)
    /// Writes `text` to standard error.
    func writeError(_ text: String)
}

/// The process's stdout (fd 1) and stderr (fd 2), written with `write(2)`, unbuffered.
public struct StandardStreams: CLIOutput {
    /// Creates the writer.
    public init() {}

    /// Writes to fd 1.
    public func writeOutput(_ text: String) { Self.write(text, to: 1) }

    /// Writes to fd 2.
    public func writeError(_ text: String) { Self.write(text, to: 2) }

    /// All of `text` (partial writes continued, `EINTR` retried); a stream that fails is
    /// given up on, as before: there is nowhere to report it.
    private static func write(_ text: String, to descriptor: Int32) {
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(Array(text.utf8))
    }

    /// Whether a file exists at `path`.
    public static func fileExists(_ path: String) -> Bool {
        FileSystem.exists(path)
    }
}
