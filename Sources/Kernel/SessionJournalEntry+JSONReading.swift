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
        guard let value = try? JSONValue(parsing: bytes), let entry = value.objectValue,
            entry["inputPath"].isAbsent, entry["options"].isAbsent,
            let sequence = entry["sequence"]?.exactInt, let keptPlies = entry["keptPlies"]?.exactInt,
            let moveValues = entry["moves"]?.arrayValue,
            let result = entry["result"]?.stringValue.flatMap(GameResult.init(rawValue:)),
            let clock = entry["clock"].flatMap(GameClock.init(journalJSON:)),
            let clockWasRunning = entry["clockWasRunning"]?.boolValue, let savedAt = entry["savedAt"]?.doubleValue
        else { return nil }
        var moves: [GameMove] = []
        moves.reserveCapacity(moveValues.count)
        for moveValue in moveValues {
            guard let move = GameMove(journalJSON: moveValue) else { return nil }
            moves.append(move)
        }
        var clockStart: ClockStartPolicy?
        if !entry["clockStart"].isAbsent {
            guard let text = entry["clockStart"]?.stringValue, let policy = ClockStartPolicy(rawValue: text) else {
                return nil
            }
            clockStart = policy
        }
        var orientation: BoardOrientation?
        if !entry["orientation"].isAbsent {
            guard let text = entry["orientation"]?.stringValue, let side = BoardOrientation(rawValue: text) else {
                return nil
            }
            orientation = side
        }
        self.init(
            sequence: sequence, keptPlies: keptPlies, moves: moves, result: result, clock: clock,
            clockWasRunning: clockWasRunning, savedAt: savedAt, clockStart: clockStart, orientation: orientation)
    }
}

extension GameMove {
    /// A move record as `Codable` reads it (see ``SessionJournalEntry/init(journalJSON:)``).
    fileprivate init?(journalJSON value: JSONValue) {
        guard let record = value.objectValue, let move = record["move"]?.objectValue,
            let fromIndex = move["from"]?.exactInt, let from = Square(rawValue: fromIndex),
            let toIndex = move["to"]?.exactInt, let to = Square(rawValue: toIndex),
            let san = record["san"]?.stringValue
        else { return nil }
        var promotion: PieceKind?
        if !move["promotion"].isAbsent {
            guard let text = move["promotion"]?.stringValue, let kind = PieceKind(rawValue: text) else { return nil }
            promotion = kind
        }
        guard let fenAfter = record["fenAfter"].optionalString, let clock = record["clock"].optionalNumber,
            let timestamp = record["timestamp"].optionalNumber, let comment = record["comment"].optionalString
        else { return nil }
        self.init(
            move: BoardMove(from: from, to: to, promotion: promotion), san: san, fenAfter: fenAfter.value,
            clock: clock.value, timestamp: timestamp.value, comment: comment.value)
    }
}

extension GameClock {
    /// A clock as `Codable` reads it (see ``SessionJournalEntry/init(journalJSON:)``).
    fileprivate init?(journalJSON value: JSONValue) {
        guard let clock = value.objectValue,
            let timeControl = clock["timeControl"].flatMap(TimeControl.init(journalJSON:)),
            let state = clock["state"].flatMap(State.init(journalJSON:)),
            let movesMade = clock["movesMade"].flatMap(ColorPair<Int>.init(journalJSON:)),
            let periodIndex = clock["periodIndex"].flatMap(ColorPair<Int>.init(journalJSON:)),
            let movesInPeriod = clock["movesInPeriod"].flatMap(ColorPair<Int>.init(journalJSON:)),
            let settled = clock["settled"].flatMap(ColorPair<Double>.init(journalJSON:)),
            let settledAt = clock["settledAt"]?.doubleValue
        else { return nil }
        self.init(
            timeControl: timeControl, state: state, movesMade: movesMade, periodIndex: periodIndex,
            movesInPeriod: movesInPeriod, settled: settled, settledAt: settledAt)
    }
}

extension GameClock.State {
    /// `{"running":{"_0":"white"}}`, `{"stopped":{}}`: one member, as `Codable` writes an
    /// enum's case.
    fileprivate init?(journalJSON value: JSONValue) {
        guard let (name, payload) = value.singleCase else { return nil }
        switch name {
        case "notStarted": self = .notStarted
        case "stopped": self = .stopped
        case "running", "paused", "flagged":
            guard let text = payload["_0"]?.stringValue, let side = PieceColor(rawValue: text) else { return nil }
            self = name == "running" ? .running(side) : name == "paused" ? .paused(side) : .flagged(side)
        default: return nil
        }
    }
}

extension TimeControl {
    /// One member naming the case, as `Codable` writes it (see ``GameClock/State``).
    fileprivate init?(journalJSON value: JSONValue) {
        guard let (name, payload) = value.singleCase else { return nil }
        switch name {
        case "unknown": self = .unknown
        case "unlimited": self = .unlimited
        case "sandclock":
            guard let seconds = payload["seconds"]?.doubleValue else { return nil }
            self = .sandclock(seconds: seconds)
        case "periods":
            guard let values = payload["_0"]?.arrayValue else { return nil }
            var periods: [TimeControlPeriod] = []
            for value in values {
                guard let period = value.objectValue, let moves = period["moves"].optionalInt,
                    let seconds = period["seconds"]?.doubleValue, let increment = period["increment"]?.doubleValue
                else { return nil }
                periods.append(TimeControlPeriod(moves: moves.value, seconds: seconds, increment: increment))
            }
            self = .periods(periods)
        default: return nil
        }
    }
}

extension ColorPair where Value == Int {
    fileprivate init?(journalJSON value: JSONValue) {
        guard let white = value["white"]?.exactInt, let black = value["black"]?.exactInt else { return nil }
        self.init(white: white, black: black)
    }
}

extension ColorPair where Value == Double {
    fileprivate init?(journalJSON value: JSONValue) {
        guard let white = value["white"]?.doubleValue, let black = value["black"]?.doubleValue else { return nil }
        self.init(white: white, black: black)
    }
}

/// An optional member read: `value` is `nil` when the member is absent or `null`.
private struct Present<Wrapped> {
    var value: Wrapped?
}

extension JSONValue {
    /// A whole number that fits an `Int` exactly.
    fileprivate var exactInt: Int? {
        guard case .number(let number) = self, let whole = Int(exactly: number) else { return nil }
        return whole
    }

    /// An object of one member (an enum case as `Codable` writes it): its name and value.
    fileprivate var singleCase: (String, JSONValue)? {
        guard let object = objectValue, object.members.count == 1, let member = object.members.first,
            member.value.objectValue != nil
        else { return nil }
        return (member.key, member.value)
    }
}

extension Optional where Wrapped == JSONValue {
    /// Absent or `null`: an optional member `Codable` reads as `nil`.
    fileprivate var isAbsent: Bool { self == nil || self == .null }

    /// An optional string member; `nil` (reject) when it holds anything else.
    fileprivate var optionalString: Present<String>? {
        if isAbsent { return Present(value: nil) }
        return self?.stringValue.map { Present(value: $0) }
    }

    /// An optional number member; `nil` (reject) when it holds anything else.
    fileprivate var optionalNumber: Present<Double>? {
        if isAbsent { return Present(value: nil) }
        return self?.doubleValue.map { Present(value: $0) }
    }

    /// An optional whole-number member; `nil` (reject) when it holds anything else.
    fileprivate var optionalInt: Present<Int>? {
        if isAbsent { return Present(value: nil) }
        return self?.exactInt.map { Present(value: $0) }
    }
}
