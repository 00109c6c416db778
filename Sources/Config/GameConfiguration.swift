import BoardKit

/// The `game` section: how the game kernel treats board positions.
public struct GameConfiguration: Sendable, Equatable, Hashable {
    /// The pieces a pawn may promote to on a board that cannot say which.
    public enum Promotion: String, Sendable, Equatable, Hashable, CaseIterable {
        /// A queen (default).
        case queen
        /// A rook.
        case rook
        /// A bishop.
        case bishop
        /// A knight.
        case knight

        /// The BoardKit piece kind.
        public var pieceKind: PieceKind {
            switch self {
            case .queen: .queen
            case .rook: .rook
            case .bishop: .bishop
            case .knight: .knight
            }
        }
    }

    /// Seconds a board may differ from the game before it is out of sync (default 2.0).
    public var desyncGrace: Double
    /// The piece chosen when a board cannot tell (default queen).
    public var promotionDefault: Promotion
    /// How many plies back a position is recognised as a takeback (default 2; 0 turns
    /// takeback detection off).
    public var maxTakebackPlies: Int

    /// The defaults, or the given values.
    public init(desyncGrace: Double = 2.0, promotionDefault: Promotion = .queen, maxTakebackPlies: Int = 2) {
        self.desyncGrace = desyncGrace
        self.promotionDefault = promotionDefault
        self.maxTakebackPlies = maxTakebackPlies
    }
}
