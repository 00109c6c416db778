public import JSON

/// The corrections a bridge made on one board, for the arbiter's audit log (issue #30):
/// moves missed while nobody watched (`missed_moves`), an illegal move (`illegal_move`), a
/// move won back after a gap (`recovered_move`), a result claimed with the kings
/// (`result_claim`). The newest ``limit`` are kept in the state directory and retained on
/// `<base>/<board>/corrections`, so that a hall that starts later, or comes back after an
/// outage, still records every one. Each entry is numbered (from 1, never reused while the
/// state directory lasts); a reader records the entries it has not recorded (``Entry/key``).
///
/// ```
/// {"board":"b1","next":43,"corrections":[{"seq":42,"time":"2026-05-01T14:03:11.204Z",
///  "action":"illegal_move","detail":{…},"ply":12,"round":"3","white":"Doe, J",
///  "black":"Roe, R","fen_before":"…","fen_after":"…"}, …]}
/// ```
public struct BoardCorrections: Equatable, Sendable {
    /// Entries kept, the newest.
    public static let limit = 32
    /// The `action` values.
    public static let actions: Set<String> = ["missed_moves", "illegal_move", "recovered_move", "result_claim"]

    /// One correction.
    public struct Entry: Equatable, Sendable {
        /// Its number on this board (from 1).
        public var sequence: Int
        /// When it was made, as ``ISO8601Timestamp`` writes it.
        public var time: String
        /// One of ``BoardCorrections/actions``.
        public var action: String
        /// The event's fields (`squares`, `candidates`, `uci`, `san`, `reason`, `result`, …),
        /// and `suppressed_before` when a flood of corrections went unrecorded before it.
        public var detail: JSONValue
        /// The game's ply when it was made.
        public var ply: Int?
        /// The game's `Round`, `White` and `Black` tags.
        public var round: String?
        /// White.
        public var white: String?
        /// Black.
        public var black: String?
        /// The game's position before.
        public var fenBefore: String?
        /// The game's position after (the same as before when the game did not change).
        public var fenAfter: String?

        /// An entry (numbered when appended).
        public init(
            time: String, action: String, detail: JSONValue, ply: Int? = nil, round: String? = nil,
            white: String? = nil, black: String? = nil, fenBefore: String? = nil, fenAfter: String? = nil
        ) {
            sequence = 0
            self.time = time
            self.action = action
            self.detail = detail
            self.ply = ply
            self.round = round
            self.white = white
            self.black = black
            self.fenBefore = fenBefore
            self.fenAfter = fenAfter
        }

        /// What tells this entry from every other of the board, also after the bridge's
        /// state directory was lost and the numbers started again: number and time.
        public var key: String { String(sequence) + "@" + time }

        /// The entry's JSON.
        public var json: JSONValue {
            [
                "seq": JSONValue(sequence), "time": .string(time), "action": .string(action), "detail": detail,
                "ply": JSONValue(ply), "round": JSONValue(round), "white": JSONValue(white),
                "black": JSONValue(black), "fen_before": JSONValue(fenBefore), "fen_after": JSONValue(fenAfter),
            ]
        }

        /// An entry read back from its JSON, or `nil` when it is not one (strings are cut
        /// to `stringLimit` characters: a reader of the broker bounds what it keeps).
        public init?(json: JSONValue, stringLimit: Int = 512) {
            guard let sequence = json["seq"]?.intValue, sequence > 0,
                let time = json["time"]?.stringValue, ISO8601Timestamp.milliseconds(time) != nil,
                let action = json["action"]?.stringValue, BoardCorrections.actions.contains(action)
            else { return nil }
            func text(_ key: String) -> String? { json[key]?.stringValue.map { String($0.prefix(stringLimit)) } }
            self.init(
                time: time, action: action, detail: json["detail"] ?? .null, ply: json["ply"]?.intValue,
                round: text("round"), white: text("white"), black: text("black"), fenBefore: text("fen_before"),
                fenAfter: text("fen_after"))
            self.sequence = sequence
        }
    }

    /// The board.
    public let board: String
    /// The newest entries, oldest first.
    public private(set) var entries: [Entry] = []
    /// The number the next entry gets.
    public private(set) var nextSequence = 1

    /// No corrections yet.
    public init(board: String) {
        self.board = board
    }

    /// Numbers `entry`, keeps it (dropping the oldest past ``limit``) and returns it numbered.
    @discardableResult
    public mutating func append(_ entry: Entry) -> Entry {
        var entry = entry
        entry.sequence = nextSequence
        nextSequence += 1
        entries.append(entry)
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
        return entry
    }

    /// The retained payload (and the state file's content).
    public var json: JSONValue {
        ["board": .string(board), "next": JSONValue(nextSequence), "corrections": .array(entries.map(\.json))]
    }

    /// The list read back from its JSON (a state file, a retained message), or `nil` when it
    /// is not one. Entries that are not entries are left out; at most ``limit`` are kept.
    public init?(json: JSONValue, stringLimit: Int = 512) {
        guard let board = json["board"]?.stringValue, let items = json["corrections"]?.arrayValue else { return nil }
        self.init(board: board)
        entries = items.suffix(Self.limit).compactMap { Entry(json: $0, stringLimit: stringLimit) }
        let highest = entries.map(\.sequence).max() ?? 0
        nextSequence = max(json["next"]?.intValue ?? 1, highest + 1)
    }
}
