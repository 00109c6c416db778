extension SessionOutput {
    /// Whether this output changes what a saved session (``SessionSnapshot``) holds: the
    /// game record (moves, takebacks, endings, new games) or the clock. The bridge saves the
    /// session before it publishes such an output.
    public var changesSavedState: Bool {
        switch self {
        case .clock, .tracker(.move), .tracker(.takeback), .tracker(.gameEnded), .tracker(.newGame): true
        case .tracker(.syncChanged), .tracker(.illegalMove), .tracker(.orientationDetected), .tracker(.missedMoves),
            .tracker(.resultClaim), .alert, .command, .batteryLow, .board:
            false
        }
    }
}
