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
        var lines: [String] = []
        for name in Self.sevenTagRoster {
            let value = name == "Result" ? result.rawValue : tags[name] ?? (name == "Date" ? "????.??.??" : "?")
            lines.append(Self.tagLine(name, value))
        }
        for name in ["Board", "TimeControl"] {
            if let value = tags[name] { lines.append(Self.tagLine(name, value)) }
        }
        for tag in tags.all where !Self.orderedOrDerivedTags.contains(tag.name) && Self.isSymbol(tag.name) {
            lines.append(Self.tagLine(tag.name, tag.value))
        }
        if startPosition != .starting {
            lines.append(Self.tagLine("SetUp", "1"))
            lines.append(Self.tagLine("FEN", startPosition.fen))
        }
        return lines.joined(separator: "\n") + "\n\n" + Self.wrap(movetextTokens, width: 80) + "\n"
    }

    private var movetextTokens: [String] {
        var tokens: [String] = []
        var blackNeedsNumber = true
        for (ply, record) in moves.enumerated() {
            let before = positions[ply]
            // A move number stays on the line of its move.
            if before.sideToMove == .white {
                tokens.append("\(before.fullmoveNumber). \(record.san)")
            } else if blackNeedsNumber {
                tokens.append("\(before.fullmoveNumber)... \(record.san)")
            } else {
                tokens.append(record.san)
            }
            var words: [String] = []
            if let clock = record.clock, let text = Self.clockText(clock) { words.append("[%clk \(text)]") }
            if let comment = record.comment {
                words += comment.split(whereSeparator: { $0.isWhitespace || $0 == "}" }).map(String.init)
            }
            blackNeedsNumber = !words.isEmpty
            if !words.isEmpty {
                words[0] = "{ " + words[0]
                words[words.count - 1] += " }"
                tokens += words
            }
        }
        tokens.append(result.rawValue)
        return tokens
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

    private static func tagLine(_ name: String, _ value: String) -> String {
        var escaped = ""
        for character in value where !character.isNewline {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return "[\(name) \"\(escaped)\"]"
    }

    /// Whether `name` is a PGN symbol usable as a tag name.
    static func isSymbol(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Joins `tokens` with spaces into lines of at most `width` characters (a longer
    /// token gets a line of its own).
    private static func wrap(_ tokens: [String], width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for token in tokens {
            if line.isEmpty {
                line = token
            } else if line.count + 1 + token.count <= width {
                line += " " + token
            } else {
                lines.append(line)
                line = token
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
