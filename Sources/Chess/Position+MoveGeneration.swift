public import BoardKit

/// Receives the moves a generator produces, so one generator serves both listing
/// (``MoveWriter``) and bulk counting (``MoveCounter``).
protocol MoveSink {
    /// One move with its special kind.
    mutating func add(_ from: Int, _ to: Int, _ special: UInt16)
    /// Ordinary moves from `from` to each square of `targets`.
    mutating func addTargets(_ from: Int, _ targets: Bitboard)
    /// Pawn moves from `from` to each square of `targets`, each in four promotions.
    mutating func addPromotions(_ from: Int, _ targets: Bitboard)
}

/// Counts moves without listing them (perft leaves, "has any legal move").
struct MoveCounter: MoveSink {
    var count = 0

    @inline(__always) mutating func add(_ from: Int, _ to: Int, _ special: UInt16) { count &+= 1 }
    @inline(__always) mutating func addTargets(_ from: Int, _ targets: Bitboard) {
        count &+= targets.nonzeroBitCount
    }
    @inline(__always) mutating func addPromotions(_ from: Int, _ targets: Bitboard) {
        count &+= 4 &* targets.nonzeroBitCount
    }
}

/// Writes packed moves into caller-provided storage of at least ``capacity`` entries
/// (no legal position has more than 218 moves).
struct MoveWriter: MoveSink {
    /// Enough for every legal position.
    static let capacity = 256

    let base: UnsafeMutablePointer<PackedMove>
    var count = 0

    @inline(__always) mutating func add(_ from: Int, _ to: Int, _ special: UInt16) {
        base[count] = PackedMove(from: from, to: to, special: special)
        count &+= 1
    }

    @inline(__always) mutating func addTargets(_ from: Int, _ targets: Bitboard) {
        var rest = targets
        while rest != 0 {
            base[count] = PackedMove(from: from, to: rest.trailingZeroBitCount, special: Special.normal)
            count &+= 1
            rest &= rest &- 1
        }
    }

    @inline(__always) mutating func addPromotions(_ from: Int, _ targets: Bitboard) {
        var rest = targets
        while rest != 0 {
            let to = rest.trailingZeroBitCount
            base[count] = PackedMove(from: from, to: to, special: Special.promoteQueen)
            base[count &+ 1] = PackedMove(from: from, to: to, special: Special.promoteRook)
            base[count &+ 2] = PackedMove(from: from, to: to, special: Special.promoteBishop)
            base[count &+ 3] = PackedMove(from: from, to: to, special: Special.promoteKnight)
            count &+= 4
            rest &= rest &- 1
        }
    }
}

