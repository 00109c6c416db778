/// Turns `boardbridge`'s arguments into a ``CLICommand``: a pure function, no I/O.
public enum CommandLineParser {
    /// The subcommands offered (only those that work in this build).
    public static let commands = ["check-config"]

    /// Parses `arguments` (without the program name).
    ///
    /// `--help`/`-h` anywhere wins; `--version` stands alone; `check-config` takes
    /// `--config PATH` or `--config=PATH`, at most once.
    public static func parse(_ arguments: [String]) -> Result<CLICommand, UsageError> {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .success(.help) }
        guard let first = arguments.first else {
            return .failure(UsageError("no command given (commands: \(commands.joined(separator: ", ")))"))
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--version":
            if let extra = rest.first {
                return .failure(UsageError("unexpected argument \(quote(extra)) after --version"))
            }
            return .success(.version)
        case "check-config":
            return parseCheckConfig(rest)
        default:
            if first.hasPrefix("-") { return .failure(UsageError("unknown option \(quote(first))")) }
            return .failure(
                UsageError(
                    "unknown command \(quote(first)) (commands: \(commands.joined(separator: ", ")))"))
        }
    }

    private static func parseCheckConfig(_ arguments: [String]) -> Result<CLICommand, UsageError> {
        var path: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            var value: String?
            if argument == "--config" {
                guard index + 1 < arguments.count else { return .failure(UsageError("--config needs a path")) }
                value = arguments[index + 1]
                index += 2
            } else if argument.hasPrefix("--config=") {
                value = String(argument.dropFirst("--config=".count))
                index += 1
            } else if argument.hasPrefix("-") {
                return .failure(UsageError("unknown option \(quote(argument)) for check-config"))
            } else {
                return .failure(UsageError("unexpected argument \(quote(argument)) for check-config"))
            }
            guard let value, !value.isEmpty else { return .failure(UsageError("--config needs a path")) }
            guard path == nil else { return .failure(UsageError("--config given more than once")) }
            path = value
        }
        return .success(.checkConfig(configPath: path))
    }

    private static func quote(_ text: String) -> String { "\"\(text)\"" }
}
