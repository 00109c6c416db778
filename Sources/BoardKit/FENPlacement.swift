/// The piece-placement field of FEN (rank 8 first, files a to h, a digit for a run of empty
/// squares, `/` between ranks), read and written square by square: a board's own symbols
/// (a `?` for a piece its sensors cannot name) follow the same rules as the pieces'.
public enum FENPlacement {
    /// The placement where `square` shows `symbol(square)` (`nil`: empty; symbols are ASCII,
    /// anything else is written `?`).
    public static func text(_ symbol: (Square) -> Character?) -> String {
        text { square in symbol(square).map { $0.asciiValue ?? UInt8(ascii: "?") } }
    }

    /// The placement where `square` shows the ASCII byte `symbol(square)` (`nil`: empty).
    public static func text(_ symbol: (Square) -> UInt8?) -> String {
        // Written into the string's own storage (a state message carries one, a move two).
        String(unsafeUninitializedCapacity: maximumLength) { write(into: $0, from: 0, symbol) }
    }

    /// The longest placement: 8 ranks of 8 symbols and 7 slashes.
    public static let maximumLength = 71

    /// Writes the placement where `square` shows the ASCII byte `symbol(square)` (`nil`:
    /// empty) into `bytes` from index `start`, which must leave ``maximumLength`` bytes
    /// free; returns the index after the last byte written.
    public static func write(
        into bytes: UnsafeMutableBufferPointer<UInt8>, from start: Int, _ symbol: (Square) -> UInt8?
    ) -> Int {
        var count = start
        for rank in stride(from: 7, through: 0, by: -1) {
            var empty: UInt8 = 0
            for file in 0..<8 {
                guard let byte = symbol(Square(rawValue: rank * 8 + file)!) else {
                    empty += 1
                    continue
                }
                if empty > 0 {
                    bytes[count] = UInt8(ascii: "0") + empty
                    count += 1
                }
                empty = 0
                bytes[count] = byte
                count += 1
            }
            if empty > 0 {
                bytes[count] = UInt8(ascii: "0") + empty
                count += 1
            }
            if rank > 0 {
                bytes[count] = UInt8(ascii: "/")
                count += 1
            }
        }
        return count
    }

    /// Reads the first field of `fen` (further fields are ignored), handing every square
    /// that shows a symbol to `visit`, which returns whether it knows the symbol. Returns
    /// whether the field is exactly 8 ranks of 8 squares and every symbol was known.
    public static func read(_ fen: some StringProtocol, _ visit: (Square, Character) -> Bool) -> Bool {
        let placement = fen.split(separator: " ", maxSplits: 1).first ?? ""
        let ranks = placement.split(separator: "/", omittingEmptySubsequences: false)
        guard ranks.count == 8 else { return false }
        for (index, rankText) in ranks.enumerated() {
            var file = 0
            for character in rankText {
                if let digit = character.wholeNumberValue, (1...8).contains(digit) {
                    file += digit
                } else if file < 8, let square = Square(file: file, rank: 7 - index), visit(square, character) {
                    file += 1
                } else {
                    return false
                }
                if file > 8 { return false }
            }
            guard file == 8 else { return false }
        }
        return true
    }
}