extension Position {
    /// Generates every legal move of the side to move into `sink`.
    ///
    /// Fully legal by construction: the king steps only to unattacked squares (looked at
    /// with the king removed, so it cannot hide behind itself); in double check only the
    /// king moves; in single check other pieces must capture the checker or block; pinned
    /// pieces stay on the line through their king and pinner; en passant is verified by
    /// looking at the king after both pawns have left (the horizontally pinned case).
    @inline(__always)
    func generateLegalMoves<Sink: MoveSink>(into sink: inout Sink) {
        let white = sideToMove == .white
        let us = white ? whitePieces : blackPieces
        let them = white ? blackPieces : whitePieces
        let ourKing = kings & us
        guard ourKing != 0 else { return }
        let occupied = us | them
        let king = ourKing.trailingZeroBitCount
        let enemy = sideToMove.opponent
        let theirKing = kings & them
        let theirOrthogonal = (rooks | queens) & them
        let theirDiagonal = (bishops | queens) & them
        let checkers = attackers(of: king, by: enemy, occupied: occupied)

        var kingTargets = AttackTables.king[king] & ~us & ~theirKing
        var safe: Bitboard = 0
        let withoutKing = occupied ^ ourKing
        while kingTargets != 0 {
            let to = kingTargets.trailingZeroBitCount
            kingTargets &= kingTargets &- 1
            if attackers(of: to, by: enemy, occupied: withoutKing) == 0 { safe |= 1 << to }
        }
        sink.addTargets(king, safe)
        if checkers & (checkers &- 1) != 0 { return }

        var allowed = ~us & ~theirKing
        if checkers != 0 {
            allowed &= AttackTables.between[king &* 64 &+ checkers.trailingZeroBitCount] | checkers
        }

        // With only enemy pieces as blockers, each ray from the king ends at the first enemy
        // piece; if that is a slider of the right kind, a lone own piece in between is pinned.
        var pinned: Bitboard = 0
        var snipers =
            (AttackTables.rookAttacks(king, them) & theirOrthogonal)
            | (AttackTables.bishopAttacks(king, them) & theirDiagonal)
        while snipers != 0 {
            let sniper = snipers.trailingZeroBitCount
            snipers &= snipers &- 1
            let blockers = AttackTables.between[king &* 64 &+ sniper] & occupied
            if blockers != 0, blockers & (blockers &- 1) == 0 { pinned |= blockers }
        }

        var pieces = knights & us & ~pinned
        while pieces != 0 {
            let from = pieces.trailingZeroBitCount
            pieces &= pieces &- 1
            sink.addTargets(from, AttackTables.knight[from] & allowed)
        }
        pieces = (bishops | queens) & us
        while pieces != 0 {
            let from = pieces.trailingZeroBitCount
            pieces &= pieces &- 1
            var targets = AttackTables.bishopAttacks(from, occupied) & allowed
            if pinned & (1 << from) != 0 { targets &= AttackTables.line[king &* 64 &+ from] }
            sink.addTargets(from, targets)
        }
        pieces = (rooks | queens) & us
        while pieces != 0 {
            let from = pieces.trailingZeroBitCount
            pieces &= pieces &- 1
            var targets = AttackTables.rookAttacks(from, occupied) & allowed
            if pinned & (1 << from) != 0 { targets &= AttackTables.line[king &* 64 &+ from] }
            sink.addTargets(from, targets)
        }

        generatePawnMoves(into: &sink, king: king, allowed: allowed, pinned: pinned)
        generateEnPassant(into: &sink, king: king)
        if checkers == 0 { generateCastling(into: &sink, king: king) }
    }

    @inline(__always)
    private func generatePawnMoves<Sink: MoveSink>(
        into sink: inout Sink, king: Int, allowed: Bitboard, pinned: Bitboard
    ) {
        let white = sideToMove == .white
        let them = white ? blackPieces : whitePieces
        let empty = ~occupied
        let lastRank: Bitboard = white ? 0xFF00_0000_0000_0000 : 0xFF
        let doublePushRank: Bitboard = white ? 0x0000_0000_FF00_0000 : 0x0000_00FF_0000_0000
        let attackBase = white ? 0 : 64
        var pieces = pawns & (white ? whitePieces : blackPieces)
        while pieces != 0 {
            let from = pieces.trailingZeroBitCount
            pieces &= pieces &- 1
            let bit: Bitboard = 1 << from
            let single = (white ? bit << 8 : bit >> 8) & empty
            var targets = single | ((white ? single << 8 : single >> 8) & empty & doublePushRank)
            targets |= AttackTables.pawn[attackBase &+ from] & them
            targets &= allowed
            if pinned & bit != 0 { targets &= AttackTables.line[king &* 64 &+ from] }
            if targets & lastRank != 0 {
                sink.addPromotions(from, targets)
            } else {
                sink.addTargets(from, targets)
            }
        }
    }

    @inline(__always)
    private func generateEnPassant<Sink: MoveSink>(into sink: inout Sink, king: Int) {
        guard enPassantIndex >= 0 else { return }
        let white = sideToMove == .white
        let target = Int(enPassantIndex)
        guard target >> 3 == (white ? 5 : 2) else { return }
        let us = white ? whitePieces : blackPieces
        let them = white ? blackPieces : whitePieces
        let capturedBit: Bitboard = 1 << (white ? target - 8 : target + 8)
        guard pawns & them & capturedBit != 0, occupied & (1 << target) == 0 else { return }
        // Our pawns that attack the target are where an enemy pawn on it would attack.
        var capturers = AttackTables.pawn[(white ? 64 : 0) &+ target] & pawns & us
        while capturers != 0 {
            let from = capturers.trailingZeroBitCount
            capturers &= capturers &- 1
            let after = (occupied ^ (1 << from) ^ capturedBit) | (1 << target)
            let checks =
                (AttackTables.rookAttacks(king, after) & (rooks | queens) & them)
                | (AttackTables.bishopAttacks(king, after) & (bishops | queens) & them)
                | (AttackTables.knight[king] & knights & them)
                | (AttackTables.pawn[(white ? 0 : 64) &+ king] & pawns & them & ~capturedBit)
            if checks == 0 { sink.add(from, target, Special.enPassant) }
        }
    }

