import BoardKit
import Chess
import FoundationEssentials

/// A takeback made on a board that keeps its own game (ChessUp's undo, issue #30): the
/// board announces each undo (``BoardKit/BoardButton/undo``) and its next state frame shows its
/// game that many plies back. The kernel takes the plies back only then — the state frame
/// behind the game and showing the game's own earlier position — so that a stale state
/// frame can never undo moves.
extension GameTracker {
    /// The board announced an undo: its state is asked for, and decides.
    mutating func observeUndo(at time: TimeInterval) {
        guard inputPath == .reportedMoves else { return }
        announcedUndos += 1
        askForState(at: time)
    }

    /// Takes back the plies the board's game (`snapshot` in game coordinates, `side` to move
    /// at `fullmove`) is behind, when undos were announced and the board shows the game's
    /// own position that many plies back; returns whether it did.
    mutating func takeBackToBoard(
        _ snapshot: BoardSnapshot, side: PieceColor, fullmove: Int, at time: TimeInterval,
        into outputs: inout [TrackerOutput]
    ) -> Bool {
        guard announcedUndos > 0, let behind = pliesBehind(side, fullmove), behind > 0 else { return false }
        announcedUndos = 0
        let count = game.moves.count
        guard behind <= count, PackedBoard(position: game.positions[count - behind]) == PackedBoard(snapshot) else {
            return false
        }
        resolveReportedPending(into: &outputs)
        // The pieces stand as the game stood before the undo (the last occupancy seen, or
        // the game's own when none was seen since the last move).
        if observed == nil { observed = analysis.occupancy }
        performTakeback(plies: behind, into: &outputs)
        sensedPlacement = PackedBoard(snapshot)
        undoPiecesPending = true
        touched = 0
        apply(reportedVerdict(), at: time, into: &outputs)
        return true
    }

    /// How many plies the board's game (`side` to move at full move `fullmove`) is behind
    /// the game; `nil` when it is not behind.
    func pliesBehind(_ side: PieceColor, _ fullmove: Int) -> Int? {
        let ahead = pliesFromGame(side, fullmove)
        guard ahead > 256 else { return nil }
        return 512 - ahead
    }
}
