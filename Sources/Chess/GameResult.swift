public import BoardKit

/// The result of a game, as PGN writes it.
public enum GameResult: String, Codable, Sendable, CaseIterable {
    /// White won.
    case whiteWins = "1-0"
    /// Black won.
    case blackWins = "0-1"
    /// Drawn.
    case draw = "1/2-1/2"
    /// Still being played, or unknown.
    case ongoing = "*"

    /// The winner, or `nil` for a draw or an unfinished game.
    public var winner: PieceColor? {
        switch self {
        case .whiteWins: .white
        case .blackWins: .black
        case .draw, .ongoing: nil
        }
    }

    /// A win for `color`.
    public static func win(for color: PieceColor) -> GameResult {
        color == .white ? .whiteWins : .blackWins
    }
}

/// Why a game is over (or may be declared over) by the rules, judged from the position
/// and the game's history.
///
/// Automatic endings (the game is over the moment they arise, FIDE Laws 5.2 and 9.6):
/// ``checkmate(winner:)``, ``stalemate``, ``insufficientMaterial`` (a dead position),
/// ``seventyFiveMoveRule`` and ``fivefoldRepetition``. Claimable draws (a player may
/// claim them, but play may go on, FIDE Laws 9.2 and 9.3): ``fiftyMoveRule`` and
/// ``threefoldRepetition``. See ``isAutomatic``.
public enum GameTermination: Equatable, Sendable, Codable {
    /// The side to move is checkmated; `winner` delivered the mate.
    case checkmate(winner: PieceColor)
    /// The side to move has no legal move and is not in check.
    case stalemate
    /// Neither side can checkmate any more (see ``Position/hasInsufficientMaterial``).
    case insufficientMaterial
    /// Fifty moves by each side without a capture or pawn move: a draw may be claimed.
    case fiftyMoveRule
    /// Seventy-five moves by each side without a capture or pawn move: drawn automatically
    /// (unless the last move mated, which ``checkmate(winner:)`` reports first).
    case seventyFiveMoveRule
    /// The same position has occurred three times: a draw may be claimed.
    case threefoldRepetition
    /// The same position has occurred five times: drawn automatically.
    case fivefoldRepetition

    /// Whether the game ends by itself (`true`) rather than on a player's claim (`false`).
    public var isAutomatic: Bool {
        switch self {
        case .fiftyMoveRule, .threefoldRepetition: false
        default: true
        }
    }

    /// The result this ending gives.
    public var result: GameResult {
        if case .checkmate(let winner) = self { return .win(for: winner) }
        return .draw
    }
}
