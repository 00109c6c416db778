/// A move as a board or a host names it: from, to and an optional promotion piece.
/// Carries no legality; the game kernel decides that.
public struct BoardMove: Hashable, Sendable, Codable {
    /// Where the moving piece started.
    public var from: Square
    /// Where it ended.
    public var to: Square
    /// The piece a pawn promotes to, if any.
    public var promotion: PieceKind?

    /// Creates a move.
    public init(from: Square, to: Square, promotion: PieceKind? = nil) {
        self.from = from
        self.to = to
        self.promotion = promotion
    }

    /// Parses UCI long algebraic notation (`e2e4`, `e7e8q`). Returns `nil` for anything
    /// else, including a promotion letter that is not `n b r q`.
    public init?(uci: some StringProtocol) {
        let text = String(uci)
        guard text.count == 4 || text.count == 5 else { return nil }
        let characters = Array(text)
        guard let from = Square(String(characters[0...1])), let to = Square(String(characters[2...3]))
        else { return nil }
        var promotion: PieceKind?
        if characters.count == 5 {
            guard let kind = PieceKind(letter: characters[4]), [.knight, .bishop, .rook, .queen].contains(kind)
            else { return nil }
            promotion = kind
        }
        self.init(from: from, to: to, promotion: promotion)
    }

    /// UCI long algebraic notation, e.g. `e7e8q`.
    public var uci: String {
        String(unsafeUninitializedCapacity: 5) { bytes in
            bytes[0] = from.fileLetter
            bytes[1] = from.rankDigit
            bytes[2] = to.fileLetter
            bytes[3] = to.rankDigit
            guard let promotion else { return 4 }
            bytes[4] = Piece(.black, promotion).fenASCII
            return 5
        }
    }
}

extension BoardMove: CustomStringConvertible {
    /// UCI notation.
    public var description: String { uci }
}
