/// The piece-placement field of FEN (rank 8 first, files a to h, a digit for a run of empty
/// squares, `/` between ranks), read and written square by square: a board's own symbols
/// (a `?` for a piece its sensors cannot name) follow the same rules as the pieces'.
public enum FENPlacement {
    /// The placement where `square` shows `symbol(square)` (`nil`: empty).
    public static func text(_ symbol: (Square) -> Character?) -> String {
        var result = ""
        for rank in stride(from: 7, through: 0, by: -1) {
            var empty = 0
            for file in 0..<8 {
                guard let square = Square(file: file, rank: rank), let character = symbol(square) else {
                    empty += 1
                    continue
                }
                if empty > 0 { result += String(empty) }
                empty = 0
                result.append(character)
            }
            if empty > 0 { result += String(empty) }
            if rank > 0 { result.append("/") }
        }
        return result
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
