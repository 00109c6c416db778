import BoardKit
import Chess

/// The result gesture of DGT e-boards, which arbiters and players use on every identity
/// board: both kings put on two of the four centre squares once the game is over.
/// Both on light squares (d5, e4): White won; both on dark squares (d4, e5): Black won;
/// one on each: a draw. Tournament software reads it as the result, never as moves.
extension GameTracker {
    /// d4, e4, d5, e5 as square raw values (a1 = 0, h8 = 63).
    private static let centre = [27, 28, 35, 36]

    /// The result `frame` shows with the kings, or `nil` when it shows none: each king
    /// stands on a centre square (the four touch each other, so no legal game gets there)
    /// and at least one of them is not where the game (placed as `board`) has it.
    static func resultClaim(in frame: PackedBoard, game board: PackedBoard) -> GameResult? {
        let whiteKing = PackedBoard.code(Piece(.white, .king))
        let blackKing = PackedBoard.code(Piece(.black, .king))
        guard let white = centre.first(where: { frame.code(at: $0) == whiteKing }),
            let black = centre.first(where: { frame.code(at: $0) == blackKing }),
            board.code(at: white) != whiteKing || board.code(at: black) != blackKing
        else { return nil }
        func isLight(_ square: Int) -> Bool { (square % 8 + square / 8) % 2 == 1 }
        switch (isLight(white), isLight(black)) {
        case (true, true): return .whiteWins
        case (false, false): return .blackWins
        default: return .draw
        }
    }
}
