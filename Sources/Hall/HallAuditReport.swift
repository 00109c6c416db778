import Contract
import FoundationEssentials
import JSON

/// The audit log as a report for people: one block per board and game, its entries in
/// order, each with the time, who, what, the outcome and the positions before and after.
///
/// ```text
/// BoardBridge audit log · round 1 · 3 entries
///
/// Board b2 · round 1 · Doe, John – Moe, Max
///   23:24:57  bridge hall-a   missed_moves      ply 0  {"squares":[…],"candidates":[…]}
///   23:25:03  Jane (arbiter)  resolve e4 e5 d4  ply 0  refused: cannot resolve: …
/// ```
enum HallAuditReport {
    /// The report of `records` (the entries of `round` and `board`, when named).
    static func render(_ records: [HallAuditRecord], round: String?, board: String?, problem: String?) -> String {
        var lines = [
            "BoardBridge audit log" + (round.map { " · round \($0)" } ?? "") + (board.map { " · board \($0)" } ?? "")
                + " · \(records.count) entries"
        ]
        if let problem { lines.append("WARNING: the log is not being written to disk: \(problem)") }
        var groups: [(key: String, records: [HallAuditRecord])] = []
        for record in records {
            let key = "\(record.board)\u{0}\(record.round ?? "")\u{0}\(record.white ?? "")\u{0}\(record.black ?? "")"
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].records.append(record)
            } else {
                groups.append((key, [record]))
            }
        }
        for group in groups {
            let first = group.records[0]
            lines.append("")
            lines.append(
                "Board \(first.board)" + (first.round.map { " · round \($0)" } ?? "")
                    + " · \(first.white ?? "?") – \(first.black ?? "?")" + (first.node.map { " · host \($0)" } ?? ""))
            for record in group.records { lines.append(contentsOf: entry(record)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func entry(_ record: HallAuditRecord) -> [String] {
        let time = ISO8601Timestamp.string(from: Date(timeIntervalSince1970: record.time / 1000))
        let who =
            switch record.source {
            case .arbiter: "\(record.who) (arbiter)"
            case .mqtt: "an MQTT client"
            case .bridge: "bridge \(record.who)"
            }
        var outcome = record.outcome
        if let error = record.error { outcome += ": " + error }
        var lines = [
            "  \(time)  \(who)  \(record.action) \(summary(record.detail))  at ply \(record.ply.map(String.init) ?? "?")  → \(outcome)"
        ]
        if let before = record.fenBefore { lines.append("      before: \(before)") }
        if let after = record.fenAfter, after != record.fenBefore { lines.append("      after:  \(after)") }
        return lines
    }

    /// A command's value or an event's fields, short: moves as text, objects as JSON.
    private static func summary(_ detail: JSONValue) -> String {
        if case .object(let object) = detail, let moves = object["moves"]?.arrayValue {
            return moves.compactMap(\.stringValue).joined(separator: " ")
        }
        if case .object(let object) = detail, let moves = object["moves"]?.stringValue { return moves }
        if case .array(let items) = detail, items.allSatisfy({ $0.stringValue != nil }) {
            return items.compactMap(\.stringValue).joined(separator: " ")
        }
        if case .string(let text) = detail { return text }
        let text = detail.encodedString()
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
