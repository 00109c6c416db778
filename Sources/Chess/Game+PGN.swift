public import FoundationEssentials

extension Game {
    /// The Seven Tag Roster, in the order PGN export writes it.
    static let sevenTagRoster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]

    /// Tags PGN export writes itself, whatever ``tags`` says.
    private static let derivedTags: Set<String> = ["Result", "SetUp", "FEN"]
    /// The tags written before the others (the roster, `Board`, `TimeControl`) or derived:
    /// made once, not at every rendering (the PGN is published after every move).
    private static let orderedOrDerivedTags = Set(sevenTagRoster + ["Board", "TimeControl"]).union(derivedTags)

    /// The game in PGN export format.
    ///
    /// Header: the Seven Tag Roster in order (missing values as `?`, the date as
    /// `????.??.??`, `Result` from ``result``), then `Board` and `TimeControl` when set,
    /// the other tags in their order (names that are not PGN symbols are skipped), and
    /// `SetUp "1"` with `FEN` when the game did not start from the standard position.
    /// Movetext: move numbers, SAN, each move's `[%clk h:mm:ss]` and comment in one
    /// `{ … }`, `N...` before a Black move that follows a comment, the result; lines
    /// at most 80 characters. NAGs, variations and `timestamp`s are not written.
    public var pgn: String {
        // One string grown in place (the bridge publishes the PGN after every move).
        var text = ""
        text.reserveCapacity(512 + 12 * moves.count)
        for name in Self.sevenTagRoster {
            let value = name == "Result" ? result.rawValue : tags[name] ?? (name == "Date" ? "????.??.??" : "?")
            Self.appendTagLine(name, value, to: &text)
        }
        for name in ["Board", "TimeControl"] {
            if let value = tags[name] { Self.appendTagLine(name, value, to: &text) }
        }
        for tag in tags.all where !Self.orderedOrDerivedTags.contains(tag.name) && Self.isSymbol(tag.name) {
            Self.appendTagLine(tag.name, tag.value, to: &text)
        }
        if startPosition != .starting {
            Self.appendTagLine("SetUp", "1", to: &text)
            Self.appendTagLine("FEN", startPosition.fen, to: &text)
        }
        text += "\n"
        text += movetext.text(ending: result.rawValue)
        text += "\n"
        return text
    }

    /// `h:mm:ss`, with tenths (`h:mm:ss.s`) only when they are not zero; `nil` for a
    /// clock that is not a finite number. PGN's `[%clk]` and the `WhiteClock` /
    /// `BlackClock` tags of relays use it.
    public static func clockText(_ clock: TimeInterval) -> String? {
        guard clock.isFinite else { return nil }
        let tenths = Int((max(clock, 0) * 10).rounded())
        let seconds = tenths / 10
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(seconds / 3600):\(twoDigits(seconds / 60 % 60)):\(twoDigits(seconds % 60))"
        if tenths % 10 != 0 { text += ".\(tenths % 10)" }
        return text
    }

    /// `[Name "value"]` and a newline, the value's backslashes and quotes escaped and its
    /// line breaks left out.
    private static func appendTagLine(_ name: String, _ value: String, to text: inout String) {
        text += "["
        text += name
        text += " \""
        // Printable ASCII without a backslash or quote (names, dates, results) goes in whole.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "\"") }) {
            text += value
        } else {
            for character in value where !character.isNewline {
                if character == "\\" || character == "\"" { text.append("\\") }
                text.append(character)
            }
        }
        text += "\"]\n"
    }

    /// Whether `name` is a PGN symbol usable as a tag name.
    static func isSymbol(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}

/// A game's movetext without its result, wrapped to lines of at most 80 characters, kept
/// move by move: ``Game/play(_:clock:timestamp:)`` appends the move, a changed clock or
/// comment of the last move makes that move's tokens again, any other change of the moves
/// renders them all again. The PGN is published after every move, and rendering every
/// move each time cost the bridge more the longer the game went on.
///
/// Tokens: the move number with the move (`12. Nf3`; `12... Nf6` for a Black move that
/// opens the text or follows a comment), each move's `[%clk h:mm:ss]` and comment in one
/// `{ … }` (a comment's words split at white space and `}`), joined by spaces; a token that
/// does not fit ends the line (a longer one gets a line of its own).
struct PGNMovetext: Sendable {
    /// The line width.
    static let width = 80

    /// The lines filled so far.
    private var lines: [String] = []
    /// The line being filled.
    private var line = ""
    /// `line.count`, kept (counting a string's characters walks it).
    private var lineLength = 0
    private var blackNeedsNumber = true
    /// Where the text stood before the last move was added: its tokens can be made again
    /// alone (``replaceLast(with:playedIn:)``) when its clock or comment changes — the
    /// bridge records the mover's clock on each move just after playing it.
    private var beforeLast: (lines: Int, line: String, lineLength: Int, blackNeedsNumber: Bool)?

    /// The movetext of no moves.
    init() {}

    /// The movetext of `game`'s moves, rendered from the first.
    init(rendering game: Game) {
        for (ply, record) in game.moves.enumerated() { append(record, playedIn: game.positions[ply]) }
    }

    /// Adds `record`, played in `position`.
    mutating func append(_ record: GameMove, playedIn position: Position) {
        beforeLast = (lines.count, line, lineLength, blackNeedsNumber)
        if position.sideToMove == .white {
            add("\(position.fullmoveNumber). \(record.san)")
        } else if blackNeedsNumber {
            add("\(position.fullmoveNumber)... \(record.san)")
        } else {
            add(record.san)
        }
        var words: [String] = []
        if let clock = record.clock, let text = Game.clockText(clock) { words.append("[%clk \(text)]") }
        if let comment = record.comment {
            words += comment.split(whereSeparator: { $0.isWhitespace || $0 == "}" }).map(String.init)
        }
        blackNeedsNumber = !words.isEmpty
        guard !words.isEmpty else { return }
        words[0] = "{ " + words[0]
        words[words.count - 1] += " }"
        for word in words { add(word) }
    }

    /// Makes the last move's tokens again as `record`, played in `position` (its clock or
    /// comment changed); `false`, changing nothing, when there is no last move.
    mutating func replaceLast(with record: GameMove, playedIn position: Position) -> Bool {
        guard let saved = beforeLast else { return false }
        // Adding the move only filled the line and added lines after the ones kept.
        lines.removeLast(lines.count - saved.lines)
        line = saved.line
        lineLength = saved.lineLength
        blackNeedsNumber = saved.blackNeedsNumber
        append(record, playedIn: position)
        return true
    }

    /// The movetext followed by `result`'s token, its lines joined by newlines.
    func text(ending result: String) -> String {
        var ended = self
        ended.add(result)
        var text = ended.lines.joined(separator: "\n")
        if !ended.line.isEmpty {
            if !text.isEmpty { text += "\n" }
            text += ended.line
        }
        return text
    }

    private mutating func add(_ token: String) {
        let length = token.count
        if line.isEmpty {
            line = token
            lineLength = length
        } else if lineLength + 1 + length <= Self.width {
            line += " " + token
            lineLength += 1 + length
        } else {
            lines.append(line)
            line = token
            lineLength = length
        }
    }
}
