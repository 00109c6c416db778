import BoardKit

/// How a board stands in front of its players: which side sits at the near edge (the
/// edge a board calls rank 1 in its wire order).
///
/// Adapters report physical squares as if White sat at the near edge. A board set up
/// the other way round reports every square rotated (a1 ↔ h8); the tracker maps them
/// back. The mapping is its own inverse, so the same functions map game squares to
/// physical ones (for LEDs).
public enum BoardOrientation: String, CaseIterable, Hashable, Sendable, Codable {
    /// White at the near edge: physical squares are game squares.
    case whiteNear = "white_near"
    /// Black at the near edge: physical squares are rotated.
    case blackNear = "black_near"

    /// Maps a square between physical and game coordinates.
    @inlinable
    public func map(_ square: Square) -> Square {
        self == .whiteNear ? square : square.rotated
    }

    /// Maps a snapshot between physical and game coordinates.
    public func map(_ snapshot: BoardSnapshot) -> BoardSnapshot {
        self == .whiteNear ? snapshot : snapshot.rotated
    }

    /// Maps an occupancy map between physical and game coordinates.
    public func map(_ occupancy: OccupancyMap) -> OccupancyMap {
        self == .whiteNear ? occupancy : occupancy.rotated
    }

    /// Maps a move between physical and game coordinates.
    public func map(_ move: BoardMove) -> BoardMove {
        self == .whiteNear ? move : BoardMove(from: move.from.rotated, to: move.to.rotated, promotion: move.promotion)
    }
}

/// The configured orientation: fixed, or detected from the board.
public enum OrientationSetting: String, CaseIterable, Hashable, Sendable, Codable {
    /// Detect it: an identity board showing the game position rotated is taken as set up
    /// with Black near. Occupancy and move-reporting boards cannot tell and use White near.
    case auto
    /// White at the near edge.
    case whiteNear = "white_near"
    /// Black at the near edge.
    case blackNear = "black_near"

    /// The fixed orientation, or `nil` for ``auto``.
    public var fixed: BoardOrientation? {
        switch self {
        case .auto: nil
        case .whiteNear: .whiteNear
        case .blackNear: .blackNear
        }
    }
}
