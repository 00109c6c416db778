import BoardKit
import Testing

@Suite struct BoardSyncGateTests {
    @Test func startsInSyncWithNothingPending() {
        let gate = BoardSyncGate()
        #expect(!gate.isDesynced)
        #expect(!gate.shouldFireHaptic)
        #expect(!gate.clockWasRunningBeforeDesync)
        #expect(gate.pausedActiveColor == .white)
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        var wasOutOfSync: Bool
        var isOutOfSync: Bool
        var clockRunningBefore: Bool
        var clockRunningNow: Bool
        var expected: BoardSyncGate.Action
        var testDescription: String {
            "\(wasOutOfSync ? "out" : "in") → \(isOutOfSync ? "out" : "in"), clock \(clockRunningBefore)/\(clockRunningNow)"
        }
    }

    /// The transition table of the spec, row by row.
    @Test(arguments: [
        Transition(
            wasOutOfSync: false, isOutOfSync: true, clockRunningBefore: true, clockRunningNow: true,
            expected: .pauseClock),
        Transition(
            wasOutOfSync: false, isOutOfSync: true, clockRunningBefore: false, clockRunningNow: false, expected: .none),
        Transition(
            wasOutOfSync: true, isOutOfSync: false, clockRunningBefore: true, clockRunningNow: false,
            expected: .resumeClock(color: .black)),
        Transition(
            wasOutOfSync: true, isOutOfSync: false, clockRunningBefore: false, clockRunningNow: false, expected: .none),
        Transition(
            wasOutOfSync: false, isOutOfSync: false, clockRunningBefore: true, clockRunningNow: true, expected: .none),
        Transition(
            wasOutOfSync: true, isOutOfSync: true, clockRunningBefore: true, clockRunningNow: false, expected: .none),
    ])
    func followsTheTransitionTable(_ row: Transition) {
        var gate = BoardSyncGate()
        if row.wasOutOfSync {
            _ = gate.update(isOutOfSync: true, clockIsRunning: row.clockRunningBefore, currentActiveColor: .black)
        } else {
            _ = gate.update(isOutOfSync: false, clockIsRunning: row.clockRunningBefore, currentActiveColor: .black)
        }
        let action = gate.update(
            isOutOfSync: row.isOutOfSync, clockIsRunning: row.clockRunningNow, currentActiveColor: .black)
        #expect(action == row.expected)
        #expect(gate.isDesynced == row.isOutOfSync)
    }

    @Test func pauseRecordsTheSideToMove() {
        var gate = BoardSyncGate()
        #expect(gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .black) == .pauseClock)
        #expect(gate.clockWasRunningBeforeDesync)
        #expect(gate.pausedActiveColor == .black)
    }

    @Test func moveCommittedDuringDesyncResumesTheOtherSide() {
        var gate = BoardSyncGate()
        #expect(gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .white) == .pauseClock)
        // White's move commits while the board is still out of sync: Black is now to move.
        #expect(gate.update(isOutOfSync: true, clockIsRunning: false, currentActiveColor: .black) == .none)
        #expect(
            gate.update(isOutOfSync: false, clockIsRunning: false, currentActiveColor: .black)
                == .resumeClock(color: .black))
    }

    @Test func resumesOnlyAClockTheGatePaused() {
        var gate = BoardSyncGate()
        // Clock stopped when the desync began: the gate paused nothing, so it resumes nothing.
        #expect(gate.update(isOutOfSync: true, clockIsRunning: false, currentActiveColor: .white) == .none)
        #expect(gate.update(isOutOfSync: false, clockIsRunning: false, currentActiveColor: .white) == .none)
        // Clock restarted by someone else while out of sync: nothing to resume.
        #expect(gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .white) == .pauseClock)
        #expect(gate.update(isOutOfSync: false, clockIsRunning: true, currentActiveColor: .white) == .none)
    }

    @Test func hapticIsOneShotPerEntry() {
        var gate = BoardSyncGate()
        _ = gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .white)
        #expect(gate.shouldFireHaptic)
        gate.acknowledgeHaptic()
        #expect(!gate.shouldFireHaptic)
        // Still out of sync: later updates never re-fire it.
        for running in [false, true, false] {
            _ = gate.update(isOutOfSync: true, clockIsRunning: running, currentActiveColor: .black)
            #expect(!gate.shouldFireHaptic)
        }
        // A new entry fires it again.
        _ = gate.update(isOutOfSync: false, clockIsRunning: false, currentActiveColor: .black)
        #expect(!gate.shouldFireHaptic)
        _ = gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .black)
        #expect(gate.shouldFireHaptic)
    }

    @Test func hapticFiresEvenWhenTheClockIsStopped() {
        var gate = BoardSyncGate()
        #expect(gate.update(isOutOfSync: true, clockIsRunning: false, currentActiveColor: .white) == .none)
        #expect(gate.shouldFireHaptic)
    }

    @Test func unacknowledgedHapticIsNotRaisedTwice() {
        var gate = BoardSyncGate()
        _ = gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: .white)
        _ = gate.update(isOutOfSync: true, clockIsRunning: false, currentActiveColor: .white)
        #expect(gate.shouldFireHaptic)
        gate.acknowledgeHaptic()
        _ = gate.update(isOutOfSync: true, clockIsRunning: false, currentActiveColor: .white)
        #expect(!gate.shouldFireHaptic)
    }
}
