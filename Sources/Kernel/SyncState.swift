public import BoardKit

/// How the physical board relates to the game position.
public enum SyncState: Hashable, Sendable, Codable {
    /// The board shows the game position.
    case inSync
    /// The board differs from the game position in a way a move being made explains
    /// (a piece in the hand, half a capture, half a castling, a pending promotion pick),
    /// or the difference is younger than the grace period.
    case moveInProgress
    /// The board differs from the game position and nothing explains it; `mismatched`
    /// lists the differing squares in game coordinates, ascending.
    case outOfSync(mismatched: [Square])

    /// Whether this is ``outOfSync(mismatched:)``.
    public var isOutOfSync: Bool {
        if case .outOfSync = self { return true }
        return false
    }

    /// A stable name for logs and payloads: `in_sync`, `move_in_progress`, `out_of_sync`.
    public var name: String {
        switch self {
        case .inSync: "in_sync"
        case .moveInProgress: "move_in_progress"
        case .outOfSync: "out_of_sync"
        }
    }
}
