public import BoardKit
public import Chess
public import FoundationEssentials

/// A move the tracker added to the game.
public struct CommittedMove: Hashable, Sendable, Codable {
    /// The move.
    public var move: Move
    /// UCI notation (`e7e8q`).
    public var uci: String
    /// Standard algebraic notation (`e8=Q+`).
    public var san: String
    /// The position after the move, as FEN.
    public var fen: String
    /// The move's ply in the game: 1 for White's first move.
    public var ply: Int
    /// The side that made it.
    public var color: PieceColor
    /// When the board showed (or reported) it.
    public var timestamp: TimeInterval
    /// The mover's remaining time after the move, when a session clock stamped it.
    public var clock: TimeInterval?
    /// Whether the move was made while nobody watched (the link or the bridge was down)
    /// and found afterwards from what the board showed.
    public var recovered: Bool
    /// Whether the move was entered by the arbiter to resolve moves the board could not tell
    /// (``GameTracker/resolve(_:fromPly:at:)``): the board showed where the line leads, the
    /// arbiter said which line it was.
    public var resolved: Bool

    /// The full-move number the move belongs to: that of the position it was made from, as
    /// its FEN counts (so after a set-up position whose FEN says move 20, White's first
    /// move and Black's reply are both 20, as the PGN numbers them), where ``ply`` counts
    /// the moves of the game record from 1.
    public var moveNumber: Int {
        // The FEN's last field, read from its end (every move's message asks for it).
        var after = 0
        var scale = 1
        for byte in fen.utf8.reversed() {
            // 18 digits at most: no overflow, and no game reaches a longer number.
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), scale <= 100_000_000_000_000_000 else { break }
            after += Int(byte - UInt8(ascii: "0")) * scale
            scale *= 10
        }
        if scale == 1 { after = 1 }
        return color == .black ? max(1, after - 1) : after
    }

    /// Creates a record.
    public init(
        move: Move, san: String, fen: String, ply: Int, color: PieceColor, timestamp: TimeInterval,
        clock: TimeInterval? = nil, recovered: Bool = false, resolved: Bool = false
    ) {
        self.recovered = recovered
        self.resolved = resolved
        self.move = move
        self.uci = move.uci
        self.san = san
        self.fen = fen
        self.ply = ply
        self.color = color
        self.timestamp = timestamp
        self.clock = clock
    }
}

/// The board went back to an earlier position of the game (or a host command did).
public struct Takeback: Hashable, Sendable, Codable {
    /// How many plies were taken back.
    public var plies: Int
    /// The moves taken back, in UCI, latest first.
    public var undone: [String]
    /// The game's ply count after the takeback.
    public var ply: Int
    /// The position after the takeback, as FEN.
    public var fen: String

    /// Creates a record.
    public init(plies: Int, undone: [String], ply: Int, fen: String) {
        self.plies = plies
        self.undone = undone
        self.ply = ply
        self.fen = fen
    }
}

/// The board shows (or reports) a move the rules forbid: an arbiter alert. The game
/// does not advance.
public struct IllegalMove: Hashable, Sendable, Codable {
    /// Why the move is rejected.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// A move of the right shape that leaves (or puts) the mover's king in check.
        case leavesKingInCheck = "leaves_king_in_check"
        /// A move the piece cannot make (the wrong way, too far, through other pieces), or
        /// a reported move that no piece of the side to move can make.
        case notAMove = "not_a_move"
        /// Castling out of, through or into check, or without the right to.
        case castlingNotAllowed = "castling_not_allowed"
        /// A piece of the side not to move, moved as that side could have (out of turn).
        case wrongColor = "wrong_color"
        /// A move made after the game ended.
        case gameOver = "game_over"
    }

    /// The move, in game coordinates.
    public var move: BoardMove
    /// Why it is rejected.
    public var reason: Reason
    /// The side that made it (the side to move).
    public var color: PieceColor
    /// The position it was made from, as FEN.
    public var fen: String

    /// Creates a record.
    public init(move: BoardMove, reason: Reason, color: PieceColor, fen: String) {
        self.move = move
        self.reason = reason
        self.color = color
        self.fen = fen
    }
}

