import BoardKit
import Chess
import FoundationEssentials
import JSON

extension SessionJournalEntry {
    /// The entry as one line of JSON (ending in a newline) in exactly the form its `Codable`
    /// conformance reads, written directly: `JSONEncoder` took 50–200 µs for an entry, on
    /// the path of every move — and on the first move of every game whose orientation is
    /// detected, which carries it. `nil` when the entry carries one of the rarely changing
    /// structured settings (input path, tracker options) or a value JSON cannot hold (a
    /// non-finite time); encode those with `JSONEncoder`.
    public func jsonLine() -> [UInt8]? {
        guard inputPath == nil, options == nil else { return nil }
        var line = JSONLine()
        line.open()
        line.key("sequence")
        line.integer(sequence)
        line.key("keptPlies")
        line.integer(keptPlies)
        line.key("moves")
        line.append("[")
        for (index, record) in moves.enumerated() {
            if index > 0 { line.append(",") }
            line.record(record)
        }
        line.append("]")
        line.key("result")
        line.string(result.rawValue)
        line.key("clock")
        line.clock(clock)
        line.key("clockWasRunning")
        line.append(clockWasRunning ? "true" : "false")
        line.key("savedAt")
        line.number(savedAt)
        if let clockStart {
            line.key("clockStart")
            line.string(clockStart.rawValue)
        }
        if let orientation {
            line.key("orientation")
            line.string(orientation.rawValue)
        }
        line.close()
        line.append("\n")
        return line.isValid ? line.bytes : nil
    }
}

/// A JSON text built byte by byte (the subset journal entries need).
private struct JSONLine {
    var bytes: [UInt8] = []
    /// Whether every number was finite.
    var isValid = true
    private var needsComma = false

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func open() {
        append("{")
        needsComma = false
    }

    mutating func close() {
        append("}")
        needsComma = true
    }

    mutating func key(_ name: StaticString) {
        if needsComma { append(",") }
        append("\"")
        append(name)
        append("\":")
        needsComma = true
    }

    mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func number(_ value: Double) {
        guard value.isFinite else {
            isValid = false
            append("0")
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func string(_ value: String) {
        JSONText.appendQuoted(value, to: &bytes)
    }

    /// `"name":value`, or nothing when `value` is `nil` (as `Codable` leaves it out).
    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// `"name":value`, or nothing when `value` is `nil`.
    mutating func member(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    /// `"name":value`, or nothing when `value` is `nil`.
    mutating func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    mutating func color(_ color: PieceColor) {
        string(color.rawValue)
    }

    /// A `GameMove`: optional members are left out when `nil`, as `Codable` does.
    mutating func record(_ record: GameMove) {
        open()
        key("move")
        open()
        key("from")
        integer(record.move.from.rawValue)
        key("to")
        integer(record.move.to.rawValue)
        member("promotion", record.move.promotion?.rawValue)
        close()
        key("san")
        string(record.san)
        member("fenAfter", record.fenAfter)
        member("clock", record.clock)
        member("timestamp", record.timestamp)
        member("comment", record.comment)
        close()
    }

    mutating func clock(_ clock: GameClock) {
        open()
        key("timeControl")
        timeControl(clock.timeControl)
        key("state")
        open()
        switch clock.state {
        case .notStarted: caseWithoutValue("notStarted")
        case .stopped: caseWithoutValue("stopped")
        case .running(let side): caseWithColor("running", side)
        case .paused(let side): caseWithColor("paused", side)
        case .flagged(let side): caseWithColor("flagged", side)
        }
        close()
        key("movesMade")
        integers(clock.movesMade)
        key("periodIndex")
        integers(clock.periodIndex)
        key("movesInPeriod")
        integers(clock.movesInPeriod)
        key("settled")
        numbers(clock.settled)
        key("settledAt")
        number(clock.settledAt)
        close()
    }

    private mutating func caseWithoutValue(_ name: StaticString) {
        key(name)
        open()
        close()
    }

    private mutating func caseWithColor(_ name: StaticString, _ side: PieceColor) {
        key(name)
        open()
        key("_0")
        color(side)
        close()
    }

    private mutating func integers(_ pair: ColorPair<Int>) {
        open()
        member("white", pair.white)
        member("black", pair.black)
        close()
    }

    private mutating func numbers(_ pair: ColorPair<Double>) {
        open()
        member("white", pair.white)
        member("black", pair.black)
        close()
    }

    private mutating func timeControl(_ control: TimeControl) {
        open()
        switch control {
        case .unknown: caseWithoutValue("unknown")
        case .unlimited: caseWithoutValue("unlimited")
        case .sandclock(let seconds):
            key("sandclock")
            open()
            key("seconds")
            number(seconds)
            close()
        case .periods(let periods):
            key("periods")
            open()
            key("_0")
            append("[")
            needsComma = false
            for (index, period) in periods.enumerated() {
                if index > 0 { append(",") }
                open()
                member("moves", period.moves)
                key("seconds")
                number(period.seconds)
                key("increment")
                number(period.increment)
                close()
            }
            append("]")
            needsComma = true
            close()
        }
        close()
    }
}
