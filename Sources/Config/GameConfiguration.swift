public import BoardKit
public import Kernel

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
    /// Seconds an occupancy board (Square Off, Pegasus) stays out of sync, after the grace
    /// period, before it is asked for its full state (default 3; each further request waits
    /// twice as long as the one before).
    public var resyncAfter: Double
    /// How many times a board stuck out of sync is asked for its state (default 4; 0 never).
    public var resyncAttempts: Int
    /// Seconds between battery reads of a board that reports its battery (default 300; the
    /// first read follows `ready` at once).
    public var batteryInterval: Double
    /// Seconds a timed game's clock may stay paused, with no result, before the arbiter is
    /// alerted (default 300; 0 never).
    public var alertPausedAfter: Double = 300
    /// Seconds a board may differ from its game before the arbiter is alerted again (the
    /// first alert comes at once; default 120; 0 never).
    public var alertOutOfSyncAfter: Double = 120

    /// The defaults, or the given values.
    public init(
        desyncGrace: Double = 2.0, promotionDefault: Promotion = .queen, maxTakebackPlies: Int = 2,
        resyncAfter: Double = 3, resyncAttempts: Int = 4, batteryInterval: Double = 300
    ) {
        self.batteryInterval = batteryInterval
        self.desyncGrace = desyncGrace
        self.promotionDefault = promotionDefault
        self.maxTakebackPlies = maxTakebackPlies
        self.resyncAfter = resyncAfter
        self.resyncAttempts = resyncAttempts
    }

    /// The kernel's alert limits.
    public var arbiterLimits: ArbiterWatch.Limits {
        ArbiterWatch.Limits(clockPaused: alertPausedAfter, outOfSync: alertOutOfSyncAfter)
    }

    /// The kernel's policy for occupancy boards.
    public var resync: ResyncPolicy {
        ResyncPolicy(firstDelay: resyncAfter, backoff: 2, maxAttempts: resyncAttempts)
    }
}
