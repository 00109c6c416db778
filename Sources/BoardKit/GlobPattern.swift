/// A shell-style pattern for advertised board names: `*` (any run), `?` (one character),
/// `[abc]`, `[a-z]`, `[!abc]` (one character in or not in a set; `^` works like `!`).
/// Matching ignores case (`chessnut*` matches `Chessnut Air`); every other character
/// stands for itself. The whole name must match.
public struct GlobPattern: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let tokens: [Token]

    private enum Token: Sendable, Equatable, Hashable {
        case literal(Character)
        case any
        case anyRun
        case set(ranges: [ClosedRange<Character>], negated: Bool)
    }

    /// Parses `pattern`; `nil` when it is empty or has an unclosed `[`.
    public init?(_ pattern: String) {
        guard !pattern.isEmpty else { return nil }
        var tokens: [Token] = []
        let characters = Array(pattern.lowercased())
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "*": tokens.append(.anyRun)
            case "?": tokens.append(.any)
            case "[":
                guard let (token, next) = Self.parseSet(characters, from: index + 1) else { return nil }
                tokens.append(token)
                index = next
                continue
            default: tokens.append(.literal(character))
            }
            index += 1
        }
        self.pattern = pattern
        self.tokens = tokens
    }

    /// The pattern as written.
    public var description: String { pattern }

    /// Whether `name` matches the whole pattern, ignoring case.
    public func matches(_ name: String) -> Bool {
        let text = Array(name.lowercased())
        // Iterative matching with backtracking to the last `*` only: linear-ish, no recursion.
        var t = 0
        var p = 0
        var starP: Int?
        var starT = 0
        while t < text.count {
            if p < tokens.count, tokens[p] != .anyRun, Self.token(tokens[p], matches: text[t]) {
                t += 1
                p += 1
            } else if p < tokens.count, tokens[p] == .anyRun {
                starP = p
                starT = t
                p += 1
            } else if let star = starP {
                p = star + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    private static func token(_ token: Token, matches character: Character) -> Bool {
        switch token {
        case .literal(let literal): literal == character
        case .any: true
        case .anyRun: true
        case .set(let ranges, let negated): ranges.contains { $0.contains(character) } != negated
        }
    }

    /// Parses a set after `[`; returns the token and the index after `]`.
    private static func parseSet(_ characters: [Character], from start: Int) -> (Token, Int)? {
        var index = start
        var negated = false
        if index < characters.count, characters[index] == "!" || characters[index] == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<Character>] = []
        var first = true
        while index < characters.count {
            let character = characters[index]
            if character == "]" && !first {
                return (.set(ranges: ranges, negated: negated), index + 1)
            }
            first = false
            if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]" {
                let upper = characters[index + 2]
                guard character <= upper else { return nil }
                ranges.append(character...upper)
                index += 3
            } else {
                ranges.append(character...character)
                index += 1
            }
        }
        return nil
    }
}
