import BoardKit
import Chess

/// Names the illegal move a board shows, when one piece move explains what it shows but
/// no legal move does: a piece moved the wrong way, a move that leaves the mover's king
/// in check, castling through, out of or into check (or without the right), a piece of
/// the side not to move played out of turn. Anything else (a piece knocked over or away,
/// two pieces disturbed) is not named: it stays a plain difference.
///
/// Only called once the cheaper readings failed (no legal move, no state a legal move
/// passes through, no takeback, no corrected last move).
extension PositionAnalysis {
    /// The illegal move that turns this placement into `frame` (a piece-identity board),
    /// which differs from it on `difference`.
    /// (A move of the right shape that is not legal is found earlier, among the
    /// pseudo-legal moves.)
    func illegalPlacement(_ frame: PackedBoard, difference: UInt64) -> (move: Move, reason: IllegalMove.Reason)? {
        for castling in castlingShapes() {
            if castling.result == frame || isKingHalf(of: castling, frame: frame, difference: difference) {
                return (castling.move, .castlingNotAllowed)
            }
        }
        guard difference.nonzeroBitCount == 2 else { return nil }
        let first = difference.trailingZeroBitCount
        let second = 63 - difference.leadingZeroBitCount
        for (from, to) in [(first, second), (second, first)] {
            let piece = board.code(at: from)
            guard piece != 0, frame.code(at: from) == 0, frame.code(at: to) == piece else { continue }
            return relocation(from: from, to: to)
        }
        return nil
    }

    /// The illegal move an occupancy board shows: the piece on `from` lifted and put on
    /// `to` (empty before, or holding an opponent's piece that was lifted: the shape of a
    /// capture), when no legal move explains it.
    func illegalRelocation(from: Int, to: Int) -> (move: Move, reason: IllegalMove.Reason)? {
        guard from != to, board.code(at: from) != 0 else { return nil }
        for castling in castlingShapes() where castling.move.from.rawValue == from && castling.move.to.rawValue == to {
            return (castling.move, .castlingNotAllowed)
        }
        return relocation(from: from, to: to)
    }

    /// The piece on `from` moved to `to`: a wrong-way move of the side to move, or a move
    /// of the other side's piece that would be one of its moves (out of turn). A piece
    /// landing on a piece of its own colour, or on a king, is no move at all.
    private func relocation(from: Int, to: Int) -> (move: Move, reason: IllegalMove.Reason)? {
        let mover = board.code(at: from)
        let target = board.code(at: to)
        guard let fromSquare = Square(rawValue: from), let toSquare = Square(rawValue: to) else { return nil }
        if target != 0, target & 8 == mover & 8 || target & 7 == 6 { return nil }
        let move = Move(from: fromSquare, to: toSquare)
        let moverIsWhite = mover & 8 == 0
        if moverIsWhite == (position.sideToMove == .white) { return (move, .notAMove) }
        var outOfTurn = position
        outOfTurn.sideToMove = position.sideToMove.opponent
        outOfTurn.enPassantSquare = nil
        let shaped = outOfTurn.pseudoLegalMoves().contains { $0.from == fromSquare && $0.to == toSquare }
        return shaped ? (move, .wrongColor) : nil
    }

    /// The castlings of the side to move as moves on the board (king two squares, rook
    /// over it) wherever king and rook stand on their squares, whatever the rights.
    private func castlingShapes() -> [MoveCandidate] {
        let white = position.sideToMove == .white
        let rank = white ? 0 : 7
        let king: UInt64 = white ? 6 : 14
        let rook: UInt64 = white ? 4 : 12
        guard let home = Square(file: 4, rank: rank), board.code(at: home.rawValue) == king else { return [] }
        var shapes: [MoveCandidate] = []
        for (rookFile, kingFile) in [(7, 6), (0, 2)] {
            guard let corner = Square(file: rookFile, rank: rank), board.code(at: corner.rawValue) == rook,
                let target = Square(file: kingFile, rank: rank)
            else { continue }
            let move = Move(from: home, to: target)
            if legal.contains(where: { $0.move == move }) { continue }
            shapes.append(MoveCandidate(move: move, on: board))
        }
        return shapes
    }

    /// Whether `frame` shows the king's half of `castling`: the king on its new square and
    /// the rook not yet moved (castling is a king move; the king goes first).
    private func isKingHalf(of castling: MoveCandidate, frame: PackedBoard, difference: UInt64) -> Bool {
        let from = castling.move.from.rawValue
        let to = castling.move.to.rawValue
        return difference == (UInt64(1) << UInt64(from)) | (UInt64(1) << UInt64(to))
            && frame.code(at: to) == board.code(at: from) && board.code(at: to) == 0
    }
}
