public import BoardKit

extension Position {
    /// Squares whose vacating or capture costs castling rights: a1, e1, h1, a8, e8, h8.
    private static let castlingSquares: Bitboard = 0x9100_0000_0000_0091

    /// Plays a packed move in place (make). The move must be at least pseudo-legal.
    ///
    /// Undo is the value copy: the search keeps the parent position (under 100 bytes, no heap)
    /// and makes the move on a copy, which is cheaper than an undo record.
    @inline(__always)
    mutating func make(_ move: PackedMove) {
        let from = move.fromIndex
        let to = move.toIndex
        let fromBit: Bitboard = 1 << from
        let toBit: Bitboard = 1 << to
        let moveBits = fromBit | toBit
        let white = sideToMove == .white
        halfmoveClock &+= 1
        enPassantIndex = -1

        if (white ? blackPieces : whitePieces) & toBit != 0 {
            let keep = ~toBit
            pawns &= keep
            knights &= keep
            bishops &= keep
            rooks &= keep
            queens &= keep
            kings &= keep
            if white { blackPieces &= keep } else { whitePieces &= keep }
            halfmoveClock = 0
        }
        if white { whitePieces ^= moveBits } else { blackPieces ^= moveBits }

        if pawns & fromBit != 0 {
            pawns ^= moveBits
            halfmoveClock = 0
            makePawnSpecial(move.special, from: from, to: to, white: white)
        } else if knights & fromBit != 0 {
            knights ^= moveBits
        } else if bishops & fromBit != 0 {
            bishops ^= moveBits
        } else if rooks & fromBit != 0 {
            rooks ^= moveBits
        } else if queens & fromBit != 0 {
            queens ^= moveBits
        } else {
            kings ^= moveBits
            if move.special == Special.castling {
                let rookBits: Bitboard = to > from ? (fromBit << 3 | fromBit << 1) : (fromBit >> 4 | fromBit >> 1)
                rooks ^= rookBits
                if white { whitePieces ^= rookBits } else { blackPieces ^= rookBits }
            }
        }

        if moveBits & Self.castlingSquares != 0, !castlingRights.isEmpty {
            var lost: CastlingRights = []
            if moveBits & 0x11 != 0 { lost.insert(.whiteQueenside) }
            if moveBits & 0x90 != 0 { lost.insert(.whiteKingside) }
            if moveBits & 0x1100_0000_0000_0000 != 0 { lost.insert(.blackQueenside) }
            if moveBits & 0x9000_0000_0000_0000 != 0 { lost.insert(.blackKingside) }
            castlingRights.subtract(lost)
        }
        if !white { fullmoveNumber &+= 1 }
        sideToMove = white ? .black : .white
    }

    @inline(__always)
    private mutating func makePawnSpecial(_ special: UInt16, from: Int, to: Int, white: Bool) {
        let toBit: Bitboard = 1 << to
        switch special {
        case Special.enPassant:
            let capturedBit: Bitboard = white ? toBit >> 8 : toBit << 8
            pawns ^= capturedBit
            if white { blackPieces ^= capturedBit } else { whitePieces ^= capturedBit }
        case Special.promoteKnight:
            pawns ^= toBit
            knights |= toBit
        case Special.promoteBishop:
            pawns ^= toBit
            bishops |= toBit
        case Special.promoteRook:
            pawns ^= toBit
            rooks |= toBit
        case Special.promoteQueen:
            pawns ^= toBit
            queens |= toBit
        default:
            if to &- from == 16 || from &- to == 16 { enPassantIndex = Int8(truncatingIfNeeded: (from &+ to) >> 1) }
        }
    }

    /// The packed form of `move` here, with its special kind worked out from the position:
    /// castling (the king moves two files from its home square with its rook in place),
    /// en passant, promotion (a pawn reaching the last rank without a promotion piece
    /// promotes to a queen). `nil` when `from` holds no piece of the side to move.
    func packed(_ move: Move) -> PackedMove? {
        let from = move.from.rawValue
        let to = move.to.rawValue
        let fromBit: Bitboard = 1 << from
        let us = pieces(of: sideToMove)
        guard us & fromBit != 0, from != to else { return nil }
        let white = sideToMove == .white
        var special = Special.normal
        if kings & fromBit != 0 {
            let home = white ? 4 : 60
            if from == home, to == home + 2, rooks & us & (1 << (home + 3)) != 0 {
                special = Special.castling
            } else if from == home, to == home - 2, rooks & us & (1 << (home - 4)) != 0 {
                special = Special.castling
            }
        } else if pawns & fromBit != 0 {
            if to == Int(enPassantIndex), move.from.file != move.to.file, occupied & (1 << to) == 0 {
                special = Special.enPassant
            } else if move.to.rank == (white ? 7 : 0) {
                special =
                    switch move.promotion {
                    case .knight: Special.promoteKnight
                    case .bishop: Special.promoteBishop
                    case .rook: Special.promoteRook
                    default: Special.promoteQueen
                    }
            }
        }
        return PackedMove(from: from, to: to, special: special)
    }

    /// The position after `move`. The caller guarantees that the move is legal, or at least
    /// pseudo-legal (it may leave the mover's king in check); a move whose `from` square
    /// holds no piece of the side to move leaves the position unchanged. A pawn reaching
    /// the last rank without a promotion piece becomes a queen.
    public func applying(_ move: Move) -> Position {
        var position = self
        position.apply(move)
        return position
    }

    /// Plays `move` in place; see ``applying(_:)`` for what the caller guarantees.
    public mutating func apply(_ move: Move) {
        guard let packed = packed(move) else { return }
        make(packed)
    }
}
