public import BoardKit
public import FoundationEssentials
public import JSON

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
    /// Whether the move was made while the link or the bridge was down and recovered from
    /// the board afterwards (`"recovered":true`; the key is left out otherwise).
    public var recovered: Bool
    /// Whether the arbiter entered the move to resolve moves the board could not tell
    /// (`"resolved":true`; the key is left out otherwise).
    public var resolved = false
    /// Whether the clock times are the board's own clock's (a DGT 3000 cabled to the board:
    /// `"clock_source":"board"`), not the bridge's; the key is left out otherwise.
    public var clockFromBoard = false

    /// Creates a payload.
    public init(
        uci: String, san: String, ply: Int, moveNumber: Int, color: PieceColor, fen: String,
        whiteClock: Double? = nil, blackClock: Double? = nil, timestamp: Date, recovered: Bool = false
    ) {
        self.recovered = recovered
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
        // One array, filled in order (a move's two messages build it: no concatenations).
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(11)
        members.append(("uci", .string(uci)))
        members.append(("san", .string(san)))
        members.append(("ply", JSONValue(ply)))
        members.append(("move_number", JSONValue(moveNumber)))
        members.append(("color", .string(color.rawValue)))
        members.append(("fen", .string(fen)))
        members.append(("clock", ["white": .seconds(whiteClock), "black": .seconds(blackClock)]))
        if clockFromBoard { members.append(("clock_source", .string("board"))) }
        members.append(("timestamp", .string(ISO8601Timestamp.string(from: timestamp))))
        if recovered { members.append(("recovered", .bool(true))) }
        if resolved { members.append(("resolved", .bool(true))) }
        return members
    }

    /// The JSON object.
    public var json: JSONValue { .object(JSONObject(uniqueKeysWithValues: members)) }
}
