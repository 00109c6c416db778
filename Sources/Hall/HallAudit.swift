public import Bridge
public import JSON

/// The arbiter's audit log (issue #30): every arbiter action and every correction a bridge
/// made, as the hall sees them on the broker. Pure: it turns what happens into journal
/// lines (``Line``) and keeps the newest ``memoryLimit`` entries; ``HallAuditJournal``
/// writes the lines and reads them back at start.
///
/// - Arbiter actions through the hall are recorded when sent (``recordAction``), signed
///   with the account's name; the bridge's answer, matched by `transaction`, completes
///   them (outcome, the position after, the reason of a refusal).
/// - Game commands other MQTT clients send to a board's `set` topic are recorded the same
///   way, as `mqtt` (the hall's own commands, `transaction` `hall-…`, are recorded once),
///   at the corrections' rate.
/// - Corrections are read from the bridges' messages: `out_of_sync` with `missed_moves`,
///   `illegal_move`, `result_claim`, and moves marked `recovered`. At most
///   ``correctionBurst`` a board at once and one a second after that: a flood costs a few
///   entries, counted in ``suppressedCorrections``.
public struct HallAudit: Sendable {
    /// Entries kept in memory (the journal keeps all).
    public static let memoryLimit = 20_000
    /// Commands waiting for their answer, at most.
    static let pendingLimit = 1024
    /// Corrections recorded per board at once, before the rate of one a second applies.
    static let correctionBurst = 30
    /// The commands recorded (what changes a game).
    static let gameCommands: Set<String> = HallRouter.commands.union(["orientation"])

    /// A journal line.
    public enum Line: Equatable, Sendable {
        /// A new entry.
        case record(HallAuditRecord)
        /// The answer to an entry.
        case answer(HallAuditAnswer)

        /// The line's JSON.
        public var json: JSONValue {
            switch self {
            case .record(let record): record.json
            case .answer(let answer): answer.json
            }
        }
    }

    /// The newest entries, oldest first, answers merged in.
    public private(set) var records: [HallAuditRecord] = []
    /// The sequence number the next entry gets.
    public private(set) var nextSequence = 1
    /// Corrections not recorded because a board sent too many.
    public private(set) var suppressedCorrections = 0
    /// Other clients' commands not recorded because a board got too many.
    public private(set) var suppressedCommands = 0
    /// Commands waiting for their answer: `board/transaction` → sequence.
    private var pending: [String: Int] = [:]
    private var limiter = RefusalLimiter(burst: HallAudit.correctionBurst, perSecond: 1)

    /// An empty log.
    public init() {}

    // MARK: Recording

    /// Records an arbiter's action on `board` (as it stands before), sent now (`now` in ms).
    /// A `transaction` makes the entry wait for the bridge's answer.
    public mutating func recordAction(
        _ action: String, detail: JSONValue, board: HallBoard?, id: String, by arbiter: String,
        transaction: String?, now: Double
    ) -> Line {
        var record = entry(action, detail: detail, board: board, id: id, source: .arbiter, who: arbiter, now: now)
        awaitAnswer(&record, transaction: transaction)
        append(record)
        return .record(record)
    }

    /// Reads one message of the base topic (before the hall model applies it: `board` is the
    /// board as it stood); returns the journal lines it makes. `commandName` is the last
    /// level of a `set/<name>` topic.
    public mutating func observe(
        _ kind: PublishedTopic, commandName: String?, json: JSONValue?, board: HallBoard?, now: Double
    ) -> [Line] {
        switch kind {
        case .boardCommand(let id):
            guard board != nil, let (name, value, transaction) = Self.command(json, name: commandName),
                Self.gameCommands.contains(name), !(transaction?.hasPrefix("hall-") ?? false)
            else { return [] }
            // A flood of commands from a client costs a few entries (and disk writes), as corrections do.
            guard case .answer = limiter.admit("mqtt " + id, at: now / 1000) else {
                suppressedCommands += 1
                return []
            }
            var record = entry(name, detail: value, board: board, id: id, source: .mqtt, who: "mqtt", now: now)
            awaitAnswer(&record, transaction: transaction)
            append(record)
            return [.record(record)]
        case .board(let id, .response):
            guard let transaction = json?["transaction"].flatMap(Self.text),
                let sequence = pending.removeValue(forKey: Self.key(id, transaction))
            else { return [] }
            let ok = json?["status"]?.stringValue == "ok"
            let answer = HallAuditAnswer(
                answers: sequence, time: now, outcome: ok ? "ok" : "refused",
                fenAfter: json?["data"]?["fen"]?.stringValue.map { String($0.prefix(128)) },
                error: ok ? nil : json?["error"]?.stringValue.map { String($0.prefix(HallModel.stringLimit)) })
            apply(answer)
            return [.answer(answer)]
        case .board(let id, .event):
            guard board != nil, let json, let type = json["event_type"]?.stringValue else { return [] }
            let fen = board?.state?["fen"]?.stringValue
            switch type {
            case "out_of_sync" where json["reason"]?.stringValue == BoardEventPayload.missedMovesReason:
                return correction(
                    "missed_moves", detail: Self.fields(json, ["squares", "candidates"]), board: board, id: id,
                    after: fen, now: now)
            case "illegal_move":
                return correction(
                    "illegal_move", detail: Self.fields(json, ["uci", "lan", "reason", "squares", "piece", "color"]),
                    board: board, id: id, after: fen, now: now)
            case "result_claim":
                return correction(
                    "result_claim", detail: Self.fields(json, ["result"]), board: board, id: id, after: fen, now: now)
            default:
                return []
            }
        case .board(let id, .move):
            guard board != nil, let json, json["recovered"]?.boolValue == true else { return [] }
            return correction(
                "recovered_move", detail: Self.fields(json, ["uci", "san", "ply"]), board: board, id: id,
                after: json["fen"]?.stringValue, now: now)
        default:
            return []
        }
    }

