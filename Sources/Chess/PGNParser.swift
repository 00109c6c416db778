import FoundationEssentials

extension Game {
    /// Imports the first game of PGN text.
    ///
    /// Reads tag pairs (`FEN` sets the start position; `Result`, `SetUp` and `FEN` are
    /// not kept in ``tags``), move numbers (`12.`, `12...`), SAN moves (suffixes `+ # ! ?`
    /// allowed), `{…}` and `;` comments (a `[%clk h:mm:ss]` command becomes the move's
    /// ``GameMove/clock``, the remaining text its ``GameMove/comment``), NAGs (`$1`,
    /// skipped), variations (`( … )`, nested, skipped) and `%` escape lines. The result
    /// comes from the movetext's termination marker, else the `Result` tag.
    public init(pgn: String) throws(PGNError) {
        var parser = PGNParser(text: pgn)
        guard let game = try parser.nextGame() else { throw .empty }
        self = game
    }

    /// Imports every game of PGN text (an empty array for text with no game).
    public static func games(pgn: String) throws(PGNError) -> [Game] {
        var parser = PGNParser(text: pgn)
        var games: [Game] = []
        while let game = try parser.nextGame() { games.append(game) }
        return games
    }
}

/// A hand-written PGN reader: one game per ``nextGame()`` call.
struct PGNParser {
    private let characters: [Character]
    private var index = 0

    init(text: String) {
        characters = Array(text)
    }

    private static let delimiters: Set<Character> = ["{", "}", "(", ")", "[", "]", ";", "$"]
    private static let results: Set<String> = ["1-0", "0-1", "1/2-1/2", "*"]

    /// The next game, or `nil` at the end of the text.
    mutating func nextGame() throws(PGNError) -> Game? {
        var tags = PGNTags()
        var game: Game?
        var result: GameResult?
        var depth = 0
        var sawAnything = false

        reading: while index < characters.count {
            let character = characters[index]
            // A byte-order mark, as some sites write at the start of a file, counts as space.
            if character.isWhitespace || character == "\u{FEFF}" {
                index += 1
                continue
            }
            if character == "%", index == 0 || characters[index - 1].isNewline {
                skipLine()
                continue
            }
            switch character {
            case "[":
                // A tag after the movetext started opens the next game.
                if game != nil { break reading }
                let (name, value) = try readTag()
                sawAnything = true
                tags[name] = value
            case "{":
                let comment = try readComment()
                if depth == 0, var current = game {
                    attach(comment, to: &current)
                    game = current
                }
            case ";":
                index += 1
                let start = index
                skipLine()
                let comment = String(characters[start..<index])
                if depth == 0, var current = game {
                    attach(comment, to: &current)
                    game = current
                }
            case "(":
                index += 1
                depth += 1
            case ")":
                guard depth > 0 else { throw .unexpectedCharacter(")") }
                index += 1
                depth -= 1
            case "$":
                index += 1
                while index < characters.count, characters[index].isNumber { index += 1 }
            case "}", "]":
                throw .unexpectedCharacter(String(character))
            default:
                let token = readSymbol()
                sawAnything = true
                guard depth == 0 else { continue }
                if Self.results.contains(token) {
                    result = GameResult(rawValue: token)
                    if game == nil { game = try Self.makeGame(tags) }
                    break reading
                }
                let san = Self.droppingMoveNumber(token)
                // Move-number-only tokens, stand-alone annotations and "e.p." marks carry no move.
                guard !san.isEmpty, !san.allSatisfy({ "!?+#".contains($0) }), san != "e.p." else { continue }
                if game == nil { game = try Self.makeGame(tags) }
                guard var current = game else { continue }
                do {
                    try current.play(san: String(san))
                } catch {
                    let reason: SANError =
                        switch error {
                        case .invalidSAN(let reason): reason
                        case .illegalMove: .noSuchMove(String(san))
                        }
                    throw .invalidMove(san: String(san), ply: current.moves.count, reason: reason)
                }
                game = current
            }
        }
        guard depth == 0 else { throw .unterminatedVariation }
        guard sawAnything else { return nil }
        var finished: Game
        if let game { finished = game } else { finished = try Self.makeGame(tags) }
        finished.result = result ?? tags["Result"].flatMap(GameResult.init(rawValue:)) ?? finished.result
        finished.tags["Result"] = nil
        return finished
    }

