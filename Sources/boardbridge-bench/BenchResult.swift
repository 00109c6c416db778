import Foundation

/// A target a measured value is held against.
struct BenchGoal: Codable, Equatable {
    /// Whether the value must be at least or at most the threshold.
    enum Direction: String, Codable {
        /// Higher is better: value ≥ threshold.
        case atLeast = ">="
        /// Lower is better: value ≤ threshold (strictly below is asked in the docs, the
        /// difference is below measurement precision).
        case atMost = "<="
    }

    /// The comparison.
    var direction: Direction
    /// The threshold, in the result's unit.
    var threshold: Double
    /// The goal as written in the docs (`≥ 1 M frames/s`).
    var text: String

    /// Whether `value` meets the goal.
    func isMet(by value: Double) -> Bool {
        switch direction {
        case .atLeast: value >= threshold
        case .atMost: value <= threshold
        }
    }
}

/// One number the bench measured, with enough context to read it alone.
struct BenchResult: Codable, Equatable {
    /// A stable dotted key (`core.adapter.chessnut.identical`), for comparing runs.
    var key: String
    /// What was measured, for the table.
    var label: String
    /// The headline value.
    var value: Double
    /// Its unit (`frames/s`, `µs/snapshot`, `s`, `ms`).
    var unit: String
    /// The goal, when the project has one for this number.
    var goal: BenchGoal?
    /// Whether the goal is met (absent without a goal).
    var goalMet: Bool?
    /// Secondary numbers: per-operation time, spread, percentiles, counts.
    var details: [String: Double]
    /// A short note (corpus, method) for the table and the JSON.
    var note: String?

    /// A result; `goalMet` is derived from `goal`.
    init(
        key: String, label: String, value: Double, unit: String, goal: BenchGoal? = nil,
        details: [String: Double] = [:], note: String? = nil
    ) {
        self.key = key
        self.label = label
        self.value = value
        self.unit = unit
        self.goal = goal
        goalMet = goal.map { $0.isMet(by: value) }
        self.details = details
        self.note = note
    }
}

/// The outcome of one section.
struct SectionReport: Codable, Equatable {
    /// The section's number.
    var number: Int
    /// The section's id.
    var id: String
    /// Its title.
    var title: String
    /// Wall time the section took, in seconds.
    var seconds: Double
    /// The results (possibly partial when `error` is set).
    var results: [BenchResult]
    /// Why the section failed, if it did.
    var error: String?
}

/// Everything one run produced: the JSON document.
struct BenchReport: Codable, Equatable {
    /// The JSON layout version.
    var schema = 1
    /// The machine and build.
    var machine: MachineInfo
    /// Whether this was a `--quick` run.
    var quick: Bool
    /// The sections run, in order.
    var sections: [SectionReport]
    /// The load averages (1, 5, 15 min) when the run ended.
    var loadAverageAtEnd: [Double]
}
