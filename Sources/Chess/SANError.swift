/// Why a move in Standard Algebraic Notation was rejected; each case carries the text.
public enum SANError: Error, Equatable, Sendable {
    /// The text is not SAN (nor a long-algebraic form such as `Ng1f3` or `e2e4`).
    case invalidSyntax(String)
    /// The text is well formed but no legal move here matches it.
    case noSuchMove(String)
    /// More than one legal move matches (the text lacks a needed file or rank).
    case ambiguous(String)
}

extension SANError: CustomStringConvertible {
    /// A one-line explanation naming the text.
    public var description: String {
        switch self {
        case .invalidSyntax(let text): "\"\(text)\" is not a move in algebraic notation"
        case .noSuchMove(let text): "\"\(text)\" is not a legal move in this position"
        case .ambiguous(let text): "\"\(text)\" matches more than one legal move"
        }
    }
}