    private static func makeGame(_ tags: PGNTags) throws(PGNError) -> Game {
        var kept = tags
        var start = Position.starting
        if let fen = tags["FEN"] {
            do {
                start = try Position(fen: fen)
            } catch {
                throw .invalidFEN(error)
            }
        }
        kept["FEN"] = nil
        kept["SetUp"] = nil
        kept["Result"] = nil
        return Game(startPosition: start, tags: kept)
    }

    /// `12.e4` → `e4`, `12...` → empty, `e4` and `0-0` unchanged.
    private static func droppingMoveNumber(_ token: String) -> Substring {
        let digits = token.prefix { $0.isASCII && $0.isNumber }
        let rest = token.dropFirst(digits.count)
        guard !digits.isEmpty, rest.first == "." else { return Substring(token) }
        return rest.drop { $0 == "." }
    }

    /// Adds a comment to the last move: a `[%clk …]` command sets its clock, the rest of
    /// the text is appended to its comment.
    private func attach(_ comment: String, to game: inout Game) {
        let ply = game.moves.count - 1
        guard ply >= 0 else { return }
        var text = comment
        if let open = text.firstRange(of: "[%clk"), let close = text[open.upperBound...].firstIndex(of: "]") {
            if let clock = Self.parseClock(text[open.upperBound..<close]) { game.setClock(clock, forPly: ply) }
            text.removeSubrange(open.lowerBound...close)
        }
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return }
        let previous = game.moves[ply].comment
        game.setComment(previous.map { $0 + " " + words } ?? words, forPly: ply)
    }

    /// `1:02:03`, `2:03`, `1:02:03.5` → seconds; `nil` for anything else.
    static func parseClock(_ text: some StringProtocol) -> TimeInterval? {
        let parts = text.trimmingWhitespace.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total: TimeInterval = 0
        for part in parts {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            total = total * 60 + value
        }
        return total
    }

    private mutating func skipLine() {
        while index < characters.count, !characters[index].isNewline { index += 1 }
    }

    private mutating func readSymbol() -> String {
        let start = index
        while index < characters.count, !characters[index].isWhitespace,
            !Self.delimiters.contains(characters[index])
        {
            index += 1
        }
        return String(characters[start..<index])
    }

    private mutating func readComment() throws(PGNError) -> String {
        let start = index + 1
        guard let end = characters[start...].firstIndex(of: "}") else { throw .unterminatedComment }
        index = end + 1
        return String(characters[start..<end])
    }

    /// Reads `[Name "value"]` with `\"` and `\\` escapes.
    private mutating func readTag() throws(PGNError) -> (String, String) {
        let start = index
        func failure() -> PGNError {
            var end = characters[start...].firstIndex { $0 == "]" || $0.isNewline } ?? characters.count
            if end < characters.count, characters[end] == "]" { end += 1 }
            return .invalidTag(String(characters[start..<end]))
        }
        index += 1
        skipSpaces()
        let nameStart = index
        while index < characters.count, characters[index].isASCII,
            characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
        {
            index += 1
        }
        let name = String(characters[nameStart..<index])
        skipSpaces()
        guard !name.isEmpty, index < characters.count, characters[index] == "\"" else { throw failure() }
        index += 1
        var value = ""
        while true {
            guard index < characters.count, !characters[index].isNewline else { throw failure() }
            let character = characters[index]
            index += 1
            if character == "\"" { break }
            if character == "\\", index < characters.count {
                value.append(characters[index])
                index += 1
            } else {
                value.append(character)
            }
        }
        skipSpaces()
        guard index < characters.count, characters[index] == "]" else { throw failure() }
        index += 1
        return (name, value)
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace, !characters[index].isNewline { index += 1 }
    }
}
