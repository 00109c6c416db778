public import BoardKit
import JSON

/// What an arbiter needs to know about an illegal move, beside its UCI text, squares and
/// position (the `illegal_move` event): `{"reason":"not_a_move","from":"f1","to":"f4",
/// "piece":"bishop","piece_color":"white","color":"white","lan":"Bf1-f4"}`.
public struct IllegalMoveDetails: Equatable, Sendable {
    /// Why it is illegal: `not_a_move`, `leaves_king_in_check`, `castling_not_allowed`,
    /// `wrong_color`, `game_over`.
    public var reason: String
    /// The square the piece left.
    public var from: Square
    /// The square it went to.
    public var to: Square
    /// The piece moved, when the position holds one on `from`.
    public var piece: Piece?
    /// The side to move (who made it; for `wrong_color`, the moved piece has the other colour).
    public var color: PieceColor
    /// Whether `to` held a piece (the move has the shape of a capture).
    public var captures: Bool

    /// Creates the details.
    public init(reason: String, from: Square, to: Square, piece: Piece?, color: PieceColor, captures: Bool) {
        self.reason = reason
        self.from = from
        self.to = to
        self.piece = piece
        self.color = color
        self.captures = captures
    }

    /// The move in long algebraic notation (`Bf1-f4`, `e4xd6`, `Ke1-g1`): the piece's
    /// letter (none for a pawn), the two squares, `x` for the shape of a capture.
    public var longAlgebraic: String {
        let letter = piece.map { $0.kind == .pawn ? "" : $0.kind.letter.uppercased() } ?? ""
        return letter + from.name + (captures ? "x" : "-") + to.name
    }
}

extension IllegalMoveDetails {
    /// The members of the event, in order.
    var members: [(String, JSONValue)] {
        [
            ("reason", .string(reason)),
            ("from", .string(from.name)),
            ("to", .string(to.name)),
            ("piece", JSONValue(piece?.kind.rawValue)),
            ("piece_color", JSONValue(piece?.color.rawValue)),
            ("color", .string(color.rawValue)),
            ("lan", .string(longAlgebraic)),
        ]
    }
}
