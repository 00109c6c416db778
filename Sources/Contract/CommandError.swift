public import JSON
import Logging

/// Why a command was refused. A refused command changes nothing; its `description` is
/// the `error` text of the response published on `<base>/<board>/response`.
public enum CommandError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The payload is larger than the configured limit (checked before parsing).
    case tooLarge(size: Int, limit: Int)
    /// The payload is not valid JSON (with the position of the problem).
    case invalidJSON(JSONError)
    /// A `set/<name>` payload is not UTF-8 text.
    case notText
    /// A `set` payload is valid JSON but not an object; `found` names what it is.
    case notAnObject(found: String)
    /// The object holds no command (only `transaction`, or nothing).
    case noCommand
    /// The object holds several commands; one command per message.
    case multipleCommands([String])
    /// No command has this name; `suggestion` is the nearest known name, if close.
    case unknownCommand(String, suggestion: String?)
    /// An object value has a field its command does not know.
    case unknownField(command: String, field: String, suggestion: String?)
    /// A required field is missing.
    case missingField(command: String, field: String)
    /// A value has the wrong JSON type; `field` is a path such as `clock.white`.
    case badValueType(field: String, expected: String, found: String)
    /// A value has the right type but is not acceptable.
    case badValue(field: String, value: String, reason: String)
    /// A square name that is not `a1`…`h8`.
    case badSquare(String)
    /// A move that is not UCI long algebraic notation.
    case badUCI(String)
    /// A FEN that fails the structural check.
    case badFEN(String, reason: String)
    /// A time control that is not PGN `TimeControl` syntax.
    case badTimeControl(String, reason: String)
    /// A `raw` command for a board that does not allow raw writes.
    case rawNotEnabled
    /// The topic names a board this bridge does not serve (decided by the router).
    case unknownBoard(String)

    /// The message for the response's `error` field.
    public var description: String {
        switch self {
        case .tooLarge(let size, let limit):
            "command too large: \(size) bytes (limit \(limit) bytes)"
        case .invalidJSON(let error):
            "invalid JSON: \(error)"
        case .notText:
            "payload is not UTF-8 text"
        case .notAnObject(let found):
            "a command must be a JSON object such as {\"request\":\"state\"}, got \(found)"
        case .noCommand:
            "no command in the message; expected one of: " + CommandParser.commandNames.joined(separator: ", ")
        case .multipleCommands(let names):
            "one command per message, got \(names.count): " + Self.echo(names.joined(separator: ", "))
        case .unknownCommand(let name, _) where name.isEmpty:
            "no command name after set/; expected one of: " + CommandParser.commandNames.joined(separator: ", ")
        case .unknownCommand(let name, let suggestion):
            "unknown command \"\(Self.echo(name))\"" + Self.hint(suggestion)
        case .unknownField(let command, let field, let suggestion):
            "\(command): unknown field \"\(Self.echo(field))\"" + Self.hint(suggestion)
        case .missingField(let command, let field):
            "\(command): missing field \"\(field)\""
        case .badValueType(let field, let expected, let found):
            "\(field): expected \(expected), got \(found)"
        case .badValue(let field, let value, let reason):
            "\(field): bad value \(Self.echo(value)): \(reason)"
        case .badSquare(let square):
            "bad square \"\(Self.echo(square))\": expected a1 to h8"
        case .badUCI(let move):
            "bad move \"\(Self.echo(move))\": expected UCI notation such as e2e4 or e7e8q"
        case .badFEN(let fen, let reason):
            "bad FEN \"\(Self.echo(fen))\": \(reason)"
        case .badTimeControl(let text, let reason):
            "bad time control \"\(Self.echo(text))\": \(reason)"
        case .rawNotEnabled:
            "raw commands are not enabled for this board"
        case .unknownBoard(let board):
            "unknown board \"\(Self.echo(board))\""
        }
    }

    /// The most UTF-8 bytes of a refused value an error answer quotes back (the log's value
    /// cap): a refused 60 KB command costs a short answer, not a 60 KB one.
    public static let echoLimit = Logger.valueLimit

    /// `value`, or its first ``echoLimit`` bytes followed by `… (N bytes)` when longer.
    static func echo(_ value: String) -> String { Logger.capped(value, limit: echoLimit) }

    private static func hint(_ suggestion: String?) -> String {
        suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""
    }
}
