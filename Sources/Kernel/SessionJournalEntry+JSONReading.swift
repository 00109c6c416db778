import BoardKit
import Chess
import FoundationEssentials
import JSON

extension SessionJournalEntry {
    /// Reads the JSON of a journal line as ``jsonLine()`` writes it, field by field, with
    /// the same meaning its `Codable` conformance gives them (absent or `null` optionals are
    /// `nil`, other members are ignored). `JSONDecoder` took about 36 µs a line, and a board
    /// restores every line of its journal (up to 256) when the bridge starts.
    ///
    /// `nil` for anything else — an entry with the rarely changing structured settings
    /// (input path, tracker options), or JSON this reader does not know — which the caller
    /// then reads with `JSONDecoder`: whatever this reader returns, `JSONDecoder` returns too.
    init?(journalJSON bytes: ArraySlice<UInt8>) {
        do throws(JournalDecline) {
            guard let value = try? JSONValue(parsing: bytes) else { return nil }
            let entry = try value.object()
            guard entry.optional("inputPath") == nil, entry.optional("options") == nil else { return nil }
            self.init(
                sequence: try entry.value("sequence").int(), keptPlies: try entry.value("keptPlies").int(),
                moves: try entry.value("moves").array().map { (move) throws(JournalDecline) in
                    try GameMove(journal: move)
                },
                result: try entry.value("result").raw(GameResult.self),
                clock: try GameClock(journal: entry.value("clock")),
                clockWasRunning: try entry.value("clockWasRunning").bool(),
                savedAt: try entry.value("savedAt").double(),
                clockStart: try entry.optional("clockStart")?.raw(ClockStartPolicy.self),
                orientation: try entry.optional("orientation")?.raw(BoardOrientation.self))
        } catch {
            return nil
        }
    }
}

/// A journal line the direct reader leaves to `JSONDecoder`.
private struct JournalDecline: Error {}

extension GameMove {
    /// A move record as `Codable` reads it.
    fileprivate init(journal value: JSONValue) throws(JournalDecline) {
        let record = try value.object()
        let move = try record.value("move").object()
        guard let from = Square(rawValue: try move.value("from").int()),
            let to = Square(rawValue: try move.value("to").int())
        else { throw JournalDecline() }
        self.init(
            move: BoardMove(from: from, to: to, promotion: try move.optional("promotion")?.raw(PieceKind.self)),
            san: try record.value("san").string(), fenAfter: try record.optional("fenAfter")?.string(),
            clock: try record.optional("clock")?.double(), timestamp: try record.optional("timestamp")?.double(),
            comment: try record.optional("comment")?.string())
    }
}

extension GameClock {
    /// A clock as `Codable` reads it.
    fileprivate init(journal value: JSONValue) throws(JournalDecline) {
        let clock = try value.object()
        self.init(
            timeControl: try TimeControl(journal: clock.value("timeControl")),
            state: try State(journal: clock.value("state")),
            movesMade: try ColorPair(journal: clock.value("movesMade")),
            periodIndex: try ColorPair(journal: clock.value("periodIndex")),
            movesInPeriod: try ColorPair(journal: clock.value("movesInPeriod")),
            settled: try ColorPair(journal: clock.value("settled")),
            settledAt: try clock.value("settledAt").double())
    }
}

extension GameClock.State {
    /// `{"running":{"_0":"white"}}`, `{"stopped":{}}`: one member, as `Codable` writes an
    /// enum's case.
    fileprivate init(journal value: JSONValue) throws(JournalDecline) {
        let (name, payload) = try value.singleCase()
        switch name {
        case "notStarted": self = .notStarted
        case "stopped": self = .stopped
        case "running": self = .running(try payload.value("_0").raw(PieceColor.self))
        case "paused": self = .paused(try payload.value("_0").raw(PieceColor.self))
        case "flagged": self = .flagged(try payload.value("_0").raw(PieceColor.self))
        default: throw JournalDecline()
        }
    }
}

extension TimeControl {
    /// One member naming the case, as `Codable` writes it (see ``GameClock/State``).
    fileprivate init(journal value: JSONValue) throws(JournalDecline) {
        let (name, payload) = try value.singleCase()
        switch name {
        case "unknown": self = .unknown
        case "unlimited": self = .unlimited
        case "sandclock": self = .sandclock(seconds: try payload.value("seconds").double())
        case "periods":
            self = .periods(
                try payload.value("_0").array().map { (value) throws(JournalDecline) in
                    let period = try value.object()
                    return TimeControlPeriod(
                        moves: try period.optional("moves")?.int(), seconds: try period.value("seconds").double(),
                        increment: try period.value("increment").double())
                })
        default: throw JournalDecline()
        }
    }
}

/// A number a clock keeps per side (a count of moves, seconds).
private protocol JournalNumber {
    init(journal value: JSONValue) throws(JournalDecline)
}

extension Int: JournalNumber {
    fileprivate init(journal value: JSONValue) throws(JournalDecline) { self = try value.int() }
}

extension Double: JournalNumber {
    fileprivate init(journal value: JSONValue) throws(JournalDecline) { self = try value.double() }
}

extension ColorPair where Value: JournalNumber {
    /// `{"white":…,"black":…}`.
    fileprivate init(journal value: JSONValue) throws(JournalDecline) {
        let pair = try value.object()
        self.init(white: try Value(journal: pair.value("white")), black: try Value(journal: pair.value("black")))
    }
}

extension JSONObject {
    /// The member `key`, which must be there and not `null`.
    fileprivate func value(_ key: String) throws(JournalDecline) -> JSONValue {
        guard let value = optional(key) else { throw JournalDecline() }
        return value
    }

    /// The member `key`, `nil` when absent or `null` (an optional `Codable` reads as `nil`).
    fileprivate func optional(_ key: String) -> JSONValue? {
        guard let value = self[key], value != .null else { return nil }
        return value
    }
}

extension JSONValue {
    fileprivate func object() throws(JournalDecline) -> JSONObject {
        guard let object = objectValue else { throw JournalDecline() }
        return object
    }

    fileprivate func array() throws(JournalDecline) -> [JSONValue] {
        guard let array = arrayValue else { throw JournalDecline() }
        return array
    }

    fileprivate func string() throws(JournalDecline) -> String {
        guard let string = stringValue else { throw JournalDecline() }
        return string
    }

    fileprivate func double() throws(JournalDecline) -> Double {
        guard let number = doubleValue else { throw JournalDecline() }
        return number
    }

    fileprivate func bool() throws(JournalDecline) -> Bool {
        guard let bool = boolValue else { throw JournalDecline() }
        return bool
    }

    /// A whole number that fits an `Int` exactly.
    fileprivate func int() throws(JournalDecline) -> Int {
        guard case .number(let number) = self, let whole = Int(exactly: number) else { throw JournalDecline() }
        return whole
    }

    /// A string naming a case of `type`.
    fileprivate func raw<Raw: RawRepresentable>(_ type: Raw.Type) throws(JournalDecline) -> Raw
    where Raw.RawValue == String {
        guard let raw = Raw(rawValue: try string()) else { throw JournalDecline() }
        return raw
    }

    /// An object of one member whose value is an object (an enum case as `Codable` writes
    /// it): its name and value.
    fileprivate func singleCase() throws(JournalDecline) -> (String, JSONObject) {
        guard let object = objectValue, object.members.count == 1, let member = object.members.first,
            let payload = member.value.objectValue
        else { throw JournalDecline() }
        return (member.key, payload)
    }
}
