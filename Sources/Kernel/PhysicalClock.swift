public import BoardKit
public import FoundationEssentials

/// A clock attached to the board (a DGT 3000 cabled to a DGT e-Board) as the session reads
/// it: the last reading, and which display is White's. The bridge never runs, pauses or
/// corrects this clock (its pause-on-desync rule is for its own clock): it only reports what
/// the clock shows.
///
/// The clock knows left and right. The first time it runs, the side it runs for is the side
/// to move (the arbiter starts White's time, or a player presses the lever after a move): that
/// fixes White's display for the rest of the session. Until then White is on the left.
public struct PhysicalClock: Hashable, Sendable {
    /// The last reading; `nil` when the board reported no clock (or none yet).
    public private(set) var reading: BoardClockReading?
    /// White's display, once the clock ran.
    public private(set) var whiteSide: ClockSide?

    /// No clock seen yet.
    public init() {}

    /// Takes `reading` (`nil`: the board says no clock is attached) with `sideToMove` the
    /// game's side to move now.
    public mutating func observe(_ reading: BoardClockReading?, sideToMove: PieceColor) {
        self.reading = reading
        if whiteSide == nil, let running = reading?.running {
            whiteSide = sideToMove == .white ? running : running.opposite
        }
    }

    /// `color`'s time on the clock, in seconds; `nil` without a clock.
    public func remaining(for color: PieceColor) -> TimeInterval? {
        guard let reading else { return nil }
        let white = whiteSide ?? .left
        return TimeInterval(reading.time(color == .white ? white : white.opposite))
    }

    /// The colour whose time runs, or `nil` while the clock is stopped (or absent).
    public var runningColor: PieceColor? {
        guard let running = reading?.running else { return nil }
        return running == (whiteSide ?? .left) ? .white : .black
    }

    /// Both times, or `nil` without a clock.
    public var remainingTimes: ColorPair<TimeInterval>? {
        guard let white = remaining(for: .white), let black = remaining(for: .black) else { return nil }
        return ColorPair(white: white, black: black)
    }
}
