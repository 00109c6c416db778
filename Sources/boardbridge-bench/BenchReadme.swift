import Foundation

/// The README's generated performance table (issue #33): every result of a run, with the
/// machine, the commit and the date, written between two markers by
/// `boardbridge-bench --readme README.md`, so that one command brings it up to date.
/// `.ci/check-bench-table` fails a change whose README names a commit that is not an
/// ancestor of it (a table measured on another branch, or edited by hand).
enum BenchReadme {
    /// The line before the table.
    static let begin = "<!-- bench-table:begin (boardbridge-bench --readme README.md) -->"
    /// The line after it.
    static let end = "<!-- bench-table:end -->"

    /// Why a file could not be updated.
    struct MarkersMissing: Error, CustomStringConvertible {
        var description: String { "no \(BenchReadme.begin) … \(BenchReadme.end) block" }
    }

    /// The table of `report`, in Markdown, with its provenance line.
    static func markdown(_ report: BenchReport) -> String {
        let machine = report.machine
        let commit = machine.gitCommit.map { "commit `\($0)`" } ?? "an unknown commit"
        var lines = [
            "Generated from \(commit) on \(machine.date) by `boardbridge-bench\(report.quick ? " --quick" : "")"
                + " --readme README.md`\(report.quick ? " (short runs: rough numbers)" : ""): \(escaped(machine.summary)).",
            "",
            "| section | what | measured | details | goal |",
            "|---|---|---|---|---|",
        ]
        for section in report.sections {
            let name = "\(section.number) \(section.id)"
            if let error = section.error {
                lines.append("| \(name) | **failed** | \(escaped(error)) | | |")
            }
            for result in section.results {
                let cells = BenchTable.row(result).map(escaped)
                lines.append("| \(name) | \(cells[0]) | \(cells[1]) | \(cells[2]) | \(cells[3]) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Replaces the block between the markers of the file at `path` with `report`'s table.
    static func update(file path: String, with report: BenchReport) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else { throw MarkersMissing() }
        let updated = text[..<start.upperBound] + "\n" + markdown(report) + "\n" + text[stop.lowerBound...]
        try String(updated).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// `text` safe in a table cell.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
