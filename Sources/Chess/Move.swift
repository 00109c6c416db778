import BoardKit

/// A chess move: from, to and the promotion piece, exactly what a player or a board names.
///
/// A move carries no flags: castling is the king moving two files (`e1g1`), en passant is a
/// pawn moving diagonally onto the en-passant square; a ``Position`` works out the rest.
/// Two moves are equal when their squares and promotion are equal, so a move built from a
/// board report compares equal to the one ``Position/legalMoves()`` lists.
public struct Move: Hashable, Sendable, Codable {
    /// Where the moving piece starts (the king's square for castling).
    public var from: Square
    /// Where it ends (the king's destination for castling).
    public var to: Square
    /// The piece a pawn promotes to (knight, bishop, rook or queen), else `nil`.
    public var promotion: PieceKind?

    /// Creates a move.
    public init(from: Square, to: Square, promotion: PieceKind? = nil) {
        self.from = from
        self.to = to
        self.promotion = promotion
    }

    /// The move a board or host named.
    public init(_ boardMove: BoardMove) {
        self.init(from: boardMove.from, to: boardMove.to, promotion: boardMove.promotion)
    }

    /// Parses UCI long algebraic notation (`e2e4`, `e7e8q`); `nil` for anything else.
    /// Says nothing about legality: see ``Position/legalMove(uci:)``.
    public init?(uci: some StringProtocol) {
        guard let boardMove = BoardMove(uci: uci) else { return nil }
        self.init(boardMove)
    }

    /// UCI long algebraic notation, e.g. `e2e4`, `e7e8q`, `e1g1` (castling).
    public var uci: String { boardMove.uci }

    /// The same move as BoardKit's seam type.
    public var boardMove: BoardMove { BoardMove(from: from, to: to, promotion: promotion) }
}

extension Move: CustomStringConvertible {
    /// UCI notation.
    public var description: String { uci }
}

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
