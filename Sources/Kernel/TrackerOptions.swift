public import BoardKit
public import FoundationEssentials

/// Which kind of board input decides the moves, chosen from ``BoardCapabilities``.
public enum TrackerInputPath: String, CaseIterable, Hashable, Sendable, Codable {
    /// Full piece-identity snapshots (Chessnut, Millennium, DGT classic).
    case identity
    /// Lift/place events and occupancy snapshots (Square Off, Pegasus).
    case occupancy
    /// Completed moves reported by the board (ChessUp).
    case reportedMoves = "reported_moves"

    /// The path for a board: piece identity wins (it sees everything), then reported
    /// moves, then occupancy.
    public init(capabilities: BoardCapabilities) {
        if capabilities.contains(.pieceIdentity) {
            self = .identity
        } else if capabilities.contains(.reportsMoves) {
            self = .reportedMoves
        } else {
            self = .occupancy
        }
    }
}

/// How a ``GameTracker`` judges what a board shows.
public struct TrackerOptions: Hashable, Sendable, Codable {
    /// How long an unexplained difference between board and game may last before the
    /// board counts as out of sync (seconds).
    public var desyncGrace: TimeInterval
    /// The piece a promotion becomes when the board reports no pick.
    public var promotionDefault: PieceKind
    /// How far back (in plies) a board returning to an earlier position counts as a takeback.
    public var maxTakebackPlies: Int
    /// Which side sits at the board's near edge.
    public var orientation: OrientationSetting
    /// How long a rook move that may be the first half of castling waits for the king
    /// before it is committed as a rook move (seconds).
    public var castlingWait: TimeInterval
    /// How long an occupancy or move-reporting board's promotion waits for a
    /// board-reported pick before the default piece is taken (seconds; 0 takes it at once).
    public var promotionPickWait: TimeInterval
    /// Whether a board showing the standard starting position, when the game is over or
    /// too far along for a takeback, starts a new game.
    public var autoNewGame: Bool

    /// Creates options; the defaults suit a club game.
    public init(
        desyncGrace: TimeInterval = 2.0,
        promotionDefault: PieceKind = .queen,
        maxTakebackPlies: Int = 4,
        orientation: OrientationSetting = .auto,
        castlingWait: TimeInterval = 1.5,
        promotionPickWait: TimeInterval = 1.0,
        autoNewGame: Bool = true
    ) {
        self.desyncGrace = desyncGrace
        self.promotionDefault = promotionDefault
        self.maxTakebackPlies = maxTakebackPlies
        self.orientation = orientation
        self.castlingWait = castlingWait
        self.promotionPickWait = promotionPickWait
        self.autoNewGame = autoNewGame
    }

    /// The promotion default, forced to a piece a pawn may become (a queen otherwise).
    var validPromotionDefault: PieceKind {
        [.knight, .bishop, .rook, .queen].contains(promotionDefault) ? promotionDefault : .queen
    }
}
