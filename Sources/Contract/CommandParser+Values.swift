import BoardKit
import Chess
import FoundationEssentials
import JSON
import Kernel

/// The value parsers, one per command. Each throws the first problem it finds.
extension CommandParser {
    func leds(_ value: JSONValue) throws(CommandError) -> BoardCommand {
        switch value {
        case .string("clear"):
            return .clearIndications
        case .string(let text):
            return .indicate(squares: try squareList(text, field: "leds"), style: .highlight)
        case .array(let elements):
            let squares = try self.squares(elements, field: "leds")
            return squares.isEmpty ? .clearIndications : .indicate(squares: squares, style: .highlight)
        case .object(let object):
            try checkFields(object, allowed: ["squares", "style"], command: "leds")
            guard let squaresValue = object["squares"] else { throw .missingField(command: "leds", field: "squares") }
            let squares: [Square]
            switch squaresValue {
            case .array(let elements): squares = try self.squares(elements, field: "leds.squares")
            case .string(let text): squares = try squareList(text, field: "leds.squares")
            default:
                throw .badValueType(
                    field: "leds.squares", expected: "a list of squares", found: squaresValue.kindDescription)
            }
            let style: IndicationStyle =
                try object["style"].map { value throws(CommandError) in
                    try choice(value, field: "leds.style")
                } ?? .highlight
            return squares.isEmpty ? .clearIndications : .indicate(squares: squares, style: style)
        default:
            throw .badValueType(
                field: "leds", expected: "\"clear\", a list of squares or {\"squares\":[…],\"style\":…}",
                found: value.kindDescription)
        }
    }

    func request(_ value: JSONValue) throws(CommandError) -> BoardCommand {
        switch value {
        case .null, .string("state"): return .requestState
        case .string("battery"): return .requestBattery
        case .string(let text):
            throw .badValue(field: "request", value: "\"\(text)\"", reason: "expected \"state\" or \"battery\"")
        default:
            throw .badValueType(field: "request", expected: "\"state\" or \"battery\"", found: value.kindDescription)
        }
    }

    func session(_ value: JSONValue) throws(CommandError) -> BoardCommand {
        switch value {
        case .null, .string("start"): return .startSession
        case .string(let text): throw .badValue(field: "session", value: "\"\(text)\"", reason: "expected \"start\"")
        default: throw .badValueType(field: "session", expected: "\"start\"", found: value.kindDescription)
        }
    }

    func move(_ value: JSONValue) throws(CommandError) -> BoardCommand {
        guard case .string(let text) = value else {
            throw .badValueType(field: "move", expected: "a move in UCI notation", found: value.kindDescription)
        }
        guard let move = BoardMove(uci: text) else { throw .badUCI(text) }
        return .executeMove(uci: move.uci)
    }

    func raw(_ value: JSONValue) throws(CommandError) -> BoardCommand {
        guard case .string(let text) = value else {
            throw .badValueType(field: "raw", expected: "hex bytes such as \"a1b2\"", found: value.kindDescription)
        }
        let digits = Array(text.utf8.filter { !Self.isWhitespace($0) })
        let shown = "\"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        guard !digits.isEmpty else { throw .badValue(field: "raw", value: shown, reason: "no bytes") }
        guard digits.count % 2 == 0 else {
            throw .badValue(field: "raw", value: shown, reason: "odd number of hex digits")
        }
        guard digits.count / 2 <= Self.maximumRawBytes else {
            throw .badValue(field: "raw", value: shown, reason: "more than \(Self.maximumRawBytes) bytes")
        }
        // The white space is gone already: `HexBytes` ignores nothing more.
        guard let bytes = HexBytes.parse(String(decoding: digits, as: UTF8.self), ignoring: "") else {
            throw .badValue(field: "raw", value: shown, reason: "not hexadecimal")
        }
        return .custom(Data(bytes))
    }

