public import BoardKit

/// Why a FEN string (or a hand-built position) was rejected. Each case names the offending
/// field's text or the square, side or count at fault.
public enum FENError: Error, Equatable, Sendable {
    /// A FEN has 6 space-separated fields (4 or 5 are accepted, the clocks defaulting to
    /// `0 1`); this one had the given count.
    case wrongFieldCount(Int)
    /// The placement field does not have 8 ranks separated by `/`; carries the field.
    case invalidPlacement(String)
    /// A placement character is neither a piece letter nor a digit 1–8; carries it.
    case invalidPiece(String)
    /// A rank (1…8, as printed on a board) does not add up to 8 squares; carries its text.
    case invalidRankLength(rank: Int, text: String)
    /// The side-to-move field is not `w` or `b`; carries it.
    case invalidSideToMove(String)
    /// The castling field is not `-` or distinct letters of `KQkq`, or grants a right whose
    /// king or rook is not on its original square; carries the field.
    case invalidCastling(String)
    /// The en-passant field is not `-` or a square on the right rank behind an enemy pawn
    /// that could just have advanced two squares; carries the field.
    case invalidEnPassant(String)
    /// The halfmove clock is not a non-negative integer; carries the field.
    case invalidHalfmoveClock(String)
    /// The fullmove number is not a positive integer; carries the field.
    case invalidFullmoveNumber(String)
    /// The side has no king.
    case missingKing(PieceColor)
    /// The side has more than one king; carries how many.
    case tooManyKings(PieceColor, count: Int)
    /// A pawn stands on rank 1 or 8.
    case pawnOnBackRank(Square)
    /// The side that just moved is in check, so the position cannot arise.
    case sideNotToMoveInCheck(PieceColor)
}

extension FENError: CustomStringConvertible {
    /// A one-line explanation naming the offending value.
    public var description: String {
        switch self {
        case .wrongFieldCount(let count): "FEN has \(count) fields, expected 6"
        case .invalidPlacement(let text): "FEN placement \"\(text)\" does not have 8 ranks"
        case .invalidPiece(let text): "FEN placement has invalid character \"\(text)\""
        case .invalidRankLength(let rank, let text): "FEN rank \(rank) \"\(text)\" does not have 8 squares"
        case .invalidSideToMove(let text): "FEN side to move \"\(text)\" is not w or b"
        case .invalidCastling(let text): "FEN castling field \"\(text)\" is invalid for this position"
        case .invalidEnPassant(let text): "FEN en-passant field \"\(text)\" is invalid for this position"
        case .invalidHalfmoveClock(let text): "FEN halfmove clock \"\(text)\" is not a non-negative integer"
        case .invalidFullmoveNumber(let text): "FEN fullmove number \"\(text)\" is not a positive integer"
        case .missingKing(let color): "the \(color) king is missing"
        case .tooManyKings(let color, let count): "\(color) has \(count) kings"
        case .pawnOnBackRank(let square): "pawn on back rank at \(square)"
        case .sideNotToMoveInCheck(let color): "\(color) is in check but not to move"
        }
    }
}
