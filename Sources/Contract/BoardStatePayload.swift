public import BoardKit
public import Chess
public import FoundationEssentials
public import JSON

/// Everything the retained full state of a board (`<base>/<board>`) carries. The JSON
/// always has every key (unknown values are `null`, nested objects are always present),
/// so Home Assistant templates such as `{{ value_json.clock.white }}` never fail:
///
/// ```json
/// {"board":"board-07","name":"Board 7","family":"chessnut","model":"Chessnut Air",
///  "address":"F4:12:FA:00:11:22","adapter":"hci0","serial_number":null,"firmware_version":null,
///  "connection":{"state":"connected","attempt":null,"max_attempts":null},
///  "fen":"…","turn":"black","ply":3,"move_number":2,
///  "last_move":{"uci":"g1f3","san":"Nf3"},
///  "sync":{"state":"in_sync","squares":[],"reason":null},
///  "clock":{"white":5312,"black":5390,"running":"black","paused":false,"source":"bridge"},
///  "battery":{"percent":81,"charging":false},
///  "game":{"event":null,"site":null,"round":"3","board":"7","white":"Doe, J","black":"Roe, R"},
///  "result":"*","updated":"2026-05-01T14:03:11.204Z"}
/// ```
public struct BoardStatePayload: Equatable, Sendable {
    /// The last committed move.
    public struct LastMove: Equatable, Sendable {
        /// UCI, `g1f3`.
        public var uci: String
        /// SAN, `Nf3`, when known.
        public var san: String?

        /// Creates a last move.
        public init(uci: String, san: String?) {
            self.uci = uci
            self.san = san
        }
    }

    /// Whether the physical board shows the game position.
    public enum SyncState: String, CaseIterable, Equatable, Sendable {
        /// The board shows the game position.
        case inSync = "in_sync"
        /// The difference is a move being made (a partial legal move).
        case moveInProgress = "move_in_progress"
        /// The board differs from the game beyond the grace period.
        case outOfSync = "out_of_sync"
    }

    /// The game clock.
    public struct Clock: Equatable, Sendable {
        /// White's remaining seconds.
        public var white: Double
        /// Black's remaining seconds.
        public var black: Double
        /// The side whose clock runs, or `nil` when none does.
        public var running: PieceColor?
        /// Whether the clock is paused (out of sync, or by command), or stopped (a board's clock).
        public var paused: Bool
        /// Whose clock it is.
        public var source: Source

        /// Which clock the times are from.
        public enum Source: String, Equatable, Sendable {
            /// The bridge's own clock (`boards[].time_control`), run and paused by its rules.
            case bridge
            /// The clock attached to the board (a DGT 3000), as the board last reported it.
            case board
        }

        /// Creates a clock reading.
        public init(white: Double, black: Double, running: PieceColor?, paused: Bool, source: Source = .bridge) {
            self.white = white
            self.black = black
            self.running = running
            self.paused = paused
            self.source = source
        }
    }

    /// The board's battery.
    public struct Battery: Equatable, Sendable {
        /// Charge in percent.
        public var percent: Int?
        /// Whether it is charging, when the board says.
        public var charging: Bool?

        /// Creates a battery reading.
        public init(percent: Int?, charging: Bool?) {
            self.percent = percent
            self.charging = charging
        }
    }

    /// The board id.
    public var board: String
    /// The display name.
    public var name: String?
    /// The board family.
    public var family: BoardFamily?
    /// The model name.
    public var model: String?
    /// The Bluetooth address.
    public var address: String?
    /// The Bluetooth adapter serving it (`hci0`).
    public var adapter: String?
    /// The serial number the board reported (a DGT e-Board), once it did.
    public var serialNumber: String?
    /// The firmware version the board reported, once it did.
    public var firmwareVersion: String?
    /// The connection state (see `ConnectionPayload.stateName(_:)`).
    public var connection: String
    /// The current reconnect attempt, while reconnecting.
    public var reconnectAttempt: Int?
    /// The most reconnect attempts before giving up, when limited.
    public var reconnectMaxAttempts: Int?
    /// The game position.
    public var fen: String?
    /// The side to move.
    public var turn: PieceColor?
    /// Half-moves played.
    public var ply: Int
    /// The full-move number of the side to move.
    public var moveNumber: Int
    /// The last committed move.
    public var lastMove: LastMove?
    /// The sync state.
    public var sync: SyncState
    /// The squares that differ from the game position (empty when in sync).
    public var syncSquares: [Square]
    /// Why the board is out of sync, when the bridge knows (`awaiting_start_position`,
    /// `awaiting_position`); `nil` otherwise.
    public var syncReason: String?
    /// With `missed_moves`: the lines that may have been played (``CandidateLine``), for
    /// the arbiter to resolve; empty when none was found or too many; `nil` (the key left
    /// out) for any other reason.
    public var syncLines: [CandidateLine]?
    /// Which side of the board White sits on: the setting (`white`, `black`, `auto`) and the
    /// side in force (`white`, `black`; `null` while `auto` has not seen enough).
    public var orientation = Orientation(setting: "auto", inForce: nil)
    /// The clock, when the game is timed.
    public var clock: Clock?
    /// The battery, when the board reports one.
    public var battery: Battery?
    /// The game's tags (`extra` tags are not part of the state).
    public var tags: GameCommand.Tags
    /// The game result in PGN notation (`*` while playing).
    public var result: String
    /// When this state was produced.
    public var updated: Date

