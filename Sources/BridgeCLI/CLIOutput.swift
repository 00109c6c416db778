#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Whether a file exists at `path` (`access(F_OK)`).
    public static func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
