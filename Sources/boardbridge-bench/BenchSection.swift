import Foundation

/// One part of the benchmark run: a numbered, named group of measurements.
///
/// A section is listed in ``BenchSections/all`` only once it can really run; a section
/// that needs something not built yet is simply not listed (no stubs).
protocol BenchSection: Sendable {
    /// The position in the run and in the table (1 = pure core, 2 = MQTT floor, 3 = end
    /// to end, 4 = start-up, 5 = the hall view, 6 = broadcast).
    var number: Int { get }
    /// The short name used by `--only` and in the JSON (`core`, `floor`, `e2e`, `startup`, `hall`,
    /// `broadcast`).
    var id: String { get }
    /// A one-line title for the table.
    var title: String { get }

    /// Runs every measurement of the section, recording each result with
    /// ``BenchContext/record(_:)`` as soon as it is known. Throws when the section cannot
    /// go on (a missing tool, a broker that does not start): the results recorded so far
    /// are kept, the error is reported, and the runner goes on with the next section.
    @MainActor func run(_ context: BenchContext) async throws
}

/// The registry of the sections that can run, in order.
enum BenchSections {
    /// Every runnable section: the pure core, the MQTT floor, end to end, start-up, the
    /// hall view (`boardbridge hall`) and its broadcast files.
    static let all: [any BenchSection] = [
        PureCoreSection(), FloorSection(), EndToEndSection(), StartupSection(), HallSection(), BroadcastSection(),
    ]

    /// The sections `selectors` name (an id such as `core` or a number such as `1`), in
    /// run order, or an error naming the unknown selector.
    static func select(_ selectors: [String]?) throws(BenchUsageError) -> [any BenchSection] {
        guard let selectors else { return all }
        var chosen: Set<Int> = []
        for selector in selectors {
            let key = selector.trimmingCharacters(in: .whitespaces).lowercased()
            guard let section = all.first(where: { $0.id == key || String($0.number) == key }) else {
                throw .unknownSection(selector, known: all.map(\.id))
            }
            chosen.insert(section.number)
        }
        return all.filter { chosen.contains($0.number) }
    }
}

/// What every section gets: the options, the result collector, a progress channel and
/// the children registry.
@MainActor
final class BenchContext {
    /// The command-line options.
    let options: BenchOptions
    /// Every child process started, so that an interrupt can stop them by PID.
    let children: ChildProcessRegistry
    /// The results recorded so far by the running section.
    private(set) var results: [BenchResult] = []

    /// A context for one section.
    init(options: BenchOptions, children: ChildProcessRegistry = .shared) {
        self.options = options
        self.children = children
    }

    /// Whether this is a `--quick` smoke run.
    var quick: Bool { options.quick }

    /// Keeps `result` and prints it as a progress line.
    func record(_ result: BenchResult) {
        results.append(result)
        var line = "\(result.label): \(BenchTable.format(result.value, unit: result.unit))"
        if let goal = result.goal, let met = result.goalMet {
            line += "  (goal \(goal.text): \(met ? "met" : "MISSED"))"
        }
        progress(line)
    }

    /// Writes a progress line to standard error (the table goes to standard output).
    nonisolated func progress(_ text: String) {
        FileHandle.standardError.write(Data("  \(text)\n".utf8))
    }
}