    func newGame(_ value: JSONValue) throws(CommandError) -> GameCommand {
        let object: JSONObject
        switch value {
        case .null: return .newGame(GameCommand.NewGame())
        case .object(let value): object = value
        default:
            throw .badValueType(
                field: "new_game", expected: "an object such as {\"white\":…}", found: value.kindDescription)
        }
        let fields = ["white", "black", "event", "site", "round", "board", "time_control", "fen", "tags"]
        try checkFields(object, allowed: fields, command: "new_game")
        var game = GameCommand.NewGame()
        game.tags.white = try tagText(object["white"], field: "new_game.white")
        game.tags.black = try tagText(object["black"], field: "new_game.black")
        game.tags.event = try tagText(object["event"], field: "new_game.event")
        game.tags.site = try tagText(object["site"], field: "new_game.site")
        game.tags.round = try tagText(object["round"], field: "new_game.round", numberAllowed: true)
        game.tags.board = try tagText(object["board"], field: "new_game.board", numberAllowed: true)
        if let control = object["time_control"], !control.isNull {
            guard case .string(let text) = control else {
                throw .badValueType(
                    field: "new_game.time_control", expected: "PGN TimeControl text such as \"5400+30\"",
                    found: control.kindDescription)
            }
            switch NotationCheck.timeControl(text) {
            case .failure(let problem): throw .badTimeControl(text, reason: problem.reason)
            case .success(let control):
                if let reason = timeControlProblem(text) { throw .badTimeControl(text, reason: reason) }
                game.timeControl = control
            }
        }
        if let fen = object["fen"], !fen.isNull { game.position = try position(fen, field: "new_game.fen") }
        if let tags = object["tags"], !tags.isNull { game.tags.extra = try extraTags(tags) }
        return .newGame(game)
    }

    /// The position a FEN names, read once here: the session takes the ``Position``.
    func position(_ value: JSONValue, field: String) throws(CommandError) -> Position {
        guard case .string(let text) = value else {
            throw .badValueType(field: field, expected: "a FEN string", found: value.kindDescription)
        }
        let fen = text.trimmingASCIIWhitespace()
        switch NotationCheck.position(fen) {
        case .success(let position): return position
        case .failure(let problem): throw .badFEN(String(fen.prefix(140)), reason: problem.reason)
        }
    }

    func takeback(_ value: JSONValue) throws(CommandError) -> GameCommand {
        if value.isNull { return .takeback(plies: 1) }
        guard case .number(let number) = value else {
            throw .badValueType(field: "takeback", expected: "a number of plies", found: value.kindDescription)
        }
        guard let plies = value.intValue, (1...Self.maximumTakebackPlies).contains(plies) else {
            throw .badValue(
                field: "takeback", value: JSONValue.numberText(number),
                reason: "expected a whole number of plies from 1 to \(Self.maximumTakebackPlies)")
        }
        return .takeback(plies: plies)
    }

    /// `resolve`: the moves as a list or one text (`"e4 e5"`), or `{"moves":…,"ply":n}`.
    /// Only the notation is checked here; the kernel checks the line against the game and
    /// the board.
    func resolve(_ value: JSONValue) throws(CommandError) -> GameCommand {
        let expected = "a list of moves such as [\"e2e4\",\"e7e5\"] or {\"moves\":[…],\"ply\":n}"
        var movesValue = value
        var ply: Int?
        if case .object(let object) = value {
            try checkFields(object, allowed: ["moves", "ply"], command: "resolve")
            guard let moves = object["moves"] else { throw .missingField(command: "resolve", field: "moves") }
            movesValue = moves
            if let plyValue = object["ply"], !plyValue.isNull {
                guard let whole = plyValue.intValue, whole >= 0 else {
                    throw .badValue(
                        field: "resolve.ply", value: plyValue.encodedString(), reason: "expected a whole number ≥ 0")
                }
                ply = whole
            }
        }
        let field = value.objectValue == nil ? "resolve" : "resolve.moves"
        let texts: [String]
        switch movesValue {
        case .string(let text):
            texts = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" }).map(String.init)
        case .array(let elements):
            texts = try elements.map { element throws(CommandError) in
                guard case .string(let text) = element else {
                    throw .badValueType(field: field, expected: "moves as strings", found: element.kindDescription)
                }
                return text
            }
        default:
            throw .badValueType(field: field, expected: expected, found: movesValue.kindDescription)
        }
        guard !texts.isEmpty else { throw .badValue(field: field, value: "[]", reason: "no moves") }
        guard texts.count <= GameTracker.maximumResolvedPlies else {
            throw .badValue(
                field: field, value: "\(texts.count) moves",
                reason: "at most \(GameTracker.maximumResolvedPlies) moves per resolution")
        }
        for text in texts where !Self.isMoveNotation(text) {
            throw .badValue(
                field: field, value: "\"\(text)\"", reason: "not a move in UCI (e2e4) or SAN (Nf3) notation")
        }
        return .resolve(moves: texts, ply: ply)
    }

