public import BoardKit

/// The physical side of an emulated board, shared by every personality: the pieces
/// standing on the squares, the battery and what a person's action changed.
///
/// A knocked-over piece no longer stands on its square, so it leaves ``pieces`` (the
/// sensors lose it); putting it back up is a ``PhysicalAction/place(_:on:)``.
public struct PhysicalBoard: Hashable, Sendable {
    /// What one action changed.
    public enum Change: Hashable, Sendable {
        /// Nothing (lifting from an empty square, placing the piece already there).
        case none
        /// A piece left `square` (lifted or knocked over).
        case emptied(Square, Piece)
        /// `piece` was put on `square`, replacing `replaced` if one stood there.
        case placed(Square, Piece, replaced: Piece?)
        /// The battery changed.
        case battery(percent: Int, charging: Bool)
        /// A button was pressed.
        case button(String)
    }

    /// The pieces standing on the board, in ``Square`` order.
    public private(set) var pieces: BoardSnapshot
    /// Battery level, 0…100.
    public private(set) var batteryPercent: Int
    /// Whether the board is charging.
    public private(set) var isCharging: Bool

    /// A board with `pieces` and a battery.
    public init(pieces: BoardSnapshot, batteryPercent: Int = 100, isCharging: Bool = false) {
        self.pieces = pieces
        self.batteryPercent = min(max(batteryPercent, 0), 100)
        self.isCharging = isCharging
    }

    /// Which squares hold a piece.
    public var occupancy: OccupancyMap { pieces.occupancy }

    /// Applies `action` and says what changed.
    public mutating func apply(_ action: PhysicalAction) -> Change {
        switch action {
        case .lift(let square), .knockOver(let square):
            guard let piece = pieces[square] else { return .none }
            pieces[square] = nil
            return .emptied(square, piece)
        case .place(let piece, let square):
            let previous = pieces[square]
            guard previous != piece else { return .none }
            pieces[square] = piece
            return .placed(square, piece, replaced: previous)
        case .setBattery(let percent, let charging):
            batteryPercent = min(max(percent, 0), 100)
            isCharging = charging
            return .battery(percent: batteryPercent, charging: charging)
        case .pressButton(let name):
            return .button(name)
        }
    }

    /// Replaces the pieces wholesale (a motorised board finishing a move).
    public mutating func setPieces(_ snapshot: BoardSnapshot) {
        pieces = snapshot
    }

    /// `frame` cut into notifications of at most `limit` bytes (whole when `limit` is nil).
    public static func notifications(_ frame: [UInt8], limit: Int?) -> [[UInt8]] {
        guard let limit, limit > 0, frame.count > limit else { return [frame] }
        return stride(from: 0, to: frame.count, by: limit).map { Array(frame[$0..<min($0 + limit, frame.count)]) }
    }
}
