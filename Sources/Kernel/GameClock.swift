public import BoardKit
public import FoundationEssentials

/// A two-sided chess clock driven by explicit timestamps (seconds on any monotonic
/// scale): it never reads a system clock.
///
/// Periods, increments and moves-to-go follow ``TimeControl``. Time runs for one side at
/// a time; ``moveMade(by:at:)`` charges the mover, adds the increment, grants the next
/// period's time when the mover completes a period's moves, and hands the clock to the
/// other side. A clock that is paused stays paused across a move (the gate resumes it
/// for the side then to move). Timestamps that go backwards are treated as no time.
///
/// Untimed controls (`?`, `-`) keep the run/pause state and the move counts but report
/// no remaining time and never flag.
public struct GameClock: Hashable, Sendable, Codable {
    /// Whether, and for whom, the clock runs.
    public enum State: Hashable, Sendable, Codable {
        /// Set up, not started yet.
        case notStarted
        /// Time runs for `color`.
        case running(PieceColor)
        /// Stopped mid-game; `color` is the side whose time runs on resume.
        case paused(PieceColor)
        /// `color` ran out of time; the clock stands still.
        case flagged(PieceColor)
        /// The game is over; the clock stands still.
        case stopped
    }

    /// The time control.
    public let timeControl: TimeControl
    /// Whether, and for whom, the clock runs.
    public private(set) var state: State
    /// The moves each side has completed (all periods).
    public private(set) var movesMade: ColorPair<Int>
    /// The period each side is in (0-based; past the end means the repeating last period).
    public private(set) var periodIndex: ColorPair<Int>
    /// The moves each side has completed in its current period.
    public private(set) var movesInPeriod: ColorPair<Int>

    /// The remaining time of each side as of ``settledAt``.
    private(set) var settled: ColorPair<TimeInterval>
    /// When ``settled`` was last brought up to date (meaningful while running).
    private(set) var settledAt: TimeInterval

    /// A clock exactly as saved, field by field (what `Codable` reads; the journal's own
    /// reader, ``SessionJournalEntry/init(journalJSON:)``).
    init(
        timeControl: TimeControl, state: State, movesMade: ColorPair<Int>, periodIndex: ColorPair<Int>,
        movesInPeriod: ColorPair<Int>, settled: ColorPair<TimeInterval>, settledAt: TimeInterval
    ) {
        self.timeControl = timeControl
        self.state = state
        self.movesMade = movesMade
        self.periodIndex = periodIndex
        self.movesInPeriod = movesInPeriod
        self.settled = settled
        self.settledAt = settledAt
    }

    /// A clock for `timeControl`, not started, with each side holding the first period's time.
    public init(timeControl: TimeControl) {
        self.timeControl = timeControl
        state = .notStarted
        movesMade = ColorPair(both: 0)
        periodIndex = ColorPair(both: 0)
        movesInPeriod = ColorPair(both: 0)
        settled = ColorPair(both: timeControl.initialTime)
        settledAt = 0
    }

    /// Whether time is running for either side.
    public var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// The side whose time runs (or would run on resume), if any.
    public var activeColor: PieceColor? {
        switch state {
        case .running(let color), .paused(let color): color
        case .notStarted, .flagged, .stopped: nil
        }
    }

    /// The side that ran out of time, if any.
    public var flaggedColor: PieceColor? {
        if case .flagged(let color) = state { return color }
        return nil
    }

    /// The remaining time of `color` at `time`, never below zero; `nil` when untimed.
    public func remaining(for color: PieceColor, at time: TimeInterval) -> TimeInterval? {
        guard timeControl.isTimed else { return nil }
        var copy = self
        copy.settle(at: time)
        return max(0, copy.settled[color])
    }

    /// Both remaining times at `time` (`nil` when untimed).
    public func remainingTimes(at time: TimeInterval) -> ColorPair<TimeInterval>? {
        guard let white = remaining(for: .white, at: time), let black = remaining(for: .black, at: time)
        else { return nil }
        return ColorPair(white: white, black: black)
    }

    /// The moves `color` must still make to complete its current period, or `nil` in a
    /// sudden-death period or an untimed game.
    public func movesToGo(for color: PieceColor) -> Int? {
        guard let moves = timeControl.period(at: periodIndex[color])?.moves else { return nil }
        return max(0, moves - movesInPeriod[color])
    }

    /// When the running side's flag falls if nothing happens before, or `nil`.
    public var flagDeadline: TimeInterval? {
        guard timeControl.isTimed, case .running(let color) = state else { return nil }
        return settledAt + max(0, settled[color])
    }

