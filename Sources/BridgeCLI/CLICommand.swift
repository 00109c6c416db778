public import BoardKit

/// What the `boardbridge` command line asks for.
public enum CLICommand: Sendable, Equatable {
    /// `--help` / `-h` (anywhere on the line): print the usage text.
    case help
    /// `--version`: print `boardbridge <version>`.
    case version
    /// `check-config [--config PATH]`: load the configuration and report every problem.
    /// `configPath` is `nil` when no `--config` was given (see ``ConfigLocation``).
    case checkConfig(configPath: String?)
    /// `run [--config PATH] [--bus ADDRESS]`: run the bridge until SIGTERM/SIGINT.
    /// `busAddress` overrides the system bus (default: `DBUS_SYSTEM_BUS_ADDRESS` or the
    /// standard socket).
    case run(configPath: String?, busAddress: String?)
    /// `decode --family NAME [HEX...]`: decode captured notifications (one per argument,
    /// or one per stdin line when none is given) and print events as JSON lines.
    case decode(family: BoardFamily, hex: [String])
    /// `hall [--config PATH]`: the arbiter's hall view, a web server showing every board of
    /// every bridge host on the broker, until SIGTERM/SIGINT.
    case hall(configPath: String?)
}

/// A command line that cannot be understood. Exits with ``ExitCode/usage`` (64).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown command "frobnicate"`.
    public let message: String

    /// Creates a usage error.
    public init(_ message: String) {
        self.message = message
    }

    /// `boardbridge: <message>` and a hint to `--help`, on two lines.
    public var description: String {
        "boardbridge: \(message)\nRun 'boardbridge --help' for usage."
    }
}

/// The process exit codes of `boardbridge` (sysexits.h style).
public enum ExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// EX_USAGE: the command line is wrong.
    public static let usage: Int32 = 64
    /// EX_SOFTWARE: an internal error.
    public static let software: Int32 = 70
    /// EX_CONFIG: the configuration file is missing, unreadable or invalid.
    public static let config: Int32 = 78
}

/// Where `check-config` (and later `run`) looks for the configuration without `--config`.
public enum ConfigLocation {
    /// Used when it exists: `config.yaml` in the working directory (development, demos).
    public static let local = "config.yaml"
    /// Used otherwise: the installed location.
    public static let system = "/etc/boardbridge/config.yaml"

    /// `explicit` if given; else ``local`` when `fileExists(local)`; else ``system``.
    public static func resolve(_ explicit: String?, fileExists: (String) -> Bool) -> String {
        if let explicit { return explicit }
        return fileExists(local) ? local : system
    }
}
