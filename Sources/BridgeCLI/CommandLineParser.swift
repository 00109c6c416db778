import BoardKit

/// Turns `boardbridge`'s arguments into a ``CLICommand``: a pure function, no I/O.
public enum CommandLineParser {
    /// The subcommands offered (only those that work in this build).
    public static let commands = ["run", "check-config", "decode", "hall"]

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
            return parseOptions(rest, command: first, allowed: ["--config"]).map {
                .checkConfig(configPath: $0["--config"])
            }
        case "run":
            return parseOptions(rest, command: first, allowed: ["--config", "--bus"]).map {
                .run(configPath: $0["--config"], busAddress: $0["--bus"])
            }
        case "decode":
            return parseDecode(rest)
        case "hall":
            return parseOptions(rest, command: first, allowed: ["--config"]).map { .hall(configPath: $0["--config"]) }
        default:
            if first.hasPrefix("-") { return .failure(UsageError("unknown option \(quote(first))")) }
            return .failure(
                UsageError(
                    "unknown command \(quote(first)) (commands: \(commands.joined(separator: ", ")))"))
        }
    }

    /// Parses `--name VALUE` / `--name=VALUE` options, each at most once; with
    /// `positionals`, other arguments not starting with `-` are collected in order
    /// (else they are refused).
    private static func parseOptions(
        _ arguments: [String], command: String, allowed: [String], positionals: Bool = false
    ) -> Result<Options, UsageError> {
        var values: [String: String] = [:]
        var others: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            guard allowed.contains(name) else {
                if argument.hasPrefix("-") {
                    return .failure(UsageError("unknown option \(quote(argument)) for \(command)"))
                }
                guard positionals else {
                    return .failure(UsageError("unexpected argument \(quote(argument)) for \(command)"))
                }
                others.append(argument)
                index += 1
                continue
            }
            var value: String?
            if argument == name {
                guard index + 1 < arguments.count else { return .failure(UsageError("\(name) needs a value")) }
                value = arguments[index + 1]
                index += 2
            } else {
                value = String(argument.dropFirst(name.count + 1))
                index += 1
            }
            guard let value, !value.isEmpty else { return .failure(UsageError("\(name) needs a value")) }
            guard values[name] == nil else { return .failure(UsageError("\(name) given more than once")) }
            values[name] = value
        }
        return .success(Options(values: values, positionals: others))
    }

    /// What ``parseOptions(_:command:allowed:positionals:)`` read.
    private struct Options {
        /// Each option given, by name.
        var values: [String: String]
        /// The other arguments, in order.
        var positionals: [String]

        subscript(name: String) -> String? { values[name] }
    }

    /// `decode --family NAME [HEX…]`: the family once, then notifications as hex words.
    private static func parseDecode(_ arguments: [String]) -> Result<CLICommand, UsageError> {
        parseOptions(arguments, command: "decode", allowed: ["--family"], positionals: true).flatMap { options in
            guard let value = options["--family"] else { return .failure(UsageError("decode needs --family NAME")) }
            guard let family = BoardFamily(rawValue: value.lowercased()) else {
                let names = BoardFamily.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(UsageError("unknown family \(quote(value)), expected one of \(names)"))
            }
            return .success(.decode(family: family, hex: options.positionals))
        }
    }

    private static func quote(_ text: String) -> String { "\"\(text)\"" }
}
