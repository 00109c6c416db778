import Chess

extension PureCoreSection {
    /// Kiwipete: castling, en passant, promotions and pins in one position.
    static let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

    /// Known node counts: (start, kiwipete) by depth.
    static let startNodes = [1: 20, 2: 400, 3: 8_902, 4: 197_281, 5: 4_865_609, 6: 119_060_324]
    static let kiwipeteNodes = [1: 48, 2: 2_039, 3: 97_862, 4: 4_085_603, 5: 193_690_690]

    /// Perft from the starting position and Kiwipete: seconds and nodes per second.
    func perftResults(plan: Plan, context: BenchContext) {
        let cases: [(key: String, name: String, position: Position?, depth: Int, expected: Int?)] = [
            ("core.perft.start", "start", .starting, plan.startDepth, Self.startNodes[plan.startDepth]),
            (
                "core.perft.kiwipete", "Kiwipete", try? Position(fen: Self.kiwipete), plan.kiwipeteDepth,
                Self.kiwipeteNodes[plan.kiwipeteDepth]
            ),
        ]
        for item in cases {
            guard let position = item.position else { continue }
            _ = position.perft(depth: min(item.depth, 4))  // warm-up
            context.progress("perft(\(item.depth)) from \(item.name), \(plan.perftRepeats) runs…")
            var nodes = 0
            let timing = Stopwatch.measureOnce(operations: 1, repeats: plan.perftRepeats) {
                nodes = position.perft(depth: item.depth)
                return nodes
            }
            let seconds = timing.medianRunSeconds
            let goal: BenchGoal? =
                item.name == "start" && item.depth == 6
                ? BenchGoal(direction: .atMost, threshold: 5, text: "< 5 s") : nil
            var details = timing.details
            details["nodes"] = Double(nodes)
            details["nodes_per_second"] = seconds > 0 ? Double(nodes) / seconds : 0
            details["correct"] = item.expected.map { $0 == nodes ? 1 : 0 } ?? -1
            if let expected = item.expected, expected != nodes {
                context.progress("warning: perft(\(item.depth)) from \(item.name) gave \(nodes), expected \(expected)")
            }
            let rate = BenchTable.format(details["nodes_per_second"] ?? 0, unit: "nodes/s")
            context.record(
                BenchResult(
                    key: "\(item.key).d\(item.depth)", label: "perft(\(item.depth)) from \(item.name)",
                    value: seconds, unit: "s", goal: goal, details: details, note: "\(nodes) nodes, \(rate)"))
        }
    }
}
