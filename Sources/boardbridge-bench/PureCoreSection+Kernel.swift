import BoardKit
import Chess
import Foundation
import Kernel

extension PureCoreSection {
    /// Kernel cost per board event: identical identity snapshots, and every family's game
    /// stream replayed through a `GameSession` (tracker, sync gate, clock).
    func kernelResults(corpus: [BoardFamily: [RecordedGame]], plan: Plan, context: BenchContext) {
        let snapshotGoal = BenchGoal(direction: .atMost, threshold: 20, text: "< 20 µs/snapshot")
        if let identical = identicalSnapshotResult(games: corpus[.chessnut] ?? [], plan: plan, goal: snapshotGoal) {
            context.record(identical)
        }
        for family in BoardFamily.allCases {
            let games = corpus[family] ?? []
            guard let first = games.first else { continue }
            let capabilities = first.adapterTemplate.capabilities
            let template = FrameCorpus.session(for: capabilities)
            var inputs = 0
            var kinds: [String: Int] = [:]
            for game in games {
                for (event, _) in game.link.events {
                    guard let kind = Self.inputKind(event) else { continue }
                    inputs += 1
                    kinds[kind, default: 0] += 1
                }
            }
            guard inputs > 0 else { continue }
            // Check (untimed) that the kernel recovers the games: the benchmark must
            // measure the normal path, not an error path.
            var unrecovered = 0
            for game in games {
                var session = template
                _ = FrameCorpus.replay(game.link.events, into: &session)
                if session.game.moves.map(\.move) != game.moves { unrecovered += 1 }
            }
            if unrecovered > 0 {
                context.progress("warning: \(family.displayName): \(unrecovered) of \(games.count) games not recovered")
            }
            let timing = Stopwatch.measure(
                operations: inputs, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
            ) {
                var outputs = 0
                for game in games {
                    var session = template
                    outputs &+= FrameCorpus.replay(game.link.events, into: &session)
                }
                return outputs
            }
            let path = TrackerInputPath(capabilities: capabilities)
            let (label, unit, goal): (String, String, BenchGoal?) =
                switch path {
                case .identity: ("changing identity snapshot", "µs/snapshot", snapshotGoal)
                case .occupancy: ("lift/place event", "µs/event", nil)
                case .reportedMoves: ("reported-move event", "µs/event", nil)
                }
            var details = timing.details
            details["games"] = Double(games.count)
            details["games_not_recovered"] = Double(unrecovered)
            details["plies"] = Double(games.reduce(0) { $0 + $1.moves.count })
            for (kind, count) in kinds { details["events_\(kind)"] = Double(count) }
            let breakdown = kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            context.record(
                BenchResult(
                    key: "core.kernel.\(family.rawValue).game", label: "Kernel: \(family.displayName) \(label)",
                    value: timing.medianSecondsPerOperation * 1e6, unit: unit, goal: goal, details: details,
                    note: "GameSession over \(games.count) games: \(breakdown)"))
        }
    }

    /// The cost of an identity snapshot equal to the last one, mid-game, in sync.
    private func identicalSnapshotResult(games: [RecordedGame], plan: Plan, goal: BenchGoal) -> BenchResult? {
        guard let game = games.first else { return nil }
        var session = FrameCorpus.session(for: game.adapterTemplate.capabilities)
        // Replay the game up to its 20th move (or its end), then hold the board still.
        var time: TimeInterval = 0
        for (event, eventTime) in game.link.events {
            if let deadline = session.nextDeadline, deadline <= eventTime { _ = session.tick(at: eventTime) }
            _ = session.handle(event, at: eventTime)
            time = eventTime
            if session.game.moves.count >= 20, session.syncState == .inSync { break }
        }
        time += 10
        _ = session.tick(at: time)
        let snapshot = session.position.snapshot
        _ = session.handle(.pieces(snapshot), at: time)
        guard session.syncState == .inSync else { return nil }
        let template = session
        let count = plan.identicalSnapshots
        let start = time
        let timing = Stopwatch.measure(
            operations: count, runTime: plan.runTime, warmup: plan.warmup, repeats: plan.repeats
        ) {
            var session = template
            var outputs = 0
            for index in 1...count {
                outputs &+= session.handle(.pieces(snapshot), at: start + Double(index) * 0.1).count
            }
            return outputs
        }
        return BenchResult(
            key: "core.kernel.chessnut.identical", label: "Kernel: identical identity snapshot",
            value: timing.medianSecondsPerOperation * 1e6, unit: "µs/snapshot", goal: goal, details: timing.details,
            note: "GameSession in sync after \(session.game.moves.count) moves, same board again")
    }

    /// The kind of a board event that the kernel judges, or `nil` for the others.
    static func inputKind(_ event: BoardEvent) -> String? {
        switch event {
        case .pieces: "snapshot"
        case .occupancy: "occupancy"
        case .pieceLifted: "lift"
        case .piecePlaced: "place"
        case .moveReported: "move"
        case .promotionPicked: "pick"
        case .connected, .ready, .handshakeFailed, .disconnected, .battery, .button, .version, .serialNumber, .clock,
            .gameState, .calibration, .raw, .positionConfirmed:
            nil
        }
    }
}
