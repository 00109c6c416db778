/// The "physical board diverged from the game" state machine that drives the clock
/// pause and the entry-only alert (the haptic of an on-screen app).
///
/// Feed it `(isOutOfSync, clockIsRunning, side to move)` on every change:
///
/// | previous | new | action |
/// |---|---|---|
/// | in sync | out of sync | `.pauseClock` if the clock was running; the haptic fires |
/// | out of sync | in sync | `.resumeClock(color:)` if the gate paused the clock |
/// | same | same | `.none` |
///
/// Resume uses the side to move passed in with that update, so a move committed
/// during the desync window resumes the other side. The haptic is one-shot per entry
/// into desync: later updates while still out of sync never raise it again, even
/// after ``acknowledgeHaptic()``; only ``acknowledgeHaptic()`` lowers it.
public struct BoardSyncGate: Sendable {
    /// What the session should do with the game clock.
    public enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// Pause the clock.
        case pauseClock
        /// Resume the clock for `color`.
        case resumeClock(color: PieceColor)
    }

    /// Whether the clock was running when the board went out of sync (so the gate paused it).
    public private(set) var clockWasRunningBeforeDesync: Bool
    /// The side to move when the gate paused the clock.
    public private(set) var pausedActiveColor: PieceColor
    /// Whether the board is out of sync as far as the gate knows.
    public private(set) var isDesynced: Bool
    /// Raised on entry into desync; lowered only by ``acknowledgeHaptic()``.
    public private(set) var shouldFireHaptic: Bool

    /// A gate in sync, with no paused clock and no pending haptic.
    public init() {
        clockWasRunningBeforeDesync = false
        pausedActiveColor = .white
        isDesynced = false
        shouldFireHaptic = false
    }

    /// Applies the current state and returns what to do with the clock.
    /// `currentActiveColor` is the side on the move in the game position now,
    /// not the clock's cached color.
    public mutating func update(
        isOutOfSync: Bool,
        clockIsRunning: Bool,
        currentActiveColor: PieceColor
    ) -> Action {
        switch (isDesynced, isOutOfSync) {
        case (false, true):
            isDesynced = true
            shouldFireHaptic = true
            clockWasRunningBeforeDesync = clockIsRunning
            guard clockIsRunning else { return .none }
            pausedActiveColor = currentActiveColor
            return .pauseClock
        case (true, false):
            isDesynced = false
            let gatePausedTheClock = clockWasRunningBeforeDesync
            clockWasRunningBeforeDesync = false
            // Resume only a clock the gate itself paused and that is still paused.
            guard gatePausedTheClock, !clockIsRunning else { return .none }
            return .resumeClock(color: currentActiveColor)
        default:
            return .none
        }
    }

    /// Marks the entry haptic as consumed.
    public mutating func acknowledgeHaptic() {
        shouldFireHaptic = false
    }
}
