public import Chess

/// What a tracker waits for the board to show before it tracks moves again: after a new
/// game or a set-up position (a host command), the pieces must first stand on the game's
/// start position. Until they do, the board is out of sync with this reason, and nothing
/// the board shows is read as a move: tournament software calls it an "incorrect start of
/// game", and a move inferred from the old board to the new position would be a move
/// nobody played.
public enum SetUpWait: String, Hashable, Sendable, Codable {
    /// The standard starting position (a new game).
    case startPosition = "awaiting_start_position"
    /// Another position (a `position` command, or a new game from a FEN).
    case position = "awaiting_position"

    /// The wait for a game that starts from `position`.
    public init(for position: Position) {
        self = position == .starting ? .startPosition : .position
    }

    /// A stable name for payloads: `awaiting_start_position`, `awaiting_position`.
    public var reason: String { rawValue }
}
