/// Why PGN text could not be imported. Each case names the offending text.
public enum PGNError: Error, Equatable, Sendable {
    /// The text holds no game (no tags, no moves, no result).
    case empty
    /// A tag pair is not `[Name "value"]`; carries the text from `[` on.
    case invalidTag(String)
    /// The `FEN` tag does not hold a valid position.
    case invalidFEN(FENError)
    /// A `{` comment is never closed.
    case unterminatedComment
    /// A `(` variation is never closed.
    case unterminatedVariation
    /// A character that cannot start anything at this point (a stray `)`, `}` or `]`).
    case unexpectedCharacter(String)
    /// A move is not legal SAN in its position; `ply` counts the moves before it
    /// (0 for the first move of the game).
    case invalidMove(san: String, ply: Int, reason: SANError)
}

extension PGNError: CustomStringConvertible {
    /// A one-line explanation naming the offending text.
    public var description: String {
        switch self {
        case .empty: "PGN text holds no game"
        case .invalidTag(let text): "invalid PGN tag \(text)"
        case .invalidFEN(let error): "invalid FEN tag: \(error)"
        case .unterminatedComment: "PGN comment { is not closed"
        case .unterminatedVariation: "PGN variation ( is not closed"
        case .unexpectedCharacter(let text): "unexpected \"\(text)\" in PGN"
        case .invalidMove(let san, let ply, let reason):
            "PGN move \(ply / 2 + 1)\(ply % 2 == 0 ? "." : "...") \(san): \(reason)"
        }
    }
}