    /// Creates a state; optional parts default to unknown.
    public init(
        board: String, name: String? = nil, family: BoardFamily? = nil, model: String? = nil,
        address: String? = nil, adapter: String? = nil, serialNumber: String? = nil, firmwareVersion: String? = nil,
        connection: String,
        reconnectAttempt: Int? = nil, reconnectMaxAttempts: Int? = nil, fen: String? = nil,
        turn: PieceColor? = nil, ply: Int = 0, moveNumber: Int = 1, lastMove: LastMove? = nil,
        sync: SyncState = .inSync, syncSquares: [Square] = [], syncReason: String? = nil, clock: Clock? = nil,
        battery: Battery? = nil,
        tags: GameCommand.Tags = GameCommand.Tags(), result: String = "*", updated: Date
    ) {
        self.board = board
        self.name = name
        self.family = family
        self.model = model
        self.address = address
        self.adapter = adapter
        self.serialNumber = serialNumber
        self.firmwareVersion = firmwareVersion
        self.connection = connection
        self.reconnectAttempt = reconnectAttempt
        self.reconnectMaxAttempts = reconnectMaxAttempts
        self.fen = fen
        self.turn = turn
        self.ply = ply
        self.moveNumber = moveNumber
        self.lastMove = lastMove
        self.sync = sync
        self.syncSquares = syncSquares
        self.syncReason = syncReason
        self.clock = clock
        self.battery = battery
        self.tags = tags
        self.result = result
        self.updated = updated
    }

    /// The JSON object, keys in the documented order.
    public var json: JSONValue {
        [
            "board": .string(board),
            "name": JSONValue(name),
            "family": JSONValue(family?.rawValue),
            "model": JSONValue(model),
            "address": JSONValue(address),
            "adapter": JSONValue(adapter),
            "serial_number": JSONValue(serialNumber),
            "firmware_version": JSONValue(firmwareVersion),
            "connection": [
                "state": .string(connection),
                "attempt": JSONValue(reconnectAttempt),
                "max_attempts": JSONValue(reconnectMaxAttempts),
            ],
            "fen": JSONValue(fen),
            "turn": JSONValue(turn?.rawValue),
            "ply": JSONValue(ply),
            "move_number": JSONValue(moveNumber),
            "last_move": ["uci": JSONValue(lastMove?.uci), "san": JSONValue(lastMove?.san)],
            "sync": .object(
                JSONObject(
                    uniqueKeysWithValues: [
                        ("state", .string(sync.rawValue)), ("squares", .squares(syncSquares)),
                        ("reason", JSONValue(syncReason)),
                    ] + (syncLines.map { [("lines", .array($0.map(\.json)))] } ?? []))),
            "orientation": ["setting": .string(orientation.setting), "in_force": JSONValue(orientation.inForce)],
            "clock": [
                "white": .seconds(clock?.white),
                "black": .seconds(clock?.black),
                "running": JSONValue(clock?.running?.rawValue),
                "paused": .bool(clock?.paused ?? false),
                "source": JSONValue(clock?.source.rawValue),
            ],
            "battery": ["percent": JSONValue(battery?.percent), "charging": JSONValue(battery?.charging)],
            "game": tags.json,
            "result": .string(result),
            "updated": .string(ISO8601Timestamp.string(from: updated)),
        ]
    }
}

extension BoardStatePayload {
    /// Which side of the board White sits on (`orientation` of the state).
    public struct Orientation: Equatable, Sendable {
        /// The setting: `white`, `black` or `auto`.
        public var setting: String
        /// The side at the near edge in force: `white`, `black`, or `nil` while `auto` has not
        /// seen enough.
        public var inForce: String?

        /// Creates the facts.
        public init(setting: String, inForce: String?) {
            self.setting = setting
            self.inForce = inForce
        }
    }
}

/// One line of moves that may have been played while the board could not tell
/// (`sync.lines` of the state): `{"uci":["e2e4","e7e5"],"san":["e4","e5"],"fen":"…"}`, the
/// position it leads to last.
public struct CandidateLine: Equatable, Sendable {
    /// The moves in UCI.
    public var uci: [String]
    /// The same moves in SAN.
    public var san: [String]
    /// The position the line leads to.
    public var fen: String

    /// Creates a line.
    public init(uci: [String], san: [String], fen: String) {
        self.uci = uci
        self.san = san
        self.fen = fen
    }

    /// The line of `uci` moves played from `position`, or `nil` when one is not legal there.
    public init?(uci: [String], from position: Position) {
        var position = position
        var san: [String] = []
        for text in uci {
            guard let move = position.legalMove(uci: text) else { return nil }
            san.append(position.san(for: move))
            position = position.applying(move)
        }
        self.init(uci: uci, san: san, fen: position.fen)
    }

    /// The JSON object.
    public var json: JSONValue {
        ["uci": .array(uci.map { .string($0) }), "san": .array(san.map { .string($0) }), "fen": .string(fen)]
    }
}

extension GameCommand.Tags {
    /// The six published tags, always all present.
    var json: JSONValue {
        [
            "event": JSONValue(event), "site": JSONValue(site), "round": JSONValue(round),
            "board": JSONValue(board), "white": JSONValue(white), "black": JSONValue(black),
        ]
    }
}

extension JSONValue {
    /// Seconds rounded to milliseconds (so `5312.4` does not print as `5312.400000000001`),
    /// or `null`.
    static func seconds(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number((value * 1000).rounded() / 1000)
    }

    /// Square names in order.
    static func squares(_ squares: [Square]) -> JSONValue {
        .array(squares.map { .string($0.name) })
    }
}
