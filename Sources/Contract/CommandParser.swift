import BoardKit
public import JSON
import Kernel

/// Turns the payload of a command topic into a `BridgeCommand`, or a `CommandError`
/// naming what is wrong. Pure: a refused command changes nothing.
///
/// Scheme (docs/mqtt-contract.md has the full reference), as in zigbee2mqtt:
/// - `<base>/<board>/set` takes a JSON object with exactly one command key and an
///   optional `transaction` (any string or number, echoed in the response):
///   `{"leds":{"squares":["e2","e4"],"style":"move"},"transaction":7}`.
/// - `<base>/<board>/set/<name>` takes the command's value alone. The payload is read
///   as JSON when it parses, else as plain text, so `set/move` ← `e2e4`,
///   `set/takeback` ← `2`, `set/leds` ← `clear`; an empty payload is `null` (the
///   command's default, where it has one).
///
/// | key | value | result |
/// |---|---|---|
/// | `leds` | `"clear"`, a list of squares, `"e2 e4"`, or `{"squares":[…],"style":…}` | indicate / clear |
/// | `leds` | `"last_move"`, `"check"`, `"off"` | ledPattern (squares from the game) |
/// | `request` | `"state"` (default) or `"battery"` | requestState / requestBattery |
/// | `session` | `"start"` (default) | startSession |
/// | `move` | UCI text, `"e2e4"` | executeMove (motorised boards) |
/// | `raw` | hex bytes, `"a1b2"`; only where allowed | custom |
/// | `new_game` | `{}` (default) or tags, `time_control`, `fen` | newGame |
/// | `position` | FEN text | setPosition |
/// | `takeback` | plies, default 1 | takeback |
/// | `resolve` | moves (UCI or SAN) as a list or `"e4 e5"`, or `{"moves":[…],"ply":n}` | resolve |
/// | `clock` | `"pause"`, `"resume"`, `{"action":"adjust","white":s,"black":s}` | clock |
/// | `result` | `"1-0"`, `"0-1"`, `"1/2-1/2"`, `"*"` | setResult |
/// | `orientation` | `"white"`, `"black"`, `"auto"` | setOrientation |
/// | `calibrate` | `true` (default) | calibrate (Certabo) |
public struct CommandParser: Sendable {
    /// The default payload limit: 64 KiB.
    public static let defaultMaximumPayloadSize = 65_536
    /// The default nesting limit for command JSON (commands nest three levels at most).
    public static let defaultMaximumDepth = 8
    /// The most bytes a `raw` command may carry (one ATT write holds at most 512).
    public static let maximumRawBytes = 512
    /// The most plies one `takeback` may undo.
    public static let maximumTakebackPlies = 1_000
    /// The most seconds a clock may be set to (100 hours).
    public static let maximumClockSeconds = 360_000.0
    /// The longest tag value accepted.
    public static let maximumTagLength = 255

    /// Every command name, in documentation order.
    public static let commandNames = [
        "leds", "request", "session", "move", "raw",
        "new_game", "position", "takeback", "resolve", "clock", "result", "orientation", "calibrate",
    ]

    /// The name of the optional member echoed in responses.
    public static let transactionKey = "transaction"

    /// Payloads larger than this many bytes are refused before parsing.
    public var maximumPayloadSize: Int
    /// Deeper JSON nesting is refused while parsing.
    public var maximumDepth: Int
    /// A further check of a `time_control` the kernel can read (``NotationCheck/timeControl(_:)``
    /// always runs first); returns the reason it is refused, or `nil`. The default accepts
    /// every readable time control.
    public var timeControlProblem: @Sendable (String) -> String?

    /// Creates a parser.
    public init(
        maximumPayloadSize: Int = CommandParser.defaultMaximumPayloadSize,
        maximumDepth: Int = CommandParser.defaultMaximumDepth,
        timeControlProblem: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.maximumPayloadSize = maximumPayloadSize
        self.maximumDepth = maximumDepth
        self.timeControlProblem = timeControlProblem
    }

    /// Parses a command payload.
    ///
    /// - Parameters:
    ///   - payload: the message payload.
    ///   - name: `nil` for `<base>/<board>/set`, the last level for `…/set/<name>`.
    ///   - rawAllowed: whether this board accepts `raw` (from its configuration).
    /// - Returns: the command or the error, with the `transaction` whenever the payload
    ///   carried a usable one (also on errors, so the error response can echo it).
    public func parse(
        _ payload: some Collection<UInt8>, name: String? = nil, rawAllowed: Bool = false
    )
        -> ParsedCommand
    {
        guard payload.count <= maximumPayloadSize else {
            return ParsedCommand(.failure(.tooLarge(size: payload.count, limit: maximumPayloadSize)))
        }
        let bytes = Array(payload)
        if let name { return ParsedCommand(attributeCommand(name, bytes, rawAllowed: rawAllowed)) }
        let object: JSONObject
        switch parseObject(bytes) {
        case .success(let value): object = value
        case .failure(let error): return ParsedCommand(.failure(error))
        }
        let transaction = object[Self.transactionKey].flatMap { $0.isTransaction ? $0 : nil }
        let commandKeys = object.keys.filter { $0 != Self.transactionKey }
        if let value = object[Self.transactionKey], !value.isTransaction {
            return ParsedCommand(
                .failure(
                    .badValueType(
                        field: Self.transactionKey, expected: "a string or a number", found: value.kindDescription)),
                transaction: nil)
        }
        guard let key = commandKeys.first, let value = object[key] else {
            return ParsedCommand(.failure(.noCommand), transaction: transaction)
        }
        guard commandKeys.count == 1 else {
            return ParsedCommand(.failure(.multipleCommands(commandKeys)), transaction: transaction)
        }
        return ParsedCommand(command(key, value, rawAllowed: rawAllowed), transaction: transaction)
    }

