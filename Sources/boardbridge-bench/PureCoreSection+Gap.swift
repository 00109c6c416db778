import BoardKit
import Chess
import Foundation
import Kernel
import TestSupport

extension PureCoreSection {
    /// The cost of reconciling a gap (moves made while the link was down): random games,
    /// a gap of 1–6 plies at a random moment, the board shown once the link is back. The
    /// search is bounded (positions expanded, dead ends remembered); the worst gap is the
    /// number that matters, since it holds the board's events up. Per gap length the
    /// details count the gaps recovered (moves published that lead to the board's
    /// placement), refused (`missed_moves`, or no line found) and wrong (moves published
    /// that lead to another placement: must stay 0).
    func gapResults(plan: Plan, context: BenchContext) {
        for path in [TrackerInputPath.identity, .occupancy] {
            var generator = SeededGenerator(seed: 0x6A9 &+ (path == .identity ? 0 : 1))
            var samples: [Double] = []
            var details: [String: Double] = [:]
            let gaps = plan.gamesPerFamily * 50
            for index in 0..<gaps {
                let moves = RandomGames.game(seed: 0x6A90 &+ UInt64(index), maxPlies: 60)
                guard moves.count > 8 else { continue }
                let start = Int(generator.next() % UInt64(moves.count - 7))
                let length = 1 + Int(generator.next() % 6)
                var game = Game()
                for move in moves.prefix(start) { try? game.play(move) }
                var shown = game.position
                for move in moves[start..<(start + length)] { shown = shown.applying(move) }
                var tracker = GameTracker(
                    game: game, inputPath: path, options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
                _ = tracker.handle(.pieces(game.position.snapshot), at: 0)
                _ = tracker.handle(.disconnected(error: nil), at: 1)
                _ = tracker.handle(.connected, at: 2)
                let event: BoardEvent =
                    path == .identity ? .pieces(shown.snapshot) : .occupancy(shown.snapshot.occupancy)
                let began = ContinuousClock.now
                let outputs = tracker.handle(event, at: 3)
                samples.append((ContinuousClock.now - began) / .milliseconds(1))
                let published = outputs.contains { if case .move = $0 { true } else { false } }
                let outcome =
                    !published ? "refused" : tracker.position.snapshot == shown.snapshot ? "recovered" : "wrong"
                details["\(outcome)", default: 0] += 1
                // Refused with lines listed (the board cannot tell) or without (too far to check).
                let listed = outputs.contains {
                    if case .missedMoves(let missed) = $0 { !missed.candidates.isEmpty } else { false }
                }
                if outcome == "refused" { details[listed ? "refused_listed" : "refused_unlisted", default: 0] += 1 }
                details["\(outcome)_\(length)", default: 0] += 1
            }
            guard !samples.isEmpty else { continue }
            samples.sort()
            let median = samples[samples.count / 2]
            let worst = samples[samples.count - 1]
            let name = path == .identity ? "identity" : "occupancy"
            details["median_ms"] = median
            details["p90_ms"] = samples[samples.count * 9 / 10]
            details["gaps"] = Double(samples.count)
            context.record(
                BenchResult(
                    key: "core.kernel.gap.\(name)", label: "Kernel: gap of 1–6 plies, \(name) board (worst)",
                    value: worst, unit: "ms",
                    goal: BenchGoal(direction: .atMost, threshold: 1000, text: "< 1 s"),
                    details: details,
                    note: "one board shown after a random gap; recovered/refused/wrong per gap length in the details"))
        }
    }
}