/// Moves were made while nobody watched and the board does not say which: several lines
/// lead to what it shows, or none within the bounds of the search. The board is out of
/// sync until it returns to the game position or a host command sets the position.
public struct MissedMoves: Hashable, Sendable, Codable {
    /// The length of the candidate lines, when some were found.
    public var plies: Int?
    /// The candidate lines in UCI, when few (none when many, or none found).
    public var candidates: [[String]]
    /// Whether this is the open gap's report again with other candidates (its histories
    /// followed the play after it, or fewer are left), not a new gap: the arbiter's record
    /// has the gap already.
    public var isUpdate = false

    private enum CodingKeys: String, CodingKey {
        case plies, candidates
    }

    /// Creates a record.
    public init(plies: Int?, candidates: [[String]], isUpdate: Bool = false) {
        self.plies = plies
        self.candidates = candidates
        self.isUpdate = isUpdate
    }
}

/// Why a game ended.
public enum GameEndReason: Hashable, Sendable, Codable {
    /// `winner` checkmated the other side.
    case checkmate(winner: PieceColor)
    /// The side to move has no legal move and is not in check.
    case stalemate
    /// Neither side can checkmate.
    case insufficientMaterial
    /// 75 moves without capture or pawn move.
    case seventyFiveMoveRule
    /// The same position occurred five times.
    case fivefoldRepetition
    /// A claimed draw: 50 moves without capture or pawn move.
    case fiftyMoveRule
    /// A claimed draw: the same position occurred three times.
    case threefoldRepetition
    /// `loser` ran out of time.
    case timeForfeit(loser: PieceColor)
    /// `loser` resigned.
    case resignation(loser: PieceColor)
    /// The players agreed a draw.
    case agreement
    /// Set by a host command with no further reason.
    case adjudication

    /// A stable name for logs and payloads (`checkmate`, `time_forfeit`, …).
    public var name: String {
        switch self {
        case .checkmate: "checkmate"
        case .stalemate: "stalemate"
        case .insufficientMaterial: "insufficient_material"
        case .seventyFiveMoveRule: "seventy_five_move_rule"
        case .fivefoldRepetition: "fivefold_repetition"
        case .fiftyMoveRule: "fifty_move_rule"
        case .threefoldRepetition: "threefold_repetition"
        case .timeForfeit: "time_forfeit"
        case .resignation: "resignation"
        case .agreement: "agreement"
        case .adjudication: "adjudication"
        }
    }
}

/// The end of a game.
public struct GameEnd: Hashable, Sendable, Codable {
    /// The result.
    public var result: GameResult
    /// Why.
    public var reason: GameEndReason

    /// Creates a record.
    public init(result: GameResult, reason: GameEndReason) {
        self.result = result
        self.reason = reason
    }
}

/// Something a ``GameTracker`` reports, for the bridge to publish.
public enum TrackerOutput: Hashable, Sendable {
    /// A move was added to the game.
    case move(CommittedMove)
    /// The board's sync state changed (also when the mismatched squares change).
    case syncChanged(SyncState)
    /// Plies were taken back.
    case takeback(Takeback)
    /// The board shows or reports a move the rules forbid.
    case illegalMove(IllegalMove)
    /// Moves made while nobody watched cannot be told from the board; the
    /// ``syncChanged(_:)`` to out of sync that follows at once carries it.
    case missedMoves(MissedMoves)
    /// The game ended.
    case gameEnded(GameEnd)
    /// The board was found to stand the other way round (or confirmed the usual way).
    case orientationDetected(BoardOrientation)
    /// The board was set up in the starting position and a new game began.
    case newGame(fen: String)
    /// Both kings were put on the centre squares, as arbiters show a result on DGT boards
    /// (see ``GameTracker/resultClaim(in:game:)``): a claim for the arbiter to confirm,
    /// not a move. The game does not advance or end; the board is out of sync.
    case resultClaim(GameResult)
}