    /// Castling when not in check (the caller checks): rights, king and rook on their
    /// squares, the squares between them empty, the squares the king crosses and lands on
    /// unattacked.
    @inline(__always)
    private func generateCastling<Sink: MoveSink>(into sink: inout Sink, king: Int) {
        let white = sideToMove == .white
        let base = white ? 0 : 56
        guard king == base + 4, !castlingRights.isEmpty else { return }
        let ourRooks = rooks & (white ? whitePieces : blackPieces)
        let occupied = occupied
        let enemy = sideToMove.opponent
        if castlingRights.contains(white ? .whiteKingside : .blackKingside), ourRooks & (1 << (base + 7)) != 0,
            occupied & (0b0110_0000 << base) == 0,
            attackers(of: base + 5, by: enemy, occupied: occupied) == 0,
            attackers(of: base + 6, by: enemy, occupied: occupied) == 0
        {
            sink.add(king, base + 6, Special.castling)
        }
        if castlingRights.contains(white ? .whiteQueenside : .blackQueenside), ourRooks & (1 << base) != 0,
            occupied & (0b0000_1110 << base) == 0,
            attackers(of: base + 3, by: enemy, occupied: occupied) == 0,
            attackers(of: base + 2, by: enemy, occupied: occupied) == 0
        {
            sink.add(king, base + 2, Special.castling)
        }
    }

    /// Calls `body` with the packed legal moves, in storage valid only during the call.
    func withLegalMoves<Result>(_ body: (UnsafeBufferPointer<PackedMove>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: PackedMove.self, capacity: MoveWriter.capacity) { buffer in
            // A temporary allocation of non-zero capacity always has a base address.
            var writer = MoveWriter(base: buffer.baseAddress!)
            generateLegalMoves(into: &writer)
            return body(UnsafeBufferPointer(start: buffer.baseAddress, count: writer.count))
        }
    }

    /// The number of legal moves.
    var legalMoveCount: Int {
        var counter = MoveCounter()
        generateLegalMoves(into: &counter)
        return counter.count
    }

    /// Whether the side to move has at least one legal move.
    var hasLegalMoves: Bool { legalMoveCount > 0 }

    // MARK: Public API

    /// Every legal move of the side to move.
    public func legalMoves() -> [Move] {
        withLegalMoves { $0.map(\.move) }
    }

    /// The legal moves of the piece on `square` (empty when it holds no piece of the side
    /// to move).
    public func legalMoves(from square: Square) -> [Move] {
        legalMoves(fromSquaresIn: 1 << UInt64(square.rawValue))
    }

    /// The legal moves of the pieces on the squares of `squares` (a bit per square, a1 the
    /// lowest), square by square in ascending order: the moves of each square as
    /// ``legalMoves(from:)`` gives them, from one generation of the moves.
    public func legalMoves(fromSquaresIn squares: UInt64) -> [Move] {
        withLegalMoves { moves in
            var result: [Move] = []
            var bits = squares
            while bits != 0 {
                let square = bits.trailingZeroBitCount
                for move in moves where move.fromIndex == square { result.append(move.move) }
                bits &= bits - 1
            }
            return result
        }
    }

    /// Whether `move` is legal here.
    public func isLegal(_ move: Move) -> Bool {
        guard let packed = packed(move), packed.move == move else { return false }
        return withLegalMoves { $0.contains(packed) }
    }

    /// The legal move named in UCI notation (`e2e4`, `e7e8q`, `e1g1`), or `nil` when the
    /// text is not UCI or the move is not legal here.
    public func legalMove(uci: String) -> Move? {
        guard let move = Move(uci: uci), isLegal(move) else { return nil }
        return move
    }
}
