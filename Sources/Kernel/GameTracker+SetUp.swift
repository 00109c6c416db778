import FoundationEssentials

/// The wait for the board's set-up after a new game or a set-up position
/// (``GameTracker/setUpWait``): the board is compared with the game's position only, never
/// with the results of moves, takebacks or a new game from the board.
extension GameTracker {
    /// The verdict on a board differing from the game position on `difference` (identity:
    /// the squares whose piece differs; occupancy: whose occupancy differs) while a set-up
    /// is awaited, ending the wait once the board shows the position; `nil` when no set-up
    /// is awaited (the board is judged as usual).
    mutating func judgeSetUp(difference: UInt64) -> Verdict? {
        guard setUpWait != nil else { return nil }
        // Out of sync at once: this is no transient difference of a move being made.
        guard difference == 0 else { return .outOfSync(difference) }
        setUpWait = nil
        // What was touched while the pieces were being set up belongs to no move.
        touched = 0
        touchedSincePending = 0
        lastPlaced = nil
        return .inSync
    }
}
