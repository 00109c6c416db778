import BoardKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A committed move (`<base>/<board>/move`, and the `move` event):
/// `{"uci":"g1f3","san":"Nf3","ply":3,"move_number":2,"color":"white","fen":"…",
/// "clock":{"white":5312,"black":5390},"timestamp":"…"}`.
public struct MovePayload: Equatable, Sendable {
    /// UCI, `g1f3`.
    public var uci: String
    /// SAN, `Nf3`.
    public var san: String
    /// The ply of this move (1 = White's first move).
    public var ply: Int
    /// The full-move number this move belongs to (1 for both `1. e4` and `1... e5`).
    public var moveNumber: Int
    /// The side that moved.
    public var color: PieceColor
    /// The position after the move.
    public var fen: String
    /// White's remaining seconds after the move, when timed.
    public var whiteClock: Double?
    /// Black's remaining seconds after the move, when timed.
    public var blackClock: Double?
    /// When the move was committed.
    public var timestamp: Date

    /// Creates a payload.
    public init(
        uci: String, san: String, ply: Int, moveNumber: Int, color: PieceColor, fen: String,
        whiteClock: Double? = nil, blackClock: Double? = nil, timestamp: Date
    ) {
        self.uci = uci
        self.san = san
        self.ply = ply
        self.moveNumber = moveNumber
        self.color = color
        self.fen = fen
        self.whiteClock = whiteClock
        self.blackClock = blackClock
        self.timestamp = timestamp
    }

    /// The members, in order (shared with the `move` event).
    var members: [(String, JSONValue)] {
        [
            ("uci", .string(uci)),
            ("san", .string(san)),
            ("ply", JSONValue(ply)),
            ("move_number", JSONValue(moveNumber)),
            ("color", .string(color.rawValue)),
            ("fen", .string(fen)),
            ("clock", ["white": .seconds(whiteClock), "black": .seconds(blackClock)]),
            ("timestamp", .string(ISO8601Timestamp.string(from: timestamp))),
        ]
    }

    /// The JSON object.
    public var json: JSONValue { .object(JSONObject(uniqueKeysWithValues: members)) }
}

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
