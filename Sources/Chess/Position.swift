public import BoardKit

/// A chess position: piece placement, side to move, castling rights, en-passant square
/// and the two move counters — everything a FEN says.
///
/// A value type of under 100 bytes with no heap storage (eight bitboards and a few
/// counters), so copying is cheap; move generation is fully legal (pins and checks are
/// resolved while generating) and ``perft(depth:)`` runs without allocating.
///
/// The en-passant square is set after every double pawn push, as the FEN standard says,
/// whether or not a capture is possible; ``repetitionKey`` only keeps it when an
/// en-passant capture is legal.
public struct Position: Hashable, Sendable {
    // Occupancy by colour and by kind; a piece is the intersection.
    var whitePieces: Bitboard
    var blackPieces: Bitboard
    var pawns: Bitboard
    var knights: Bitboard
    var bishops: Bitboard
    var rooks: Bitboard
    var queens: Bitboard
    var kings: Bitboard
    /// The en-passant target square index, or -1.
    var enPassantIndex: Int8

    /// The side whose turn it is.
    public var sideToMove: PieceColor
    /// The castling rights left (see ``CastlingRights``).
    public var castlingRights: CastlingRights
    /// Half-moves since the last capture or pawn move (the fifty-move counter).
    public var halfmoveClock: Int
    /// The number of the full move, starting at 1 and incremented after Black's move.
    public var fullmoveNumber: Int

    /// The square a pawn that just advanced two squares passed over (FEN field 4), or `nil`.
    public var enPassantSquare: Square? {
        get { enPassantIndex < 0 ? nil : Square(rawValue: Int(enPassantIndex)) }
        set { enPassantIndex = newValue.map { Int8($0.rawValue) } ?? -1 }
    }

    /// An empty board, White to move, no castling rights. Internal: positions come from
    /// FEN, snapshots or ``starting``.
    init() {
        whitePieces = 0
        blackPieces = 0
        pawns = 0
        knights = 0
        bishops = 0
        rooks = 0
        queens = 0
        kings = 0
        enPassantIndex = -1
        sideToMove = .white
        castlingRights = []
        halfmoveClock = 0
        fullmoveNumber = 1
    }

    /// The standard starting position.
    public static let starting: Position = {
        var position = Position()
        position.whitePieces = 0x0000_0000_0000_FFFF
        position.blackPieces = 0xFFFF_0000_0000_0000
        position.pawns = 0x00FF_0000_0000_FF00
        position.knights = 0x4200_0000_0000_0042
        position.bishops = 0x2400_0000_0000_0024
        position.rooks = 0x8100_0000_0000_0081
        position.queens = 0x0800_0000_0000_0008
        position.kings = 0x1000_0000_0000_0010
        position.castlingRights = .all
        return position
    }()

    /// The piece on `square`, or `nil` when it is empty.
    public subscript(square: Square) -> Piece? {
        let bit: Bitboard = 1 << square.rawValue
        let color: PieceColor
        if whitePieces & bit != 0 {
            color = .white
        } else if blackPieces & bit != 0 {
            color = .black
        } else {
            return nil
        }
        return kind(at: bit).map { Piece(color, $0) }
    }

    /// The piece placement as a BoardKit snapshot.
    public var snapshot: BoardSnapshot {
        BoardSnapshot(squares: Square.allCases.map { self[$0] })
    }

    /// The squares occupied by pieces of `color`.
    public func occupancy(of color: PieceColor) -> OccupancyMap {
        OccupancyMap(bits: pieces(of: color))
    }

    /// The square of `color`'s king (`nil` only for a hand-built position without one).
    public func kingSquare(of color: PieceColor) -> Square? {
        let king = kings & pieces(of: color)
        return king == 0 ? nil : Square(rawValue: king.trailingZeroBitCount)
    }

    // MARK: Internal helpers

    @inline(__always)
    func pieces(of color: PieceColor) -> Bitboard {
        color == .white ? whitePieces : blackPieces
    }

    @inline(__always)
    var occupied: Bitboard { whitePieces | blackPieces }

    /// The kind of the piece on `bit` (a single-bit board), if any.
    func kind(at bit: Bitboard) -> PieceKind? {
        if pawns & bit != 0 { return .pawn }
        if knights & bit != 0 { return .knight }
        if bishops & bit != 0 { return .bishop }
        if rooks & bit != 0 { return .rook }
        if queens & bit != 0 { return .queen }
        if kings & bit != 0 { return .king }
        return nil
    }

    /// Puts `piece` on the empty square `index`.
    mutating func place(_ piece: Piece, at index: Int) {
        let bit: Bitboard = 1 << index
        if piece.color == .white { whitePieces |= bit } else { blackPieces |= bit }
        switch piece.kind {
        case .pawn: pawns |= bit
        case .knight: knights |= bit
        case .bishop: bishops |= bit
        case .rook: rooks |= bit
        case .queen: queens |= bit
        case .king: kings |= bit
        }
    }

    /// The pieces of `color` that attack square `index`, with `occupied` as the blockers.
    @inline(__always)
    func attackers(of index: Int, by color: PieceColor, occupied: Bitboard) -> Bitboard {
        let them = pieces(of: color)
        // A white pawn attacks `index` from where a black pawn on `index` would attack.
        let pawnIndex = color == .white ? 64 &+ index : index
        return (AttackTables.pawn[pawnIndex] & pawns & them)
            | (AttackTables.knight[index] & knights & them)
            | (AttackTables.king[index] & kings & them)
            | (AttackTables.rookAttacks(index, occupied) & (rooks | queens) & them)
            | (AttackTables.bishopAttacks(index, occupied) & (bishops | queens) & them)
    }

    /// Whether the side to move is in check.
    public var isCheck: Bool {
        let king = kings & pieces(of: sideToMove)
        guard king != 0 else { return false }
        return attackers(of: king.trailingZeroBitCount, by: sideToMove.opponent, occupied: occupied) != 0
    }

    /// Whether the side to move is checkmated.
    public var isCheckmate: Bool { isCheck && !hasLegalMoves }

    /// Whether the side to move is stalemated (not in check, no legal move).
    public var isStalemate: Bool { !isCheck && !hasLegalMoves }
}
