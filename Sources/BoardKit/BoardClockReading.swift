import FoundationEssentials

/// One side of a chess clock as the clock itself sees it: the clock knows left and right,
/// never White and Black (which player sits where is the bridge's configuration).
public enum ClockSide: String, CaseIterable, Hashable, Sendable, Codable {
    /// The left display.
    case left
    /// The right display.
    case right

    /// The other side.
    public var opposite: ClockSide { self == .left ? .right : .left }
}

/// The times a physical clock attached to a board shows (a DGT 3000 cabled to a DGT
/// e-Board), as the board reports them. The bridge does not run this clock: it only
/// reads it.
public struct BoardClockReading: Hashable, Sendable, Codable {
    /// The time left on the left display, in whole seconds.
    public var left: Int
    /// The time left on the right display, in whole seconds.
    public var right: Int
    /// Whose time is running, or `nil` when the clock is stopped.
    public var running: ClockSide?
    /// The side whose lever is up (its clock runs when the clock is started).
    public var leverUp: ClockSide
    /// The clock says its battery is low.
    public var batteryLow: Bool

    /// Creates a reading.
    public init(left: Int, right: Int, running: ClockSide?, leverUp: ClockSide, batteryLow: Bool = false) {
        self.left = left
        self.right = right
        self.running = running
        self.leverUp = leverUp
        self.batteryLow = batteryLow
    }

    /// The time left on `side`, in seconds.
    public func time(_ side: ClockSide) -> Int { side == .left ? left : right }
}
