public import BoardKit

/// The order most boards send or number their squares in, as text is read from White's
/// side: a8, b8 … h8, a7 … h1 (Millennium's status string, DGT's fields, Certabo's frames,
/// iChessOne's positions).
extension Square {
    /// The square at `index` (0…63, a precondition) in reading order.
    public init(readingIndex index: Int) {
        self = Square(file: index & 7, rank: 7 - index >> 3)!
    }

    /// This square's place in reading order (a8 = 0 … h1 = 63).
    public var readingIndex: Int { (7 - rank) * 8 + file }
}
