public import BoardKit

extension Position {
    /// Every pseudo-legal move of the side to move: moves that follow how the pieces move
    /// but may leave the mover's own king in check, and castling whenever the rights are
    /// left, king and rook stand on their squares and the squares between them are empty
    /// (even out of, through or into check). A move listed here but not in
    /// ``legalMoves()`` is the kind of mistake worth an illegal-move alert. Captures of
    /// the enemy king are never listed.
    public func pseudoLegalMoves() -> [Move] {
        pseudoLegalPackedMoves().map(\.move)
    }

    /// Deliberately simple (and slower) than ``generateLegalMoves(into:)``, so that the
    /// two can check each other in the tests.
    func pseudoLegalPackedMoves() -> [PackedMove] {
        var moves: [PackedMove] = []
        let white = sideToMove == .white
        let us = pieces(of: sideToMove)
        let them = pieces(of: sideToMove.opponent)
        let occupied = us | them
        let allowed = ~us & ~(kings & them)
        func add(_ from: Int, _ targets: Bitboard) {
            var rest = targets
            while rest != 0 {
                let to = rest.trailingZeroBitCount
                rest &= rest - 1
                if pawns & (1 << from) != 0, to >> 3 == (white ? 7 : 0) {
                    for special in [
                        Special.promoteQueen, Special.promoteRook, Special.promoteBishop, Special.promoteKnight,
                    ] {
                        moves.append(PackedMove(from: from, to: to, special: special))
                    }
                } else {
                    moves.append(PackedMove(from: from, to: to, special: Special.normal))
                }
            }
        }
        var rest = us
        while rest != 0 {
            let from = rest.trailingZeroBitCount
            rest &= rest - 1
            let bit: Bitboard = 1 << from
            switch kind(at: bit) {
            case .pawn:
                let forward = white ? from + 8 : from - 8
                guard (0..<64).contains(forward) else { break }
                var targets = AttackTables.pawn[(white ? 0 : 64) + from] & them & allowed
                if occupied & (1 << forward) == 0 {
                    targets |= 1 << forward
                    let startRank = white ? 1 : 6
                    let double = white ? from + 16 : from - 16
                    if from >> 3 == startRank, occupied & (1 << double) == 0 { targets |= 1 << double }
                }
                add(from, targets)
            case .knight: add(from, AttackTables.knight[from] & allowed)
            case .bishop: add(from, AttackTables.bishopAttacks(from, occupied) & allowed)
            case .rook: add(from, AttackTables.rookAttacks(from, occupied) & allowed)
            case .queen:
                add(
                    from,
                    (AttackTables.bishopAttacks(from, occupied) | AttackTables.rookAttacks(from, occupied)) & allowed)
            case .king: add(from, AttackTables.king[from] & allowed)
            case nil: break
            }
        }
        if let target = enPassantSquare, target.rank == (white ? 5 : 2) {
            let capturedBit: Bitboard = 1 << (white ? target.rawValue - 8 : target.rawValue + 8)
            if pawns & them & capturedBit != 0, occupied & (1 << target.rawValue) == 0 {
                var capturers = AttackTables.pawn[(white ? 64 : 0) + target.rawValue] & pawns & us
                while capturers != 0 {
                    moves.append(
                        PackedMove(
                            from: capturers.trailingZeroBitCount, to: target.rawValue, special: Special.enPassant))
                    capturers &= capturers - 1
                }
            }
        }
        let home = white ? 4 : 60
        if kings & us & (1 << home) != 0 {
            let ourRooks = rooks & us
            if castlingRights.contains(white ? .whiteKingside : .blackKingside), ourRooks & (1 << (home + 3)) != 0,
                occupied & (0b0110_0000 << (home - 4)) == 0
            {
                moves.append(PackedMove(from: home, to: home + 2, special: Special.castling))
            }
            if castlingRights.contains(white ? .whiteQueenside : .blackQueenside), ourRooks & (1 << (home - 4)) != 0,
                occupied & (0b0000_1110 << (home - 4)) == 0
            {
                moves.append(PackedMove(from: home, to: home - 2, special: Special.castling))
            }
        }
        return moves
    }

    /// Whether a pseudo-legal move is legal, decided the slow way: castling needs the king
    /// out of check and the square it crosses unattacked; every move must leave the mover's
    /// king unattacked.
    func isLegalPseudoLegalMove(_ move: PackedMove) -> Bool {
        let enemy = sideToMove.opponent
        if move.special == Special.castling {
            let crossed = (move.fromIndex + move.toIndex) / 2
            if isCheck || attackers(of: crossed, by: enemy, occupied: occupied) != 0 { return false }
        }
        var after = self
        after.make(move)
        let king = after.kings & after.pieces(of: sideToMove)
        guard king != 0 else { return false }
        return after.attackers(of: king.trailingZeroBitCount, by: enemy, occupied: after.occupied) == 0
    }
}
