public import BoardKit
public import FoundationEssentials
public import JSON

/// A clock action (`<base>/<board>/clock`):
/// `{"action":"pause","color":"white","white":300,"black":290,"reason":"out_of_sync","timestamp":"…"}`.
public struct ClockPayload: Equatable, Sendable {
    /// What happened to the clock.
    public enum Action: String, CaseIterable, Equatable, Sendable {
        /// The clock stopped (out of sync, by command, game over).
        case pause
        /// The clock runs again.
        case resume
    }

    /// What happened.
    public var action: Action
    /// For `resume`, the side whose clock now runs; for `pause`, the side whose clock was
    /// running; `nil` when none.
    public var color: PieceColor?
    /// White's remaining seconds.
    public var white: Double?
    /// Black's remaining seconds.
    public var black: Double?
    /// Why (`out_of_sync`, `in_sync`, `command`, `game_end`…), when known.
    public var reason: String?
    /// When it happened.
    public var timestamp: Date

    /// Creates a payload.
    public init(
        action: Action, color: PieceColor?, white: Double?, black: Double?, reason: String? = nil, timestamp: Date
    ) {
        self.action = action
        self.color = color
        self.white = white
        self.black = black
        self.reason = reason
        self.timestamp = timestamp
    }

    /// The JSON object.
    public var json: JSONValue {
        [
            "action": .string(action.rawValue),
            "color": JSONValue(color?.rawValue),
            "white": .seconds(white),
            "black": .seconds(black),
            "reason": JSONValue(reason),
            "timestamp": .string(ISO8601Timestamp.string(from: timestamp)),
        ]
    }
}
