public import BoardKit

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

    /// Maps a command's squares between game and physical coordinates: commands name game
    /// squares (as everything published does); a board with Black at its near edge has its
    /// LEDs and its robot's squares rotated.
    public func map(_ command: BoardCommand) -> BoardCommand {
        guard self != .whiteNear else { return command }
        switch command {
        case .indicate(let squares, let style):
            return .indicate(squares: squares.map { map($0) }, style: style)
        case .executeMove(let uci):
            guard let move = BoardMove(uci: uci) else { return command }
            return .executeMove(uci: map(move).uci)
        default:
            return command
        }
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

extension OrientationSetting {
    /// The MQTT contract's and the configuration's words for the settings (`orientation:
    /// white` in the config, `{"orientation":"black"}` as a command), in the order messages
    /// list them. The raw values (`white_near`) are what snapshots store.
    public static let spellings: [(String, OrientationSetting)] = [
        ("white", .whiteNear), ("black", .blackNear), ("auto", .auto),
    ]

    /// The setting ``spellings`` names `text`, or `nil`.
    public init?(spelling text: String) {
        guard let setting = Self.spellings.first(where: { $0.0 == text })?.1 else { return nil }
        self = setting
    }

    /// The contract's word for this setting (`auto`, `white`, `black`).
    public var spelling: String {
        switch self {
        case .auto: "auto"
        case .whiteNear: "white"
        case .blackNear: "black"
        }
    }
}