    /// Starts time for `color` (from not started or paused). Returns whether the state changed.
    @discardableResult
    public mutating func start(_ color: PieceColor, at time: TimeInterval) -> Bool {
        switch state {
        case .notStarted, .paused:
            state = .running(color)
            settledAt = time
            return true
        case .running, .flagged, .stopped:
            return false
        }
    }

    /// Resumes a paused (or not yet started) clock for `color`. Returns whether it changed.
    @discardableResult
    public mutating func resume(_ color: PieceColor, at time: TimeInterval) -> Bool {
        start(color, at: time)
    }

    /// Pauses a running clock. Returns whether the state changed.
    @discardableResult
    public mutating func pause(at time: TimeInterval) -> Bool {
        guard case .running(let color) = state else { return false }
        settle(at: time)
        state = .paused(color)
        return true
    }

    /// Stops the clock for good (game over). Returns whether the state changed.
    @discardableResult
    public mutating func stop(at time: TimeInterval) -> Bool {
        switch state {
        case .stopped, .flagged: return false
        case .notStarted, .running, .paused:
            settle(at: time)
            state = .stopped
            return true
        }
    }

    /// Records that `color` completed a move at `time`: charges the elapsed time, adds
    /// the increment, grants the next period when due, and hands the clock (running or
    /// paused) to the other side. Returns the mover's remaining time after all that
    /// (the PGN `[%clk]` value), or `nil` when untimed.
    @discardableResult
    public mutating func moveMade(by color: PieceColor, at time: TimeInterval) -> TimeInterval? {
        switch state {
        case .flagged, .stopped: return remaining(for: color, at: time)
        case .notStarted, .running, .paused: break
        }
        settle(at: time)
        movesMade[color] += 1
        movesInPeriod[color] += 1
        if let period = timeControl.period(at: periodIndex[color]) {
            settled[color] += period.increment
            if let moves = period.moves, movesInPeriod[color] >= moves {
                periodIndex[color] += 1
                movesInPeriod[color] = 0
                settled[color] += timeControl.period(at: periodIndex[color])?.seconds ?? 0
            }
        }
        switch state {
        case .running: state = .running(color.opponent)
        case .paused: state = .paused(color.opponent)
        case .notStarted, .flagged, .stopped: break
        }
        return timeControl.isTimed ? max(0, settled[color]) : nil
    }

    /// Forgets `count` completed moves of `color` (a takeback). Time already spent stays
    /// spent; increments and period time already granted stay granted, and a period is
    /// never granted twice.
    public mutating func undoMoves(of color: PieceColor, count: Int) {
        guard count > 0 else { return }
        movesMade[color] = max(0, movesMade[color] - count)
        movesInPeriod[color] = max(0, movesInPeriod[color] - count)
    }

    /// Hands the clock (running or paused) to `color` without counting a move.
    public mutating func switchSide(to color: PieceColor, at time: TimeInterval) {
        switch state {
        case .running:
            settle(at: time)
            state = .running(color)
        case .paused: state = .paused(color)
        case .notStarted, .flagged, .stopped: break
        }
    }

    /// Makes a stopped or flagged clock usable again (a takeback reopened the game):
    /// it becomes paused for `color`. Returns whether the state changed.
    @discardableResult
    public mutating func reopen(for color: PieceColor) -> Bool {
        switch state {
        case .stopped, .flagged:
            state = .paused(color)
            return true
        case .notStarted, .running, .paused:
            return false
        }
    }

    /// Sets the remaining time of `color` (an arbiter's correction); negative values count as 0.
    public mutating func adjust(_ color: PieceColor, remaining: TimeInterval, at time: TimeInterval) {
        guard remaining.isFinite else { return }
        settle(at: time)
        settled[color] = max(0, remaining)
    }

    /// Flags the running side when its time is up at `time`. Returns the flagged side
    /// (once: a flagged clock stands still), or `nil`.
    public mutating func checkFlag(at time: TimeInterval) -> PieceColor? {
        guard timeControl.isTimed, case .running(let color) = state else { return nil }
        settle(at: time)
        guard settled[color] <= 0 else { return nil }
        settled[color] = 0
        state = .flagged(color)
        return color
    }

    /// Brings ``settled`` up to `time`, charging the running side.
    private mutating func settle(at time: TimeInterval) {
        guard case .running(let color) = state else { return }
        guard time.isFinite, time > settledAt else { return }
        let elapsed = time - settledAt
        settledAt = time
        guard timeControl.isTimed else { return }
        let consumed = min(elapsed, max(0, settled[color]))
        settled[color] -= elapsed
        if case .sandclock = timeControl {
            settled[color.opponent] += consumed
        }
    }
}
