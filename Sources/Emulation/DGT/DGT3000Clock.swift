import Adapters
public import BoardKit
public import FoundationEssentials

/// A simulated DGT 3000 cabled to an emulated DGT e-Board: two countdowns and a lever.
///
/// Pressing the lever on one side lowers it there and raises the other side, whose time
/// then runs (when the clock is started). Times count down in simulated seconds passed
/// in by the caller; the displays show whole seconds (the remaining time rounded up, so a
/// fresh 5-minute clock shows 5:00 until a full second has gone).
public struct DGT3000Clock: Hashable, Sendable {
    /// The time left on each side, in seconds.
    public private(set) var remaining: [ClockSide: TimeInterval]
    /// The side whose lever is up (its time runs when the clock runs).
    public private(set) var leverUp: ClockSide
    /// Whether the clock runs.
    public private(set) var isRunning: Bool
    private var lastTime: TimeInterval?

    /// A stopped clock with `left` and `right` seconds and `leverUp` up: started, that
    /// side's time runs.
    public init(left: TimeInterval = 300, right: TimeInterval = 300, leverUp: ClockSide = .left) {
        remaining = [.left: max(0, left), .right: max(0, right)]
        self.leverUp = leverUp
        isRunning = false
    }

    /// What the board reports of the clock now.
    public var reading: BoardClockReading {
        BoardClockReading(
            left: Self.shown(remaining[.left] ?? 0), right: Self.shown(remaining[.right] ?? 0),
            running: isRunning ? leverUp : nil, leverUp: leverUp)
    }

    /// Lets time run to `time`.
    public mutating func advance(to time: TimeInterval) {
        defer { lastTime = time }
        guard let lastTime, isRunning, time > lastTime else { return }
        remaining[leverUp] = max(0, (remaining[leverUp] ?? 0) - (time - lastTime))
    }

    /// The player on `side` presses the lever at `time`: the other side's time runs; the
    /// first press starts a stopped clock.
    public mutating func press(_ side: ClockSide, at time: TimeInterval) {
        advance(to: time)
        leverUp = side.opposite
        isRunning = true
    }

    /// Sets both times and whether the clock runs (an arbiter's correction), at `time`.
    public mutating func set(left: TimeInterval, right: TimeInterval, running: Bool, at time: TimeInterval) {
        advance(to: time)
        remaining = [.left: max(0, left), .right: max(0, right)]
        isRunning = running
    }

    /// Stops or starts the clock at `time`.
    public mutating func setRunning(_ running: Bool, at time: TimeInterval) {
        advance(to: time)
        isRunning = running
    }

    private static func shown(_ seconds: TimeInterval) -> Int { Int(seconds.rounded(.up)) }
}
