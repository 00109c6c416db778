public import BoardKit
public import FoundationEssentials
public import JSON

/// Something that happened on a board, published on `<base>/<board>/event` (never
/// retained) as `{"event_type":"…", …details…, "timestamp":"…"}`. Home Assistant's
/// `event` entity lists every `eventType` and shows the other keys as attributes.
public enum BoardEventPayload: Equatable, Sendable {
    /// A move was committed (the same details as the `move` topic).
    case move(MovePayload)
    /// The board stopped matching the game; `squares` differ. `reason` says why when the
    /// bridge knows (`awaiting_start_position`, `awaiting_position`: a new game or a set-up
    /// position waits for the pieces to stand on it; `missed_moves`: moves were made while
    /// nobody watched and the board cannot tell which, `candidates` then lists the possible
    /// lines (UCI) when they are few), `nil` when nothing explains it.
    case outOfSync(squares: [Square], reason: String? = nil, candidates: [[String]]? = nil)
    /// The board matches the game again (published only after an ``outOfSync(squares:reason:candidates:)``).
    case inSync
    /// The board shows a position reached by an illegal move (an arbiter alert):
    /// `uci` when the move can be named, the differing `squares`, the game position `fen`,
    /// and what the arbiter needs to know (`details`: reason, squares, piece, side).
    case illegalMove(uci: String?, squares: [Square], fen: String?, details: IllegalMoveDetails? = nil)
    /// The board went back `plies` half-moves; `fen` is the position now.
    case takeback(plies: Int, fen: String)
    /// A new game started from `fen`, with its tags (`game`, as in the full state) and PGN
    /// time control (`nil` when untimed).
    case gameStart(fen: String, game: GameCommand.Tags = GameCommand.Tags(), timeControl: String? = nil)
    /// The game ended: `result` in PGN notation, `termination` such as `checkmate`,
    /// `stalemate`, `flag`, `command`.
    case gameEnd(result: String, termination: String?)
    /// A board button was pressed.
    case button(name: String)
    /// An alert for the arbiter (the sync gate's one-shot signal, a board error, the
    /// kernel's ``ArbiterWatch``): `reason` names it, `squares` where relevant, `detail`
    /// says it in a sentence (the key is left out when there is none).
    case alert(reason: String, squares: [Square], detail: String? = nil)
    /// The battery fell below the warning level.
    case batteryLow(percent: Int)
    /// Both kings were put on the centre squares (the DGT result gesture): `result` is
    /// claimed, for the arbiter to confirm with the `result` command. Nothing is moved.
    case resultClaim(result: String)
    /// Where a board that recognises pieces by tag (Certabo) stands with its calibration:
    /// `state` is `needed` (set the pieces up on the start position, spare queens on d3 and
    /// d6 where there are any), `learned` (`pieces` tags known, kept in the state directory),
    /// `unsettled` (`squares` could not be read steadily yet), `unknown_pieces` (pieces never
    /// calibrated stand on `squares`: no position is reported until they go) or
    /// `recognised` (they went).
    case calibration(state: String, squares: [Square] = [], pieces: Int? = nil)

    /// The `out_of_sync` reason (and the state's `sync.reason`) of moves the board could not
    /// tell, which the arbiter resolves with the `resolve` command.
    public static let missedMovesReason = "missed_moves"

    /// Every `event_type` value, for the Home Assistant `event` entity.
    public static let eventTypes = [
        "move", "out_of_sync", "in_sync", "illegal_move", "takeback", "game_start", "game_end", "button",
        "alert", "battery_low", "result_claim", "stalled", "calibration",
    ]

    /// The `event_type` value.
    public var eventType: String {
        switch self {
        case .move: "move"
        case .outOfSync: "out_of_sync"
        case .inSync: "in_sync"
        case .illegalMove: "illegal_move"
        case .takeback: "takeback"
        case .gameStart: "game_start"
        case .gameEnd: "game_end"
        case .button: "button"
        case .alert: "alert"
        case .batteryLow: "battery_low"
        case .resultClaim: "result_claim"
        case .calibration: "calibration"
        }
    }

    /// The JSON object, stamped with `timestamp` (a `move` carries its own timestamp).
    public func json(timestamp: Date) -> JSONValue {
        var members: [(String, JSONValue)] = [("event_type", .string(eventType))]
        switch self {
        case .move(let move):
            return .object(JSONObject(uniqueKeysWithValues: members + move.members))
        case .outOfSync(let squares, let reason, let candidates):
            members += [("squares", .squares(squares)), ("reason", JSONValue(reason))]
            if let candidates {
                members.append(("candidates", .array(candidates.map { .array($0.map { .string($0) }) })))
            }
        case .inSync:
            break
        case .illegalMove(let uci, let squares, let fen, let details):
            members += [("uci", JSONValue(uci)), ("squares", .squares(squares)), ("fen", JSONValue(fen))]
            members += details?.members ?? []
        case .takeback(let plies, let fen):
            members += [("plies", JSONValue(plies)), ("fen", .string(fen))]
        case .gameStart(let fen, let game, let timeControl):
            members += [("fen", .string(fen)), ("game", game.json), ("time_control", JSONValue(timeControl))]
        case .gameEnd(let result, let termination):
            members += [("result", .string(result)), ("termination", JSONValue(termination))]
        case .button(let name):
            members.append(("name", .string(name)))
        case .alert(let reason, let squares, let detail):
            members += [("reason", .string(reason)), ("squares", .squares(squares))]
            if let detail { members.append(("detail", .string(detail))) }
        case .batteryLow(let percent):
            members.append(("percent", JSONValue(percent)))
        case .resultClaim(let result):
            members.append(("result", .string(result)))
        case .calibration(let state, let squares, let pieces):
            members += [("state", .string(state)), ("squares", .squares(squares))]
            if let pieces { members.append(("pieces", JSONValue(pieces))) }
        }
        members.append(("timestamp", .string(ISO8601Timestamp.string(from: timestamp))))
        return .object(JSONObject(uniqueKeysWithValues: members))
    }
}
