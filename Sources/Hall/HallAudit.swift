public import Contract
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
/// - Corrections (`missed_moves`, `illegal_move`, `recovered_move`, `result_claim`) are read
///   from each board's retained list (`<base>/<board>/corrections`, ``BoardCorrections``),
///   not from its live events: a hall that starts later, or was away, records what the
///   bridges corrected meanwhile. An entry is recorded once (its key is kept in the journal
///   line, and read back at start), with the bridge's time and the game as it stood then.
///   At most ``correctionBurst`` a board at once and one a second after that: invented
///   entries from a hostile publisher cost a few, counted in ``suppressedCorrections``.
public struct HallAudit: Sendable {
    /// Entries kept in memory (the journal keeps all).
    public static let memoryLimit = 20_000
    /// Commands waiting for their answer, at most.
    static let pendingLimit = 1024
    /// Corrections recorded per board at once, before the rate of one a second applies: a
    /// bridge's whole list (``BoardCorrections/limit``).
    static let correctionBurst = BoardCorrections.limit
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
    /// The bridges' corrections recorded (``BoardCorrections/Entry/key``), the newest per board.
    private var seenCorrections: [String: [String]] = [:]

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
        case .board(let id, .corrections):
            guard let json, let list = BoardCorrections(json: json, stringLimit: HallModel.stringLimit),
                list.board == id,
                board != nil || seenCorrections[id] != nil || seenCorrections.count < HallModel.boardLimit
            else { return [] }
            return list.entries.compactMap { entry in
                correction(entry, node: json["node"]?.stringValue ?? board?.node, board: id, now: now).map(Line.record)
            }
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

    /// Records a correction of a bridge's list unless it was recorded already (or the board
    /// sends too many: a hostile publisher's invented entries cost a few).
    private mutating func correction(
        _ correction: BoardCorrections.Entry, node: String?, board id: String, now: Double
    ) -> HallAuditRecord? {
        guard !seenCorrections[id, default: []].contains(correction.key) else { return nil }
        guard case .answer(let suppressed) = limiter.admit(id, at: now / 1000) else {
            suppressedCorrections += 1
            return nil
        }
        var detail = correction.detail
        if suppressed > 0, case .object(var object) = detail {
            object["suppressed_before"] = JSONValue(suppressed)
            detail = .object(object)
        }
        var record = HallAuditRecord(
            sequence: nextSequence, time: ISO8601Timestamp.milliseconds(correction.time) ?? now, board: id,
            source: .bridge, who: String((node ?? "bridge").prefix(64)), action: correction.action,
            detail: HallModel.bound(detail))
        record.node = node.map { String($0.prefix(64)) }
        record.round = correction.round.map { String($0.prefix(64)) }
        record.white = correction.white.map { String($0.prefix(255)) }
        record.black = correction.black.map { String($0.prefix(255)) }
        record.ply = correction.ply
        record.fenBefore = correction.fenBefore.map { String($0.prefix(128)) }
        record.fenAfter = correction.fenAfter.map { String($0.prefix(128)) }
        record.correction = correction.key
        append(record)
        return record
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
        if let key = record.correction { remember(key, board: record.board) }
        records.append(record)
        if records.count > Self.memoryLimit { records.removeFirst(records.count - Self.memoryLimit + 1000) }
    }

    /// Remembers a correction recorded; a board's newest keys are enough, since a bridge
    /// keeps no more than ``BoardCorrections/limit`` (and the boards are bounded too).
    private mutating func remember(_ key: String, board: String) {
        if seenCorrections[board] == nil, seenCorrections.count >= HallModel.boardLimit {
            seenCorrections.removeValue(forKey: seenCorrections.keys.first!)
        }
        var keys = seenCorrections[board, default: []]
        keys.append(key)
        if keys.count > 2 * BoardCorrections.limit { keys.removeFirst(keys.count - 2 * BoardCorrections.limit) }
        seenCorrections[board] = keys
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
}
