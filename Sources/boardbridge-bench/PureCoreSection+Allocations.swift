import BoardKit
import CMallocCounter
import Foundation
import Kernel

extension PureCoreSection {
    /// Heap allocations on the hot path without its I/O, counted by the bench's own malloc
    /// (`CMallocCounter`, this thread only): a Chessnut notification equal to the last one
    /// through its adapter and the kernel, and whole Chessnut games through both, per move
    /// (the frames of the move included). The datagram's own buffer, the MQTT messages and
    /// the journal line are not in these figures.
    func allocationResults(corpus: [BoardFamily: [RecordedGame]], plan: Plan, context: BenchContext) throws {
        let (template, frames) = try FrameCorpus.chessnutIdle(seconds: plan.idleSeconds)
        var adapter = template
        var session = FrameCorpus.session(for: template.capabilities)
        let settled = 10
        var time: TimeInterval = 0
        for frame in frames.prefix(settled) {
            for event in adapter.feed(bytes: frame) { _ = session.handle(event, at: time) }
            _ = adapter.takePendingResponses()
            time += 0.1
        }
        let idle = frames.dropFirst(settled)
        guard !idle.isEmpty else { return }
        var inAdapter: UInt64 = 0
        var inKernel: UInt64 = 0
        for frame in idle {
            let start = cmc_thread_allocations()
            let events = adapter.feed(bytes: frame)
            _ = adapter.takePendingResponses()
            let decoded = cmc_thread_allocations()
            for event in events { _ = session.handle(event, at: time) }
            inKernel &+= cmc_thread_allocations() &- decoded
            inAdapter &+= decoded &- start
            time += 0.1
        }
        let count = Double(idle.count)
        context.record(
            BenchResult(
                key: "core.allocations.unchanged_frame", label: "Allocations per unchanged Chessnut frame",
                value: Double(inAdapter + inKernel) / count, unit: "allocations",
                goal: BenchGoal(direction: .atMost, threshold: 0, text: "0 for an unchanged frame"),
                details: [
                    "adapter": Double(inAdapter) / count, "kernel": Double(inKernel) / count, "frames": count,
                ],
                note:
                    "adapter \(Self.rounded(Double(inAdapter) / count)), kernel \(Self.rounded(Double(inKernel) / count)) per frame"
            ))

        let games = corpus[.chessnut] ?? []
        guard let first = games.first else { return }
        var moves = 0
        var decoding: UInt64 = 0
        var judging: UInt64 = 0
        for game in games {
            var adapter = first.adapterTemplate
            var session = FrameCorpus.session(for: first.adapterTemplate.capabilities)
            var time: TimeInterval = 0
            for frame in game.link.notifications {
                let start = cmc_thread_allocations()
                let events = adapter.feed(bytes: frame)
                _ = adapter.takePendingResponses()
                let decoded = cmc_thread_allocations()
                for event in events {
                    if let deadline = session.nextDeadline, deadline <= time { _ = session.tick(at: time) }
                    _ = session.handle(event, at: time)
                }
                judging &+= cmc_thread_allocations() &- decoded
                decoding &+= decoded &- start
                time += FrameCorpus.actionGap
            }
            _ = session.tick(at: time + 10)
            moves += session.game.moves.count
        }
        guard moves > 0 else { return }
        context.record(
            BenchResult(
                key: "core.allocations.move", label: "Allocations per Chessnut move (its frames, adapter and kernel)",
                value: Double(decoding + judging) / Double(moves), unit: "allocations",
                details: [
                    "adapter": Double(decoding) / Double(moves), "kernel": Double(judging) / Double(moves),
                    "moves": Double(moves),
                ],
                note:
                    "\(games.count) games, \(moves) moves: adapter \(Self.rounded(Double(decoding) / Double(moves))), "
                    + "kernel \(Self.rounded(Double(judging) / Double(moves))) per move"))
    }

    private static func rounded(_ value: Double) -> String { String(format: "%.1f", value) }
}
