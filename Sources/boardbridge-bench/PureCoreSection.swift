import Adapters
import BoardKit
import Chess
import Foundation
import Kernel

/// Section 1: the pure core in isolation — adapters decoding frames, the kernel judging
/// board events, the move generator (perft), PGN, JSON strings. No I/O; the numbers are upper
/// bounds for what the bridge can do per core.
@MainActor
struct PureCoreSection: BenchSection {
    /// How much work each measurement does.
    struct Plan {
        /// Random games recorded per family.
        var gamesPerFamily: Int
        /// The longest game.
        var maxPlies: Int
        /// Seconds of Chessnut idle stream (10 frames a second).
        var idleSeconds: TimeInterval
        /// The target length of one timed run.
        var runTime: Duration
        /// Untimed runs before the timed ones.
        var warmup: Duration
        /// Timed runs (the median is reported).
        var repeats: Int
        /// Identical snapshots fed per pass.
        var identicalSnapshots: Int
        /// Perft depth from the starting position.
        var startDepth: Int
        /// Perft depth from Kiwipete.
        var kiwipeteDepth: Int
        /// Timed perft runs.
        var perftRepeats: Int

        /// The plan for a full or a `--quick` run.
        init(quick: Bool) {
            gamesPerFamily = quick ? 3 : 20
            maxPlies = 120
            idleSeconds = quick ? 30 : 100
            runTime = quick ? .milliseconds(20) : .milliseconds(200)
            warmup = quick ? .milliseconds(20) : .milliseconds(300)
            repeats = quick ? 5 : 11
            identicalSnapshots = 1000
            startDepth = quick ? 5 : 6
            kiwipeteDepth = quick ? 4 : 5
            perftRepeats = 3
        }
    }

    let number = 1
    let id = "core"
    let title = "Pure core: adapter decoding, kernel, perft"

    /// Runs the adapter, kernel and perft benchmarks.
    func run(_ context: BenchContext) async throws {
        let plan = Plan(quick: context.quick)
        context.progress("recording \(plan.gamesPerFamily) random games per family on the emulated boards…")
        var corpus: [BoardFamily: [RecordedGame]] = [:]
        for (index, family) in BoardFamily.allCases.enumerated() {
            corpus[family] = try FrameCorpus.games(
                family: family, count: plan.gamesPerFamily, maxPlies: plan.maxPlies, seed: 0xBB00 + UInt64(index) << 8)
        }
        try adapterResults(corpus: corpus, plan: plan, context: context)
        kernelResults(corpus: corpus, plan: plan, context: context)
        try allocationResults(corpus: corpus, plan: plan, context: context)
        gapResults(plan: plan, context: context)
        perftResults(plan: plan, context: context)
        pgnResults(corpus: corpus, plan: plan, context: context)
        jsonResults(plan: plan, context: context)
        journalResults(plan: plan, context: context)
    }

    /// Decoding throughput: Chessnut idle and changing frames, and every family's game stream.
    func adapterResults(corpus: [BoardFamily: [RecordedGame]], plan: Plan, context: BenchContext) throws {
        let frameGoal = BenchGoal(direction: .atLeast, threshold: 1_000_000, text: "≥ 1 M frames/s")

        let idle = try FrameCorpus.chessnutIdle(seconds: plan.idleSeconds)
        let idleEvents = FrameCorpus.feed(idle.frames, to: idle.adapter)
        let idleTiming = Stopwatch.measure(
            operations: idle.frames.count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) { FrameCorpus.feed(idle.frames, to: idle.adapter) }
        context.record(
            BenchResult(
                key: "core.adapter.chessnut.identical", label: "Chessnut identical state frames (idle stream)",
                value: idleTiming.operationsPerSecond, unit: "frames/s", goal: frameGoal,
                details: idleTiming.details.merging(["events_per_pass": Double(idleEvents)]) { $1 },
                note: "\(idle.frames.count) frames, 38 B, same board, uptime ticking"))

        let chessnutGames = corpus[.chessnut] ?? []
        let changing = chessnutGames.flatMap(\.actionNotifications)
        if let template = chessnutGames.first?.adapterTemplate, !changing.isEmpty {
            let events = FrameCorpus.feed(changing, to: template)
            let timing = Stopwatch.measure(
                operations: changing.count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
            ) { FrameCorpus.feed(changing, to: template) }
            context.record(
                BenchResult(
                    key: "core.adapter.chessnut.changing", label: "Chessnut changing state frames (lift/place)",
                    value: timing.operationsPerSecond, unit: "frames/s", goal: frameGoal,
                    details: timing.details.merging(["events_per_pass": Double(events)]) { $1 },
                    note: "\(changing.count) frames, each a new board (decoded to a snapshot)"))
        }

        for family in BoardFamily.allCases {
            let games = corpus[family] ?? []
            let count = games.reduce(0) { $0 + $1.link.notifications.count }
            guard count > 0 else { continue }
            func pass() -> Int {
                var events = 0
                for game in games { events &+= FrameCorpus.feed(game.link.notifications, to: game.adapterTemplate) }
                return events
            }
            let events = pass()
            let timing = Stopwatch.measure(
                operations: count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats, pass)
            let plies = games.reduce(0) { $0 + $1.moves.count }
            context.record(
                BenchResult(
                    key: "core.adapter.\(family.rawValue).game", label: "\(family.displayName) game stream",
                    value: timing.operationsPerSecond, unit: "notifications/s",
                    details: timing.details.merging([
                        "events_per_pass": Double(events), "plies": Double(plies), "games": Double(games.count),
                    ]) { $1 },
                    note: "\(count) notifications, \(plies) plies by hand, streaming included"))
        }
    }
}
