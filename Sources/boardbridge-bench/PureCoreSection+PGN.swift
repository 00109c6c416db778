import BoardKit
import Chess

extension PureCoreSection {
    /// A game's PGN after every move (the bridge publishes it, retained, after each): the
    /// recorded games played with a clock on every move and the PGN made after each, against
    /// playing them without it (measured in the same run).
    func pgnResults(corpus: [BoardFamily: [RecordedGame]], plan: Plan, context: BenchContext) {
        let games = (corpus[.chessnut] ?? []).map(\.moves).filter { !$0.isEmpty }
        let plies = games.reduce(0) { $0 + $1.count }
        guard plies > 0 else { return }
        func pass(rendering: Bool) -> Int {
            var bytes = 0
            for moves in games {
                var game = Game(tags: ["Event": "Bench", "White": "Doe, J", "Black": "Roe, R"])
                for (ply, move) in moves.enumerated() {
                    guard (try? game.play(move, clock: 5_400 - Double(ply) * 7.5)) != nil else { break }
                    bytes &+= rendering ? game.pgn.utf8.count : game.moves.count
                }
            }
            return bytes
        }
        let rendering = Stopwatch.measure(
            operations: plies, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { pass(rendering: true) }
        let playing = Stopwatch.measure(
            operations: plies, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { pass(rendering: false) }
        let pgnMicroseconds = max(0, rendering.medianSecondsPerOperation - playing.medianSecondsPerOperation) * 1e6
        context.record(
            BenchResult(
                key: "core.pgn.per_move", label: "PGN made after a move (beyond playing it)",
                value: pgnMicroseconds, unit: "µs/move",
                details: rendering.details.merging([
                    "play_us_per_move": playing.medianSecondsPerOperation * 1e6,
                    "longest_game_plies": Double(games.map(\.count).max() ?? 0),
                ]) { $1 },
                note: "\(games.count) Chessnut games, \(plies) plies, a [%clk] on every move"))
    }
}
