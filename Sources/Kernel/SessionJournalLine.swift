import FoundationEssentials

/// One line of a board's journal: a ``SessionJournalEntry`` as JSON, framed so that the
/// line checks itself.
///
/// The format (written since issue #16):
///
///     J1 <length> <crc> <json>\n
///
/// `J1` marks the framing; `<length>` is the byte count of `<json>` in decimal; `<crc>` is
/// the ``CRC32`` of those bytes as eight lower-case hexadecimal digits; `<json>` is the
/// entry in the form its `Codable` conformance reads (it never holds a raw newline). A line
/// whose length or checksum does not match is refused, so a torn write, a partial write
/// (disk full) or garbage is never mistaken for an entry. Lines written before the framing
/// (`<json>\n` alone) are still read: JSON decoding and the replay's own checks are all
/// they get.
///
/// A line that is not valid from its first byte is searched for a valid line starting
/// later in it (framed, or a bare `{"sequence":` entry before any `J1 `): a torn line that
/// a previous version appended to leaves the next entry glued to its fragment, and that
/// entry is recovered.
public enum SessionJournalLine {
    /// The most bytes a line's JSON may have (entries are well under a kilobyte).
    public static let maximumLength = 1 << 20

    /// What a line holds.
    public enum Parsed: Equatable, Sendable {
        /// An entry, from a framed line (`framed`) or a line of the old format, which
        /// started at byte `offset` of the line (0 unless garbage preceded it).
        case entry(SessionJournalEntry, framed: Bool, offset: Int)
        /// No entry: why.
        case invalid(String)
    }

    /// `json` (one entry, without a newline) framed as a journal line, newline included.
    public static func frame(_ json: some Collection<UInt8>) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(json.count + 24)
        line.append(contentsOf: "J1 \(json.count) ".utf8)
        let crc = CRC32.checksum(json)
        for shift in stride(from: 28, through: 0, by: -4) {
            line.append(hexDigits[Int((crc >> UInt32(shift)) & 0xF)])
        }
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: json)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let oldStart = Array(#"{"sequence":"#.utf8)
    private static let framing = Array("J1 ".utf8)

    /// Reads one line (without its newline).
    public static func parse(_ line: ArraySlice<UInt8>) -> Parsed {
        let whole = parse(line, at: line.startIndex)
        if case .entry = whole { return whole }
        // Something valid later in the line (after garbage or a torn fragment)? An unframed
        // entry only before any frame: the JSON of a framed line whose checksum failed
        // must not be read without it.
        var framingSeen = false
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if byte == UInt8(ascii: "J"), line[index...].starts(with: framing) {
                framingSeen = true
                if index > line.startIndex, case .entry(let entry, _, _) = parse(line, at: index) {
                    return .entry(entry, framed: true, offset: index - line.startIndex)
                }
            } else if byte == UInt8(ascii: "{"), !framingSeen, index > line.startIndex,
                case .entry(let entry, _, _) = parse(line, at: index)
            {
                return .entry(entry, framed: false, offset: index - line.startIndex)
            }
            index += 1
        }
        return whole
    }

    /// Reads the line from `start` to its end, framed or old-style.
    private static func parse(_ line: ArraySlice<UInt8>, at start: Int) -> Parsed {
        let rest = line[start...]
        if rest.first == UInt8(ascii: "{") {
            guard rest.starts(with: oldStart) else { return .invalid("not a journal entry") }
            return decode(rest).map { .entry($0, framed: false, offset: start - line.startIndex) }
                ?? .invalid("unreadable JSON")
        }
        guard rest.starts(with: framing) else {
            return .invalid("not a journal line")
        }
        var index = rest.startIndex + 3
        var length = 0
        var digits = 0
        while index < rest.endIndex, let digit = decimal(rest[index]) {
            length = length * 10 + digit
            digits += 1
            guard digits <= 7, length <= maximumLength else { return .invalid("length out of range") }
            index += 1
        }
        guard digits > 0, index < rest.endIndex, rest[index] == UInt8(ascii: " ") else {
            return .invalid("no length")
        }
        index += 1
        var crc: UInt32 = 0
        for _ in 0..<8 {
            guard index < rest.endIndex, let digit = hexadecimal(rest[index]) else { return .invalid("no checksum") }
            crc = crc << 4 | UInt32(digit)
            index += 1
        }
        guard index < rest.endIndex, rest[index] == UInt8(ascii: " ") else { return .invalid("no checksum") }
        index += 1
        guard rest.endIndex - index == length else {
            return .invalid("\(rest.endIndex - index) bytes where the line says \(length)")
        }
        let json = rest[index...]
        guard CRC32.checksum(json) == crc else { return .invalid("checksum mismatch") }
        return decode(json).map { .entry($0, framed: true, offset: start - line.startIndex) }
            ?? .invalid("unreadable JSON under a valid checksum")
    }

    /// The entry, read directly where it can be (a line as the bridge writes it), else with
    /// `JSONDecoder` (``SessionJournalEntry/init(journalJSON:)`` says which).
    private static func decode(_ json: ArraySlice<UInt8>) -> SessionJournalEntry? {
        SessionJournalEntry(journalJSON: json)
            ?? (try? JSONDecoder().decode(SessionJournalEntry.self, from: Data(json)))
    }

    private static func decimal(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func hexadecimal(_ byte: UInt8) -> Int? {
        if let value = decimal(byte) { return value }
        return (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) ? Int(byte - UInt8(ascii: "a")) + 10 : nil
    }
}

extension SessionJournalEntry {
    /// The entry as one framed journal line (``SessionJournalLine``), newline included:
    /// written directly (``jsonLine()``) when it can be, else with `JSONEncoder`.
    public func journalLine() throws -> [UInt8] {
        if let direct = jsonLine() { return SessionJournalLine.frame(direct.dropLast()) }
        return SessionJournalLine.frame(try JSONEncoder().encode(self))
    }
}
