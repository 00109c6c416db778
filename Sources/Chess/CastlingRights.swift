/// Which castling moves are still allowed by the history of the game (king and rook
/// unmoved). Whether castling is possible right now also depends on the position.
public struct CastlingRights: OptionSet, Hashable, Sendable, Codable {
    /// The bit set.
    public let rawValue: UInt8

    /// Creates a set from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// White may castle on the king's side (O-O, e1g1).
    public static let whiteKingside = CastlingRights(rawValue: 1 << 0)
    /// White may castle on the queen's side (O-O-O, e1c1).
    public static let whiteQueenside = CastlingRights(rawValue: 1 << 1)
    /// Black may castle on the king's side (O-O, e8g8).
    public static let blackKingside = CastlingRights(rawValue: 1 << 2)
    /// Black may castle on the queen's side (O-O-O, e8c8).
    public static let blackQueenside = CastlingRights(rawValue: 1 << 3)

    /// All four rights, as at the start of a game.
    public static let all: CastlingRights = [.whiteKingside, .whiteQueenside, .blackKingside, .blackQueenside]

    /// The FEN castling field: `KQkq`, a subset in that order, or `-`.
    public var fen: String {
        var text = ""
        if contains(.whiteKingside) { text += "K" }
        if contains(.whiteQueenside) { text += "Q" }
        if contains(.blackKingside) { text += "k" }
        if contains(.blackQueenside) { text += "q" }
        return text.isEmpty ? "-" : text
    }

    /// Parses a FEN castling field (`-`, or each of `KQkq` at most once, any order);
    /// `nil` for anything else.
    public init?(fen: some StringProtocol) {
        self = []
        if fen == "-" { return }
        guard !fen.isEmpty else { return nil }
        for character in fen {
            let right: CastlingRights
            switch character {
            case "K": right = .whiteKingside
            case "Q": right = .whiteQueenside
            case "k": right = .blackKingside
            case "q": right = .blackQueenside
            default: return nil
            }
            guard !contains(right) else { return nil }
            insert(right)
        }
    }
}
