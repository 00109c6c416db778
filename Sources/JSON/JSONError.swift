/// Why a payload is not acceptable JSON, and where: `line` and `column` are 1-based,
/// `column` counts characters (Unicode scalars) from the start of the line, `offset`
/// is the 0-based byte offset.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The problem found.
    public enum Problem: Equatable, Sendable {
        /// The payload holds no JSON value (empty or only white space).
        case empty
        /// The payload ends in the middle of a value; `expected` says what was due.
        case unexpectedEnd(expected: String)
        /// A character that cannot appear here (shown as `'x'` or `U+…`/`byte 0x…`).
        case unexpectedCharacter(String, expected: String)
        /// A number that breaks JSON's number grammar (leading zero, missing digits).
        case invalidNumber(String)
        /// A number too large for a `Double`.
        case numberOutOfRange(String)
        /// A backslash escape JSON does not define, such as `\x`.
        case invalidEscape(String)
        /// A `\u` escape that is malformed or a lone UTF-16 surrogate.
        case invalidUnicodeEscape(String)
        /// A raw control character (below U+0020) inside a string.
        case controlCharacterInString
        /// A string whose bytes are not valid UTF-8.
        case invalidUTF8
        /// An object repeats `key`.
        case duplicateKey(String)
        /// Arrays and objects are nested deeper than `limit`.
        case tooDeep(limit: Int)
        /// Something follows the complete value.
        case trailingCharacters(String)
    }

    /// The problem found.
    public var problem: Problem
    /// 0-based byte offset of the problem.
    public var offset: Int
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int

    /// Creates an error.
    public init(problem: Problem, offset: Int, line: Int, column: Int) {
        self.problem = problem
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The problem and its position, e.g.
    /// `unexpected '}' (expected a value) at line 1, column 9`.
    public var description: String {
        "\(problemDescription) at line \(line), column \(column)"
    }

    /// The problem without its position.
    public var problemDescription: String {
        switch problem {
        case .empty: "no JSON value"
        case .unexpectedEnd(let expected): "unexpected end of payload (expected \(expected))"
        case .unexpectedCharacter(let found, let expected): "unexpected \(found) (expected \(expected))"
        case .invalidNumber(let text): "invalid number \(text)"
        case .numberOutOfRange(let text): "number \(text) is out of range"
        case .invalidEscape(let text): "invalid escape \(text)"
        case .invalidUnicodeEscape(let text): "invalid unicode escape \(text)"
        case .controlCharacterInString: "unescaped control character in string"
        case .invalidUTF8: "string is not valid UTF-8"
        case .duplicateKey(let key): "duplicate key \"\(key)\""
        case .tooDeep(let limit): "nested deeper than \(limit) levels"
        case .trailingCharacters(let found): "unexpected \(found) after the JSON value"
        }
    }
}
