public import BoardKit

/// What makes two positions "the same" for the repetition rules: placement, side to move,
/// castling rights, and the en-passant square only when an en-passant capture is legal.
public struct RepetitionKey: Hashable, Sendable {
    let whitePieces: UInt64
    let blackPieces: UInt64
    let pawns: UInt64
    let knights: UInt64
    let bishops: UInt64
    let rooks: UInt64
    let queens: UInt64
    let kings: UInt64
    let sideToMove: PieceColor
    let castlingRights: CastlingRights
    let enPassantIndex: Int8
}

extension Position {
    private static let lightSquares: Bitboard = 0x55AA_55AA_55AA_55AA

    /// The key for repetition detection (see ``RepetitionKey``): the clocks are left out,
    /// and so is an en-passant square no pawn can legally use.
    public var repetitionKey: RepetitionKey {
        RepetitionKey(
            whitePieces: whitePieces, blackPieces: blackPieces, pawns: pawns, knights: knights,
            bishops: bishops, rooks: rooks, queens: queens, kings: kings, sideToMove: sideToMove,
            castlingRights: castlingRights, enPassantIndex: hasLegalEnPassant ? enPassantIndex : -1)
    }

    /// Whether an en-passant capture is among the legal moves.
    var hasLegalEnPassant: Bool {
        guard enPassantIndex >= 0 else { return false }
        return withLegalMoves { moves in moves.contains { $0.special == Special.enPassant } }
    }

    /// Whether neither side can ever checkmate, whatever is played (a dead position by
    /// material): king against king, king and one minor piece against king, and kings with
    /// bishops only, all standing on squares of one colour (e.g. K+B vs K+B, same colours).
    public var hasInsufficientMaterial: Bool {
        guard pawns | rooks | queens == 0 else { return false }
        if (knights | bishops).nonzeroBitCount <= 1 { return true }
        return knights == 0 && (bishops & Self.lightSquares == 0 || bishops & ~Self.lightSquares == 0)
    }

    /// Whether `color` could not checkmate even with the best help from the opponent —
    /// the test for a game lost on time, which is drawn instead when the winner by time
    /// cannot possibly mate. `color` has only its king; or king and one knight against a
    /// lone king (or king and queens, which cannot block); or king and bishops all on one
    /// square colour while the opponent has nothing but its king and bishops of that same
    /// colour (anything else could block its own king in).
    public func hasInsufficientMaterial(for color: PieceColor) -> Bool {
        let own = pieces(of: color)
        let other = pieces(of: color.opponent)
        guard (pawns | rooks | queens) & own == 0 else { return false }
        let ownKnights = knights & own
        let ownBishops = bishops & own
        if ownKnights | ownBishops == 0 { return true }
        if ownKnights != 0 {
            return ownBishops == 0 && ownKnights.nonzeroBitCount == 1 && other & ~kings & ~queens == 0
        }
        let sameColour = bishops & Self.lightSquares == 0 || bishops & ~Self.lightSquares == 0
        return sameColour && other & ~kings & ~bishops == 0
    }
}