    /// Parses the payload of a bridge request (`<base>/bridge/<node>/request/<op>`): an
    /// empty payload or a JSON object; its `transaction` is split off.
    public func parseRequest(_ payload: some Collection<UInt8>) -> ParsedRequest {
        guard payload.count <= maximumPayloadSize else {
            return ParsedRequest(result: .failure(.tooLarge(size: payload.count, limit: maximumPayloadSize)))
        }
        let bytes = Array(payload)
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return ParsedRequest(result: .success([:])) }
        switch parseObject(bytes) {
        case .failure(let error): return ParsedRequest(result: .failure(error))
        case .success(var object):
            let transaction = object[Self.transactionKey].flatMap { $0.isTransaction ? $0 : nil }
            object[Self.transactionKey] = nil
            return ParsedRequest(result: .success(object), transaction: transaction)
        }
    }

    // MARK: Steps

    private func parseObject(_ bytes: [UInt8]) -> Swift.Result<JSONObject, CommandError> {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes, maximumDepth: maximumDepth)
        } catch {
            return .failure(.invalidJSON(error))
        }
        guard case .object(let object) = value else { return .failure(.notAnObject(found: value.kindDescription)) }
        return .success(object)
    }

    /// `set/<name>`: the payload is the value, as JSON when it parses, else as text.
    private func attributeCommand(
        _ name: String, _ bytes: [UInt8], rawAllowed: Bool
    )
        -> Swift.Result<BridgeCommand, CommandError>
    {
        guard Self.commandNames.contains(name) else {
            return .failure(.unknownCommand(name, suggestion: NameSuggestion.nearest(to: name, in: Self.commandNames)))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notText) }
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty { return command(name, .null, rawAllowed: rawAllowed) }
        do {
            return command(name, try JSONValue(parsing: trimmed, maximumDepth: maximumDepth), rawAllowed: rawAllowed)
        } catch {
            // Text that looks like JSON but is broken gets the JSON error; anything else
            // is a plain value (`e2e4`, `1-0`, a FEN).
            if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") || trimmed.hasPrefix("\"") {
                return .failure(.invalidJSON(error))
            }
            return command(name, .string(trimmed), rawAllowed: rawAllowed)
        }
    }

    private func command(
        _ name: String, _ value: JSONValue, rawAllowed: Bool
    )
        -> Swift.Result<BridgeCommand, CommandError>
    {
        do throws(CommandError) {
            switch name {
            case "leds":
                if case .string(let text) = value, let pattern = GameCommand.LEDPattern(rawValue: text) {
                    return .success(.game(.ledPattern(pattern)))
                }
                return .success(.board(try leds(value)))
            case "request": return .success(.board(try request(value)))
            case "session": return .success(.board(try session(value)))
            case "move": return .success(.board(try move(value)))
            case "raw":
                guard rawAllowed else { return .failure(.rawNotEnabled) }
                return .success(.board(try raw(value)))
            case "new_game": return .success(.game(try newGame(value)))
            case "position": return .success(.game(.setPosition(try position(value, field: "position"))))
            case "takeback": return .success(.game(try takeback(value)))
            case "resolve": return .success(.game(try resolve(value)))
            case "clock": return .success(.game(try clock(value)))
            case "result": return .success(.game(.setResult(try choice(value, field: "result"))))
            case "orientation":
                return .success(
                    .game(
                        .setOrientation(
                            try choice(value, field: "orientation", spellings: OrientationSetting.spellings))))
            case "calibrate":
                guard value == .null || value == .bool(true) || value == .string("true") else {
                    throw .badValue(field: "calibrate", value: value.encodedString(), reason: "expected true")
                }
                return .success(.calibrate)
            default:
                return .failure(
                    .unknownCommand(name, suggestion: NameSuggestion.nearest(to: name, in: Self.commandNames)))
            }
        } catch {
            return .failure(error)
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The outcome of parsing a command payload.
public struct ParsedCommand: Equatable, Sendable {
    /// The command, or why it was refused.
    public var result: Swift.Result<BridgeCommand, CommandError>
    /// The `transaction` the payload carried, to echo in the response.
    public var transaction: JSONValue?

    /// Creates an outcome.
    public init(_ result: Swift.Result<BridgeCommand, CommandError>, transaction: JSONValue? = nil) {
        self.result = result
        self.transaction = transaction
    }

    /// The command, when it was accepted.
    public var command: BridgeCommand? {
        guard case .success(let command) = result else { return nil }
        return command
    }

    /// The error, when it was refused.
    public var error: CommandError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}

/// The outcome of parsing a bridge request payload.
public struct ParsedRequest: Equatable, Sendable {
    /// The request's members (without `transaction`), or why it was refused.
    public var result: Swift.Result<JSONObject, CommandError>
    /// The `transaction` the payload carried, to echo in the response.
    public var transaction: JSONValue?

    /// Creates an outcome.
    public init(result: Swift.Result<JSONObject, CommandError>, transaction: JSONValue? = nil) {
        self.result = result
        self.transaction = transaction
    }
}

extension JSONValue {
    /// Transactions are strings or numbers, as in zigbee2mqtt.
    var isTransaction: Bool {
        switch self {
        case .string, .number: true
        default: false
        }
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
