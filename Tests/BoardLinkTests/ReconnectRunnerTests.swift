import BoardKit
import BoardLink
import Foundation
import TestSupport
import Testing

/// What a run did, step by step, on a manual clock.
@MainActor
private final class RunLog {
    var lines: [String] = []
    /// The outcome of each attempt, in order (the last repeats).
    var outcomes: [LinkAttemptOutcome] = [.failed("no answer")]
    var prepared = true
    var attempts = 0

    func steps(_ scheduler: ManualScheduler) -> ReconnectRunner.Steps {
        ReconnectRunner.Steps(
            waiting: { attempt, delay in self.lines.append("wait \(attempt) \(delay) at \(scheduler.now)") },
            prepare: { self.prepared },
            connect: { attempt in
                self.attempts += 1
                self.lines.append("connect \(attempt) at \(scheduler.now)")
                return self.outcomes[min(self.attempts, self.outcomes.count) - 1]
            },
            failed: { attempt, reason in self.lines.append("failed \(attempt): \(reason)") },
            gaveUp: { attempts in self.lines.append("gave up after \(attempts)") })
    }
}

/// Lets the runner's task reach its next wait (it runs on the main actor between turns).
@MainActor
private func settle() async {
    for _ in 0..<20 { await Task.yield() }
}

@MainActor
@Suite struct ReconnectRunnerTests {
    /// The spec's example: the default policy waits 2, 4, 8, 8, 8 s, then gives up.
    @Test func followsThePolicyThenGivesUp() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        runner.run(BoardReconnectPolicy(), log.steps(scheduler))
        #expect(runner.isRunning)
        for delay in [2.0, 4, 8, 8, 8] {
            await settle()
            #expect(runner.nextDelay == delay)
            scheduler.advance(by: delay)
        }
        await settle()
        #expect(
            log.lines == [
                "wait 1 2.0 at 0.0", "connect 1 at 2.0", "failed 1: no answer",
                "wait 2 4.0 at 2.0", "connect 2 at 6.0", "failed 2: no answer",
                "wait 3 8.0 at 6.0", "connect 3 at 14.0", "failed 3: no answer",
                "wait 4 8.0 at 14.0", "connect 4 at 22.0", "failed 4: no answer",
                "wait 5 8.0 at 22.0", "connect 5 at 30.0", "failed 5: no answer",
                "gave up after 5",
            ])
        #expect(!runner.isRunning)
        #expect(runner.attempt == nil && runner.nextDelay == nil)
    }

    @Test func aConnectedAttemptEndsTheRun() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        log.outcomes = [.failed("busy"), .connected]
        runner.run(BoardReconnectPolicy(maxAttempts: 5, delays: [0.5]), log.steps(scheduler))
        await settle()
        scheduler.advance(by: 0.5)
        await settle()
        #expect(runner.attempt == 2)
        scheduler.advance(by: 0.5)
        await settle()
        #expect(log.lines.suffix(2) == ["wait 2 0.5 at 0.5", "connect 2 at 1.0"])
        #expect(!runner.isRunning)
        #expect(scheduler.pendingCount == 0)
    }

    /// A first connect: at once, then every `delay` for as long as it takes.
    @Test func retryingNeverGivesUp() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        runner.run(.retrying(every: 10), log.steps(scheduler))
        await settle()
        scheduler.advance(by: 0)
        await settle()
        #expect(log.lines.first == "wait 1 0.0 at 0.0")
        #expect(log.lines.contains("connect 1 at 0.0"))
        for _ in 0..<50 {
            scheduler.advance(by: 10)
            await settle()
        }
        #expect(log.attempts == 51)
        #expect(runner.isRunning)
        #expect(!log.lines.contains { $0.hasPrefix("gave up") })
        runner.cancel()
    }

    @Test func cancelStopsTheRunWithoutAnotherStep() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        runner.run(BoardReconnectPolicy(maxAttempts: 3, delays: [1]), log.steps(scheduler))
        await settle()
        runner.cancel()
        scheduler.advance(by: 10)
        await settle()
        #expect(log.lines == ["wait 1 1.0 at 0.0"])
        #expect(!runner.isRunning)
        #expect(runner.nextDelay == nil)
    }

    /// A new run ends the one under way: one loop per link, never two.
    @Test func aNewRunReplacesTheOldOne() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let first = RunLog()
        let second = RunLog()
        runner.run(BoardReconnectPolicy(maxAttempts: 3, delays: [1]), first.steps(scheduler))
        await settle()
        runner.run(BoardReconnectPolicy(maxAttempts: 1, delays: [2]), second.steps(scheduler))
        await settle()
        scheduler.advance(by: 2)
        await settle()
        #expect(first.lines == ["wait 1 1.0 at 0.0"])
        #expect(second.lines == ["wait 1 2.0 at 0.0", "connect 1 at 2.0", "failed 1: no answer", "gave up after 1"])
    }

    @Test func aPolicyWithoutAttemptsGivesUpAtOnce() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        runner.run(BoardReconnectPolicy(maxAttempts: 0), log.steps(scheduler))
        await settle()
        #expect(log.lines == ["gave up after 0"])
        #expect(!runner.isRunning)
    }

    /// `prepare` (an adapter that must be powered) refusing ends the run; an attempt that
    /// reports `.cancelled` ends it too, and neither counts as a failure.
    @Test func aRefusedPrepareOrACancelledAttemptEndsTheRunQuietly() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let refused = RunLog()
        refused.prepared = false
        runner.run(BoardReconnectPolicy(), refused.steps(scheduler))
        await settle()
        #expect(refused.lines == ["wait 1 2.0 at 0.0"])
        #expect(!runner.isRunning)
        let cancelled = RunLog()
        cancelled.outcomes = [.cancelled]
        runner.run(BoardReconnectPolicy(maxAttempts: 3, delays: [1]), cancelled.steps(scheduler))
        await settle()
        scheduler.advance(by: 1)
        await settle()
        #expect(cancelled.lines == ["wait 1 1.0 at 0.0", "connect 1 at 1.0"])
        #expect(!runner.isRunning)
    }

    /// In the caller's task: `isCurrent` turning false ends the run before its next step.
    @Test func inlineRunsEndWhenTheirCallerMovesOn() async {
        let scheduler = ManualScheduler()
        let runner = ReconnectRunner(scheduler: scheduler)
        let log = RunLog()
        var current = true
        let task = Task { @MainActor in
            await runner.attempts(BoardReconnectPolicy(maxAttempts: 3, delays: [1]), log.steps(scheduler)) {
                current
            }
        }
        await settle()
        scheduler.advance(by: 1)
        await settle()
        current = false
        scheduler.advance(by: 1)
        await task.value
        #expect(log.lines == ["wait 1 1.0 at 0.0", "connect 1 at 1.0", "failed 1: no answer", "wait 2 1.0 at 1.0"])
        #expect(!runner.isRunning)
    }
}
