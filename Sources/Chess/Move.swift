public import BoardKit

/// A chess move: BoardKit's ``BoardMove`` (from, to and the promotion piece, exactly what a
/// player or a board names), under the name the rules use. One type, so a move a board
/// reports is the move ``Position/legalMoves()`` lists, with no conversion between them.
///
/// A move carries no flags: castling is the king moving two files (`e1g1`), en passant is a
/// pawn moving diagonally onto the en-passant square; a ``Position`` works out the rest.
public typealias Move = BoardMove

/// The internal move encoding used by generation and make: bits 0–5 from, 6–11 to,
/// 12–15 the kind (one of the ``Special`` values).
typealias PackedMove = UInt16

/// The kind bits of a ``PackedMove``.
enum Special {
    static let normal: UInt16 = 0
    static let castling: UInt16 = 1
    static let enPassant: UInt16 = 2
    static let promoteKnight: UInt16 = 4
    static let promoteBishop: UInt16 = 5
    static let promoteRook: UInt16 = 6
    static let promoteQueen: UInt16 = 7
}

extension PackedMove {
    @inline(__always) init(from: Int, to: Int, special: UInt16) {
        self = UInt16(truncatingIfNeeded: from) | UInt16(truncatingIfNeeded: to) << 6 | special << 12
    }

    @inline(__always) var fromIndex: Int { Int(self & 63) }
    @inline(__always) var toIndex: Int { Int((self >> 6) & 63) }
    @inline(__always) var special: UInt16 { self >> 12 }

    /// The public form of this move.
    var move: Move {
        let promotion: PieceKind? =
            switch special {
            case Special.promoteKnight: .knight
            case Special.promoteBishop: .bishop
            case Special.promoteRook: .rook
            case Special.promoteQueen: .queen
            default: nil
            }
        // Both indices are 0…63 by construction.
        return Move(from: Square(rawValue: fromIndex)!, to: Square(rawValue: toIndex)!, promotion: promotion)
    }
}
