import Foundation

/// A command line the bench cannot run with.
enum BenchUsageError: Error, Equatable, CustomStringConvertible {
    /// An option the bench does not know.
    case unknownOption(String)
    /// An option that needs a value was last on the line.
    case missingValue(String)
    /// `--only` named a section that is not registered.
    case unknownSection(String, known: [String])

    /// A message for standard error.
    var description: String {
        switch self {
        case .unknownOption(let option): "unknown option \(option) (see --help)"
        case .missingValue(let option): "\(option) needs a value (see --help)"
        case .unknownSection(let name, let known):
            "unknown section \"\(name)\"; known: \(known.joined(separator: ", "))"
        }
    }
}

/// The parsed command line of `boardbridge-bench`.
struct BenchOptions: Equatable {
    /// Short runs for a smoke check (smaller corpora, fewer repeats, smaller perft depths).
    var quick = false
    /// The sections named with `--only`, or `nil` for all.
    var only: [String]?
    /// Where the JSON results go.
    var jsonPath = "bench-results/latest.json"
    /// A Markdown file whose performance table (between ``BenchReadme`` markers) is replaced
    /// by this run's, or `nil`.
    var readmePath: String?
    /// Print the usage and exit.
    var help = false

    /// Parses `arguments` (without the program name).
    init(arguments: [String]) throws(BenchUsageError) {
        var index = 0
        func value(for option: String) throws(BenchUsageError) -> String {
            index += 1
            guard index < arguments.count else { throw .missingValue(option) }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick": quick = true
            case "--help", "-h": help = true
            case "--json": jsonPath = try value(for: argument)
            case "--readme": readmePath = try value(for: argument)
            case "--only":
                let names = try value(for: argument).split(separator: ",").map(String.init)
                only = (only ?? []) + names
            default:
                if argument.hasPrefix("--json=") {
                    jsonPath = String(argument.dropFirst("--json=".count))
                } else if argument.hasPrefix("--readme=") {
                    readmePath = String(argument.dropFirst("--readme=".count))
                } else if argument.hasPrefix("--only=") {
                    only = (only ?? []) + argument.dropFirst("--only=".count).split(separator: ",").map(String.init)
                } else {
                    throw .unknownOption(argument)
                }
            }
            index += 1
        }
    }

    /// The usage text.
    static var usage: String {
        let sections = BenchSections.all.map {
            "  \($0.number)  \($0.id.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.title)"
        }
        return """
            usage: swift run -c release boardbridge-bench [options]

            Measures BoardBridge and prints a table; writes the results as JSON.

            options:
              --quick                 short runs (a smoke check; the numbers are rough)
              --only SECTION[,...]    run only these sections (by name or number)
              --json PATH             where to write the JSON (default bench-results/latest.json)
              --readme PATH           replace the generated performance table in PATH (README.md)
                                      with this run's: every result, the machine, commit and date
              -h, --help              this text

            sections:
            \(sections.joined(separator: "\n"))

            Build with -c release: a debug build is measured too, but flagged as such.
            See docs/benchmarks.md for what each number means and the goals.
            """
    }
}
