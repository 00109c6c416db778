import BoardKit

/// How an emulated board's firmware turns what its sensors see into completed moves, the
/// way a real ChessUp does before it sends an `A3` frame and a Chess Peripheral Protocol
/// board before it sends `move`.
///
/// The firmware senses occupancy; it compares the occupancy with its game position and
/// knows where a piece is being put down right now and which squares were lifted since the
/// last move:
/// - one square emptied, one filled: a quiet move (a king two files away waits for its
///   rook; a pawn moving diagonally onto an empty square waits for the taken pawn to go);
/// - one square emptied, none filled: a capture, recognised at the moment a piece is put
///   on a square that was lifted since the last move (the captured piece went off);
/// - two emptied, one filled: en passant;
/// - two emptied, two filled: castling (king and rook in either order).
///
/// A rook leaving its corner for the square next to the castling king is ambiguous while
/// castling is still possible: it may be the first half of castling rook-first. The
/// personality then waits for the next action before it reports the rook move.
enum FirmwareMoveRecognizer {
    /// What the sensors' picture amounts to.
    enum Recognition: Equatable, Sendable {
        /// No complete move (nothing changed, a move in progress, or something illegal).
        case none
        /// A complete move (with the promotion piece when a pawn reached the last rank).
        case move(BoardMove)
        /// A rook move that may still turn into castling.
        case possibleCastlingRookMove(BoardMove)
    }

    /// What a firmware waiting on a rook move that may turn into castling
    /// (``Recognition/possibleCastlingRookMove(_:)``) makes of the next action.
    enum RookMoveWait: Equatable, Sendable {
        /// The king followed: castling (the king's move).
        case castling(BoardMove)
        /// Nothing decided yet (the board as the rook move left it, or the king lifted).
        case waiting
        /// Something else happened: the rook move stands, and the action belongs to the next move.
        case rookMove(BoardMove)
    }

    /// Decides a wait on `rookMove`, which left `waitedAt`, now that the board is
    /// `occupancy` and `recognition` is what it shows against `game`.
    static func decide(
        _ rookMove: BoardMove, waitedAt: OccupancyMap, game: FirmwareGame, occupancy: OccupancyMap,
        recognition: Recognition
    ) -> RookMoveWait {
        if case .move(let move) = recognition, game.pieces[move.from]?.kind == .king { return .castling(move) }
        var kingLifted = waitedAt
        if let king = game.castling(kingSide: rookMove.from.file == 7)?.king { kingLifted.remove(king.from) }
        if occupancy == waitedAt || occupancy == kingLifted { return .waiting }
        return .rookMove(rookMove)
    }

    /// Recognises the move that turns `game` (whose occupancy is `gameOccupancy`) into the
    /// `physical` board (`physicalOccupancy`); `placedNow` is the square of the placement
    /// that triggers the check, `nil` after a lift. `checksRules`: the firmware keeps only
    /// moves the rules allow (a board with an engine of its own); without it, a move the
    /// pieces' movement shows is reported for the host to judge.
    static func recognise(
        game: FirmwareGame, gameOccupancy: OccupancyMap, physical: BoardSnapshot, physicalOccupancy: OccupancyMap,
        placedNow: Square?, lifted: Set<Square>, defaultPromotion: PieceKind, checksRules: Bool = true
    ) -> Recognition {
        let found = movement(
            game: game, gameOccupancy: gameOccupancy, physical: physical, physicalOccupancy: physicalOccupancy,
            placedNow: placedNow, lifted: lifted, defaultPromotion: defaultPromotion)
        // The board's engine refuses a move into or through check (a pinned pawn's step,
        // castling out of check): nothing is reported.
        if checksRules, case .move(let move) = found, !game.isLegal(move) { return .none }
        return found
    }

    /// The move the pieces' movement shows, before the rules of check are applied.
    private static func movement(
        game: FirmwareGame, gameOccupancy: OccupancyMap, physical: BoardSnapshot, physicalOccupancy: OccupancyMap,
        placedNow: Square?, lifted: Set<Square>, defaultPromotion: PieceKind
    ) -> Recognition {
        let emptiedBits = gameOccupancy.bits & ~physicalOccupancy.bits
        let filledBits = physicalOccupancy.bits & ~gameOccupancy.bits
        guard emptiedBits.nonzeroBitCount <= 2, filledBits.nonzeroBitCount <= 2, emptiedBits != 0 else { return .none }
        let emptied = squares(emptiedBits)
        let filled = squares(filledBits)

        func completed(from: Square, to: Square) -> BoardMove {
            var move = BoardMove(from: from, to: to)
            if game.pieces[from]?.kind == .pawn, to.rank == 0 || to.rank == 7 {
                let placed = physical[to]?.kind
                move.promotion = [.queen, .rook, .bishop, .knight].contains(placed) ? placed : defaultPromotion
            }
            return move
        }

        switch (emptied.count, filled.count) {
        case (1, 1):
            let (from, to) = (emptied[0], filled[0])
            guard game.isPseudoLegal(from: from, to: to), game.pieces[to] == nil,
                game.enPassantVictim(from: from, to: to) == nil
            else { return .none }
            for kingSide in [true, false] where game.castling(kingSide: kingSide)?.rook == BoardMove(from: from, to: to)
            {
                return .possibleCastlingRookMove(BoardMove(from: from, to: to))
            }
            return .move(completed(from: from, to: to))
        case (1, 0):
            let from = emptied[0]
            guard let to = placedNow, lifted.contains(to), game.pieces[to] != nil,
                game.isPseudoLegal(from: from, to: to)
            else { return .none }
            return .move(completed(from: from, to: to))
        case (2, 1):
            let to = filled[0]
            for from in emptied {
                if let victim = game.enPassantVictim(from: from, to: to), emptied.contains(victim),
                    game.isPseudoLegal(from: from, to: to)
                {
                    return .move(BoardMove(from: from, to: to))
                }
            }
            return .none
        case (2, 2):
            for kingSide in [true, false] {
                guard let castling = game.castling(kingSide: kingSide) else { continue }
                if Set(emptied) == [castling.king.from, castling.rook.from],
                    Set(filled) == [castling.king.to, castling.rook.to]
                {
                    return .move(castling.king)
                }
            }
            return .none
        default:
            return .none
        }
    }

    /// The squares whose bits are set, ascending.
    private static func squares(_ bits: UInt64) -> [Square] {
        var result: [Square] = []
        var remaining = bits
        while remaining != 0 {
            if let square = Square(rawValue: remaining.trailingZeroBitCount) { result.append(square) }
            remaining &= remaining - 1
        }
        return result
    }
}
