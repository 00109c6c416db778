import BoardKit
import Chess
import Kernel

extension PureCoreSection {
    /// A board's journal read back when the bridge starts (every board reads its whole
    /// journal, up to 256 lines, before the bridge handles anything): a 120-ply game saved
    /// one line a move, as the bridge writes them (a clock on every move), replayed onto
    /// the game's first state; per line.
    func journalResults(plan: Plan, context: BenchContext) {
        let moves = RandomGames.game(seed: 0x10_0E4D, maxPlies: 120)
        guard !moves.isEmpty else { return }
        var clock = GameClock(timeControl: try! TimeControl(pgn: "5400+30"))
        _ = clock.start(.white, at: 1_000)
        let first = SessionSnapshot(
            game: Game(), clock: clock, clockWasRunning: true, clockStart: .onFirstMove, inputPath: .identity,
            options: TrackerOptions(), orientation: .whiteNear, savedAt: 1_000)
        var game = Game()
        var journal: [UInt8] = []
        for (ply, move) in moves.enumerated() {
            let time = 1_000 + Double(ply + 1) * 20
            let color: PieceColor = ply % 2 == 0 ? .white : .black
            let remaining = clock.moveMade(by: color, at: time)
            guard (try? game.play(move, clock: remaining, timestamp: time)) != nil else { break }
            let entry = SessionJournalEntry(
                sequence: ply + 1, keptPlies: ply, moves: [game.moves[ply]], result: game.result, clock: clock,
                clockWasRunning: true, savedAt: time)
            guard let line = try? entry.journalLine() else { return }
            journal += line
        }
        let lines = game.moves.count
        let replay = Stopwatch.measure(
            operations: lines, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { SessionJournalReplay(journal: journal, onto: first, sequence: 0).applied }
        context.record(
            BenchResult(
                key: "core.journal.replay_per_line", label: "Journal read back on start-up, per line",
                value: replay.medianSecondsPerOperation * 1e6, unit: "µs/line",
                details: replay.details.merging(["lines": Double(lines), "bytes": Double(journal.count)]) { $1 },
                note: "a \(lines)-ply game, a line a move with its clock, \(journal.count / max(lines, 1)) bytes a line"
            ))
    }
}