    /// Takes back a line of the journal (at start, oldest first).
    public mutating func replay(_ line: Line) {
        switch line {
        case .record(let record):
            append(record)
            if record.outcome == "sent", let transaction = record.transaction {
                expectAnswer(board: record.board, transaction: transaction, sequence: record.sequence)
            }
        case .answer(let answer):
            pending = pending.filter { $0.value != answer.answers }
            apply(answer)
        }
    }

    /// The entries of `round` and `board` (every one when `nil`), oldest first.
    public func entries(round: String? = nil, board: String? = nil) -> [HallAuditRecord] {
        records.filter { (round == nil || $0.round == round) && (board == nil || $0.board == board) }
    }

    // MARK: Internals

    private mutating func correction(
        _ action: String, detail: JSONValue, board: HallBoard?, id: String, after: String?, now: Double
    ) -> [Line] {
        guard case .answer(let suppressed) = limiter.admit(id, at: now / 1000) else {
            suppressedCorrections += 1
            return []
        }
        var detail = detail
        if suppressed > 0, case .object(var object) = detail {
            object["suppressed_before"] = JSONValue(suppressed)
            detail = .object(object)
        }
        var record = entry(
            action, detail: detail, board: board, id: id, source: .bridge, who: board?.node ?? "bridge", now: now)
        record.fenAfter = after.map { String($0.prefix(128)) }
        append(record)
        return [.record(record)]
    }

    private mutating func entry(
        _ action: String, detail: JSONValue, board: HallBoard?, id: String, source: HallAuditRecord.Source,
        who: String, now: Double
    ) -> HallAuditRecord {
        var record = HallAuditRecord(
            sequence: nextSequence, time: now, board: id, source: source, who: String(who.prefix(64)),
            action: action, detail: HallModel.bound(detail))
        let state = board?.state
        record.node = board?.node
        record.round = state?["game"]?["round"].flatMap(Self.text)
        record.white = state?["game"]?["white"]?.stringValue.map { String($0.prefix(255)) }
        record.black = state?["game"]?["black"]?.stringValue.map { String($0.prefix(255)) }
        record.ply = state?["ply"]?.intValue
        record.fenBefore = state?["fen"]?.stringValue.map { String($0.prefix(128)) }
        return record
    }

    private mutating func append(_ record: HallAuditRecord) {
        nextSequence = max(nextSequence, record.sequence + 1)
        records.append(record)
        if records.count > Self.memoryLimit { records.removeFirst(records.count - Self.memoryLimit + 1000) }
    }

    private mutating func apply(_ answer: HallAuditAnswer) {
        guard let index = records.lastIndex(where: { $0.sequence == answer.answers }) else { return }
        records[index].outcome = answer.outcome
        records[index].fenAfter = answer.fenAfter
        records[index].error = answer.error
    }

    /// A command with a `transaction` waits for the bridge's answer (``HallAuditAnswer``).
    private mutating func awaitAnswer(_ record: inout HallAuditRecord, transaction: String?) {
        guard let transaction else { return }
        record.outcome = "sent"
        record.transaction = transaction
        expectAnswer(board: record.board, transaction: transaction, sequence: record.sequence)
    }

    private mutating func expectAnswer(board: String, transaction: String, sequence: Int) {
        if pending.count >= Self.pendingLimit, let oldest = pending.min(by: { $0.value < $1.value }) {
            pending[oldest.key] = nil
        }
        pending[Self.key(board, transaction)] = sequence
    }

    private static func key(_ board: String, _ transaction: String) -> String { board + "/" + transaction }

    /// A transaction or round as text (a number is written as JSON writes it).
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): String(text.prefix(64))
        case .number: value.encodedString()
        default: nil
        }
    }

    /// The command of a `set` payload: its name, value and transaction.
    private static func command(_ json: JSONValue?, name: String?) -> (String, JSONValue, String?)? {
        if let name { return (name, json ?? .null, nil) }
        guard let object = json?.objectValue else { return nil }
        let keys = object.keys.filter { $0 != CommandParser.transactionKey }
        guard keys.count == 1, let key = keys.first, let value = object[key] else { return nil }
        return (key, value, object[CommandParser.transactionKey].flatMap(text))
    }

    private static func fields(_ json: JSONValue, _ keys: [String]) -> JSONValue {
        .object(JSONObject(uniqueKeysWithValues: keys.compactMap { key in json[key].map { (key, $0) } }))
    }
}
