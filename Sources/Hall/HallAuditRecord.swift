import Contract
import FoundationEssentials
public import JSON

/// One entry of the audit log (``HallAudit``): an arbiter's action or a correction a bridge
/// made, with the board, its round and players, who, and the position before and after.
///
/// As a journal line: `{"seq":12,"time":"…","board":"b2","node":"hall-a","round":"1",
/// "white":"Doe, J","black":"Roe, R","ply":0,"source":"arbiter","who":"Jane",
/// "action":"resolve","detail":{…},"fen_before":"…","fen_after":null,"outcome":"sent",
/// "error":null,"transaction":"hall-3"}`.
public struct HallAuditRecord: Equatable, Sendable {
    /// Where an entry comes from.
    public enum Source: String, Sendable, CaseIterable {
        /// An arbiter's action through the hall (signed with the account's name).
        case arbiter
        /// A command another MQTT client sent to the board's `set` topic.
        case mqtt
        /// A correction the bridge made itself (missed moves, an illegal move, a recovered
        /// move, a result claimed with the kings).
        case bridge
    }

    /// The entry's number in the log (from 1).
    public var sequence: Int
    /// When it happened (ms since 1970).
    public var time: Double
    /// The board.
    public var board: String
    /// The bridge host serving it, when known.
    public var node: String?
    /// The game's round, white and black (its PGN tags), when known.
    public var round: String?
    /// White, when known.
    public var white: String?
    /// Black, when known.
    public var black: String?
    /// The game's ply when it happened.
    public var ply: Int?
    /// Where it comes from.
    public var source: Source
    /// The arbiter's name, `mqtt` or the bridge host's name.
    public var who: String
    /// What: a command's name (`resolve`, `position`, `takeback`, `result`, `new_game`,
    /// `clock`, `orientation`), `acknowledge`, `start_round`, or a correction
    /// (`missed_moves`, `illegal_move`, `recovered_move`, `result_claim`).
    public var action: String
    /// The details (a command's value, an event's fields).
    public var detail: JSONValue
    /// The game position before.
    public var fenBefore: String?
    /// The game position after, once known (a command's answer carries it).
    public var fenAfter: String?
    /// `sent` (waiting for the bridge's answer), `ok`, `refused`, or `done` (what needs no answer).
    public var outcome: String
    /// Why it was refused.
    public var error: String?
    /// The command's `transaction`, which its answer echoes.
    public var transaction: String?
    /// A bridge's correction: its ``BoardCorrections/Entry/key``, so that it is recorded once.
    public var correction: String?

    /// Creates an entry.
    public init(
        sequence: Int, time: Double, board: String, source: Source, who: String, action: String,
        detail: JSONValue = .null, outcome: String = "done"
    ) {
        self.sequence = sequence
        self.time = time
        self.board = board
        self.source = source
        self.who = who
        self.action = action
        self.detail = detail
        self.outcome = outcome
    }

    /// The journal line (and the JSON-lines download's).
    public var json: JSONValue {
        [
            "seq": JSONValue(sequence),
            "time": .string(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: time / 1000))),
            "board": .string(board), "node": JSONValue(node), "round": JSONValue(round),
            "white": JSONValue(white), "black": JSONValue(black), "ply": JSONValue(ply),
            "source": .string(source.rawValue), "who": .string(who), "action": .string(action),
            "detail": detail, "fen_before": JSONValue(fenBefore), "fen_after": JSONValue(fenAfter),
            "outcome": .string(outcome), "error": JSONValue(error), "transaction": JSONValue(transaction),
            "correction": JSONValue(correction),
        ]
    }

    /// An entry read back from its journal line, or `nil` when the line is not one.
    public init?(json: JSONValue) {
        guard let sequence = json["seq"]?.intValue, sequence > 0, let board = json["board"]?.stringValue,
            let source = json["source"]?.stringValue.flatMap(Source.init(rawValue:)),
            let who = json["who"]?.stringValue, let action = json["action"]?.stringValue,
            let time = ISO8601Timestamp.milliseconds(json["time"]?.stringValue)
        else { return nil }
        self.init(
            sequence: sequence, time: time, board: board, source: source, who: who, action: action,
            detail: json["detail"] ?? .null, outcome: json["outcome"]?.stringValue ?? "done")
        node = json["node"]?.stringValue
        round = json["round"]?.stringValue
        white = json["white"]?.stringValue
        black = json["black"]?.stringValue
        ply = json["ply"]?.intValue
        fenBefore = json["fen_before"]?.stringValue
        fenAfter = json["fen_after"]?.stringValue
        error = json["error"]?.stringValue
        transaction = json["transaction"]?.stringValue
        correction = json["correction"]?.stringValue.map { String($0.prefix(64)) }
    }
}

/// The bridge's answer to a command the audit log recorded: a journal line of its own
/// (`{"answers":12,"time":"…","outcome":"ok","fen_after":"…","error":null}`), so that the
/// log is only ever appended to.
public struct HallAuditAnswer: Equatable, Sendable {
    /// The ``HallAuditRecord/sequence`` of the command answered.
    public var answers: Int
    /// When the answer came (ms since 1970).
    public var time: Double
    /// `ok` or `refused`.
    public var outcome: String
    /// The game position after the command, from the answer's `data.fen`.
    public var fenAfter: String?
    /// Why it was refused.
    public var error: String?

    /// Creates an answer.
    public init(answers: Int, time: Double, outcome: String, fenAfter: String?, error: String?) {
        self.answers = answers
        self.time = time
        self.outcome = outcome
        self.fenAfter = fenAfter
        self.error = error
    }

    /// The journal line.
    public var json: JSONValue {
        [
            "answers": JSONValue(answers),
            "time": .string(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: time / 1000))),
            "outcome": .string(outcome), "fen_after": JSONValue(fenAfter), "error": JSONValue(error),
        ]
    }

    /// An answer read back from its journal line, or `nil`.
    public init?(json: JSONValue) {
        guard let answers = json["answers"]?.intValue, let outcome = json["outcome"]?.stringValue,
            let time = ISO8601Timestamp.milliseconds(json["time"]?.stringValue)
        else { return nil }
        self.init(
            answers: answers, time: time, outcome: outcome, fenAfter: json["fen_after"]?.stringValue,
            error: json["error"]?.stringValue)
    }
}

/// What a download of the audit log is.
public enum HallAuditFormat: Equatable, Sendable {
    /// One JSON object per line (``HallAuditRecord/json``, answers merged in).
    case jsonLines
    /// A report for people (``HallAuditReport``).
    case text
}
