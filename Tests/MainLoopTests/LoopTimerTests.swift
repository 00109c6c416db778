import Foundation
import Testing

@testable import MainLoop

/// ``MainLoop``'s timers, hosted on the main queue as in every test process.
@MainActor
@Suite struct LoopTimerTests {
    /// Waits (at most 60 s: a full parallel run can keep the main queue busy) for `condition`.
    private func until(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        return condition()
    }

    @Test func oneShotTimersRunOnceInDeadlineOrderAndEqualDeadlinesInTheOrderSet() async {
        var ran: [String] = []
        MainLoop.after(0.03) { ran.append("late") }
        let first = MainLoop.after(0) { ran.append("now 1") }
        MainLoop.after(0) { ran.append("now 2") }
        MainLoop.after(0.01) { ran.append("soon") }
        #expect(first.isActive)
        #expect(await until { ran.count == 4 })
        #expect(ran == ["now 1", "now 2", "soon", "late"])
        #expect(!first.isActive)
    }

    @Test func aCancelledTimerNeverRuns() async {
        var ran: [String] = []
        let cancelled = MainLoop.after(0.01) { ran.append("cancelled") }
        cancelled.cancel()
        cancelled.cancel()
        #expect(!cancelled.isActive)
        MainLoop.after(0.02) { ran.append("kept") }
        #expect(await until { !ran.isEmpty })
        #expect(ran == ["kept"])
    }

    /// Two timers due in the same turn: the first cancels the second, which then does not run.
    @Test func aTimerCancelledByAnotherDueInTheSameTurnDoesNotRun() async {
        var ran: [String] = []
        var second: LoopTimer?
        MainLoop.after(0.005) {
            ran.append("first")
            second?.cancel()
        }
        second = MainLoop.after(0.005) { ran.append("second") }
        MainLoop.after(0.02) { ran.append("after") }
        #expect(await until { ran.contains("after") })
        #expect(ran == ["first", "after"])
    }

    @Test func aRepeatingTimerRunsUntilCancelled() async {
        var count = 0
        let timer = MainLoop.every(0.005) { count += 1 }
        #expect(await until { count >= 3 })
        #expect(timer.isActive)
        timer.cancel()
        let stoppedAt = count
        var later = false
        MainLoop.after(0.03) { later = true }
        #expect(await until { later })
        #expect(count == stoppedAt)
    }

    /// An action that sets a 0 s timer again and again does not starve the loop: each runs
    /// in a later turn, and other work (a task on the main actor) goes on between them.
    @Test func aTimerSettingItselfAgainDoesNotStarveTheLoop() async {
        var turns = 0
        var stop = false
        func again() {
            turns += 1
            if !stop { MainLoop.after(0) { again() } }
        }
        MainLoop.after(0) { again() }
        #expect(await until { turns >= 50 })
        stop = true
    }

    /// A deadline moved at every event (the board session's kernel timer) cancels one timer
    /// and sets another each time: the heap keeps at most about twice the live timers.
    @Test func reschedulingAFarTimerKeepsTheHeapBounded() async throws {
        var timer: LoopTimer?
        for _ in 0..<10_000 {
            timer?.cancel()
            timer = MainLoop.after(3600) {}
        }
        let queue = try #require(LoopTimerQueue.shared)
        #expect(queue.entryCount <= max(64, 2 * queue.liveCount) + 1)
        timer?.cancel()
    }
}

/// ``MainLoop/onSignals(_:_:)``: the one signal API, through the self-pipe.
@MainActor
@Suite struct LoopSignalsTests {
    @Test func aSignalReachesItsHandlerOnTheMainActorFromTheLoop() async {
        var received: [Int32] = []
        #expect(
            MainLoop.onSignals([SIGUSR2]) { number in
                MainActor.preconditionIsolated()
                received.append(number)
            })
        // The test runner's threads block some signals; this one takes it.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        raise(SIGUSR2)
        raise(SIGUSR2)
        let deadline = ContinuousClock.now + .seconds(60)
        while received.count < 2 && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        #expect(received == [SIGUSR2, SIGUSR2])
    }
}
