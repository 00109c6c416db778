import Foundation

/// The human-readable table of a run.
enum BenchTable {
    /// `value` with its unit, scaled for reading: rates get k/M/G, times three significant
    /// figures (`3.21 M frames/s`, `4.87 µs/snapshot`, `212 µs`).
    static func format(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "– \(unit)" }
        if unit.hasSuffix("/s") {
            let (scaled, prefix): (Double, String) =
                switch abs(value) {
                case 1e9...: (value / 1e9, "G")
                case 1e6...: (value / 1e6, "M")
                case 1e3...: (value / 1e3, "k")
                default: (value, "")
                }
            return "\(figures(scaled)) \(prefix)\(prefix.isEmpty ? "" : " ")\(unit)"
                .replacingOccurrences(of: "  ", with: " ")
        }
        return "\(figures(value)) \(unit)"
    }

    /// Three significant figures, no exponent.
    static func figures(_ value: Double) -> String {
        switch abs(value) {
        case 100...: String(format: "%.0f", value)
        case 10...: String(format: "%.1f", value)
        case 1...: String(format: "%.2f", value)
        case 0: "0"
        default: String(format: "%.3g", value)
        }
    }

    /// The whole table: machine line, then one block per section.
    static func render(_ report: BenchReport) -> String {
        var lines = ["boardbridge-bench — \(report.machine.summary)"]
        if report.quick { lines.append("(--quick: short runs, rough numbers)") }
        if report.machine.buildConfiguration != "release" {
            lines.append("WARNING: debug build; measure with `swift run -c release boardbridge-bench`")
        }
        for section in report.sections {
            lines.append("")
            lines.append("[\(section.number)] \(section.title)  (\(String(format: "%.1f", section.seconds)) s)")
            let rows = section.results.map(row)
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for cells in rows {
                let padded = cells.enumerated().map { index, cell in
                    index < 3 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
                }
                lines.append("  " + padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
            if let error = section.error { lines.append("  FAILED: \(error)") }
        }
        lines.append("")
        let load = report.loadAverageAtEnd.map { String(format: "%.2f", $0) }.joined(separator: " ")
        lines.append("load average at end: \(load)")
        return lines.joined(separator: "\n")
    }

    /// The cells of one result: label, value, spread / per-op, goal verdict.
    static func row(_ result: BenchResult) -> [String] {
        var extra: [String] = []
        if result.unit.hasSuffix("/s"), let nanoseconds = result.details["ns_per_op_median"] {
            extra.append("\(figures(nanoseconds)) ns/op")
        }
        if let p99 = result.details["p99_us"] { extra.append("p99 \(figures(p99)) µs") }
        if let maximum = result.details["max_us"] { extra.append("max \(figures(maximum)) µs") }
        if let wakeUps = result.details["wakeups_per_notification"] {
            extra.append("\(figures(wakeUps)) wake-ups/notification")
            if let percent = result.details["cpu_percent"] { extra.append("\(figures(percent)) % core") }
            if let best = result.details["best_segment_us_per_notification"],
                let worst = result.details["worst_segment_us_per_notification"]
            {
                extra.append("segments \(figures(best))–\(figures(worst)) µs")
            }
        }
        if let floor = result.details["floor_ms"], let ratio = result.details["ratio"] {
            extra.append("floor \(figures(floor)) ms: \(String(format: "%.2f", ratio))×")
            if let delay = result.details["policy_delay_ms"], delay > 0,
                let withDelay = result.details["ratio_with_policy_delay"]
            {
                extra.append("\(String(format: "%.2f", withDelay))× with the policy's \(figures(delay / 1e3)) s wait")
            }
        }
        if let lost = result.details["lost"], lost > 0 { extra.append("\(Int(lost)) lost") }
        if let spread = result.details["spread"], (result.details["runs"] ?? 0) > 1 {
            extra.append("spread \(String(format: "%.0f", spread * 100)) %")
        }
        var verdict = ""
        if let goal = result.goal, let met = result.goalMet { verdict = "goal \(goal.text): \(met ? "met" : "MISSED")" }
        return [result.label, format(result.value, unit: result.unit), extra.joined(separator: ", "), verdict]
    }
}