    /// Whether `text` can be a move in UCI or SAN notation (2 to 8 characters of the two
    /// notations' alphabets); whether it is legal is the kernel's to say.
    static func isMoveNotation(_ text: String) -> Bool {
        let allowed = Set("abcdefgh12345678KQRBNqrbnxO0-=+#!?")
        return (2...8).contains(text.count) && text.allSatisfy { allowed.contains($0) }
    }

    func clock(_ value: JSONValue) throws(CommandError) -> GameCommand {
        let object: JSONObject
        switch value {
        case .string(let action): object = ["action": .string(action)]
        case .object(let value): object = value
        default:
            throw .badValueType(
                field: "clock", expected: "\"pause\", \"resume\" or {\"action\":\"adjust\",…}",
                found: value.kindDescription)
        }
        try checkFields(object, allowed: ["action", "white", "black"], command: "clock")
        guard let action = object["action"] else { throw .missingField(command: "clock", field: "action") }
        let times = (white: object["white"], black: object["black"])
        switch action {
        case .string("pause"), .string("resume"):
            if let extra = ["white", "black"].first(where: { object[$0] != nil }) {
                throw .badValue(
                    field: "clock.\(extra)", value: object[extra]?.encodedString() ?? "",
                    reason: "times are set with the action \"adjust\"")
            }
            return action == .string("pause") ? .pauseClock : .resumeClock
        case .string("adjust"):
            guard times.white != nil || times.black != nil else {
                throw .missingField(command: "clock", field: "white or black")
            }
            return .adjustClock(
                white: try seconds(times.white, field: "clock.white"),
                black: try seconds(times.black, field: "clock.black"))
        case .string(let text):
            throw .badValue(
                field: "clock.action", value: "\"\(text)\"", reason: "expected \"pause\", \"resume\" or \"adjust\"")
        default:
            throw .badValueType(
                field: "clock.action", expected: "\"pause\", \"resume\" or \"adjust\"", found: action.kindDescription)
        }
    }

    /// One of a string enum's raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: JSONValue, field: String
    ) throws(CommandError)
        -> Choice where Choice.RawValue == String
    {
        try choice(value, field: field, spellings: Choice.allCases.map { ($0.rawValue, $0) })
    }

    /// One of the values a spelling table names (the contract's words for a type defined
    /// below the contract, such as the kernel's orientation setting).
    func choice<Choice>(
        _ value: JSONValue, field: String, spellings: [(String, Choice)]
    ) throws(CommandError)
        -> Choice
    {
        let names = spellings.map { "\"\($0.0)\"" }.joined(separator: ", ")
        guard case .string(let text) = value else {
            throw .badValueType(field: field, expected: "one of \(names)", found: value.kindDescription)
        }
        guard let choice = spellings.first(where: { $0.0 == text })?.1 else {
            throw .badValue(field: field, value: "\"\(text)\"", reason: "expected one of \(names)")
        }
        return choice
    }
}
