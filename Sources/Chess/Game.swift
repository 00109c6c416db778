public import FoundationEssentials

/// Why ``Game`` refused a move.
public enum GameError: Error, Equatable, Sendable {
    /// The move is not legal in the current position.
    case illegalMove(Move)
    /// The SAN text does not name exactly one legal move.
    case invalidSAN(SANError)
}

/// A game: header tags, a start position, the moves played with their clocks, and the
/// result. Only legal moves get in; the positions along the way are kept, so repetitions
/// are counted from the real history.
///
/// ``result`` follows automatic endings by itself (checkmate, stalemate, dead position,
/// 75-move rule, fivefold repetition) after every ``play(_:clock:timestamp:)`` and
/// ``takeBack(plies:)``; claimable draws, resignations and time forfeits are set by the
/// caller.
public struct Game: Sendable, Equatable {
    /// The PGN header tags. `Result`, `SetUp` and `FEN` are not kept here: PGN export
    /// writes them from ``result`` and ``startPosition``.
    public var tags: PGNTags
    /// The position the game started from.
    public private(set) var startPosition: Position
    /// The moves played, in order.
    public private(set) var moves: [GameMove]
    /// The start position followed by the position after each move
    /// (`positions.count == moves.count + 1`).
    public private(set) var positions: [Position]
    /// The result: maintained for automatic endings, otherwise set by the caller.
    public var result: GameResult
    /// The PGN movetext of ``moves``, kept as they change (``pgn``).
    private(set) var movetext = PGNMovetext()

    /// A game with no moves yet.
    public init(startPosition: Position = .starting, tags: PGNTags = PGNTags()) {
        self.tags = tags
        self.startPosition = startPosition
        moves = []
        positions = [startPosition]
        result = .ongoing
        updateAutomaticResult()
    }

    /// Games are equal when their tags, start, moves, positions and result are (the movetext
    /// kept for ``pgn`` follows from them).
    public static func == (lhs: Game, rhs: Game) -> Bool {
        lhs.tags == rhs.tags && lhs.startPosition == rhs.startPosition && lhs.moves == rhs.moves
            && lhs.positions == rhs.positions && lhs.result == rhs.result
    }

    /// The FEN of the current position (the last move's, recorded when it was played:
    /// not written again for every message that names it).
    public var fen: String {
        moves.last?.fenAfter ?? position.fen
    }

    /// The current position.
    public var position: Position {
        // Never empty: it starts with the start position and takeBack keeps that.
        positions[positions.count - 1]
    }

    /// Plays `move` if it is legal here; `clock` is the mover's remaining time after the
    /// move in seconds, `timestamp` when it was played (both optional).
    public mutating func play(
        _ move: Move, clock: TimeInterval? = nil, timestamp: Double? = nil
    ) throws(GameError) {
        let before = position
        guard before.isLegal(move) else { throw .illegalMove(move) }
        let san = before.san(for: move)
        let after = before.applying(move)
        moves.append(GameMove(move: move, san: san, fenAfter: after.fen, clock: clock, timestamp: timestamp))
        positions.append(after)
        movetext.append(moves[moves.count - 1], playedIn: before)
        updateAutomaticResult()
    }

    /// Plays the move named in SAN, returning it.
    @discardableResult
    public mutating func play(
        san: String, clock: TimeInterval? = nil, timestamp: Double? = nil
    ) throws(GameError) -> Move {
        let move: Move
        do {
            move = try position.move(san: san)
        } catch {
            throw .invalidSAN(error)
        }
        try play(move, clock: clock, timestamp: timestamp)
        return move
    }

    /// Takes back the last `plies` moves (all of them when there are fewer; nothing for
    /// `plies <= 0`). The result goes back to ongoing unless the position reached is an
    /// automatic ending.
    public mutating func takeBack(plies: Int = 1) {
        let count = min(max(plies, 0), moves.count)
        guard count > 0 else { return }
        moves.removeLast(count)
        positions.removeLast(count)
        movetext = PGNMovetext(rendering: self)
        result = .ongoing
        updateAutomaticResult()
    }

    /// Sets the comment of the move at `ply` (0-based); ignored when out of range.
    public mutating func setComment(_ comment: String?, forPly ply: Int) {
        guard moves.indices.contains(ply), moves[ply].comment != comment else { return }
        moves[ply].comment = comment
        renderAgain(from: ply)
    }

    /// Sets the remaining clock (seconds) recorded for the move at `ply` (0-based);
    /// ignored when out of range.
    public mutating func setClock(_ clock: TimeInterval?, forPly ply: Int) {
        guard moves.indices.contains(ply), moves[ply].clock != clock else { return }
        moves[ply].clock = clock
        renderAgain(from: ply)
    }

    /// The movetext after the move at `ply` changed: the last move's tokens alone, or every
    /// move's (a change further back moves every token after it).
    private mutating func renderAgain(from ply: Int) {
        if ply == moves.count - 1, movetext.replaceLast(with: moves[ply], playedIn: positions[ply]) { return }
        movetext = PGNMovetext(rendering: self)
    }

    /// How often the current position has occurred in this game, itself included
    /// (positions are compared by ``Position/repetitionKey``).
    public var repetitionCount: Int {
        let current = position
        let key = current.repetitionKey
        // Nothing before the last capture or pawn move can repeat; same side to move only.
        let lowest = max(0, positions.count - 1 - current.halfmoveClock)
        var count = 0
        var index = positions.count - 1
        while index >= lowest {
            if positions[index].repetitionKey == key { count += 1 }
            index -= 2
        }
        return count
    }

    /// Why the game is over or may be declared drawn, judged on the current position and
    /// the history; `nil` while play simply goes on. Checked in this order: checkmate,
    /// stalemate, insufficient material, fivefold repetition, 75-move rule, threefold
    /// repetition, 50-move rule. See ``GameTermination`` for automatic versus claimable.
    public var termination: GameTermination? {
        let current = position
        if !current.hasLegalMoves {
            return current.isCheck ? .checkmate(winner: current.sideToMove.opponent) : .stalemate
        }
        if current.hasInsufficientMaterial { return .insufficientMaterial }
        let repetitions = repetitionCount
        if repetitions >= 5 { return .fivefoldRepetition }
        if current.halfmoveClock >= 150 { return .seventyFiveMoveRule }
        if repetitions >= 3 { return .threefoldRepetition }
        if current.halfmoveClock >= 100 { return .fiftyMoveRule }
        return nil
    }

    private mutating func updateAutomaticResult() {
        if let termination, termination.isAutomatic { result = termination.result }
    }
}

extension Game: Codable {
    private enum CodingKeys: String, CodingKey {
        case tags, startPosition, moves, result
    }

    /// Decodes a game by replaying its moves, so a decoded game is always consistent;
    /// an illegal move is a `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Position.self, forKey: .startPosition)
        self.init(startPosition: start, tags: try container.decode(PGNTags.self, forKey: .tags))
        for record in try container.decode([GameMove].self, forKey: .moves) {
            do {
                try play(record.move, clock: record.clock, timestamp: record.timestamp)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .moves, in: container, debugDescription: "illegal move \(record.move.uci)")
            }
            setComment(record.comment, forPly: moves.count - 1)
        }
        result = try container.decode(GameResult.self, forKey: .result)
    }

    /// Encodes tags, start position (FEN), moves and result.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tags, forKey: .tags)
        try container.encode(startPosition, forKey: .startPosition)
        try container.encode(moves, forKey: .moves)
        try container.encode(result, forKey: .result)
    }
}
