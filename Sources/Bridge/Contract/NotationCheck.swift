import BoardKit

/// Syntax checks of chess notations received in commands. They only decide whether
/// text has the right shape; the Chess module and the kernel judge meaning (a legal
/// position, a playable time control). Each returns `nil` when the text is acceptable,
/// else the reason.
public enum NotationCheck {
    /// The longest FEN accepted (the longest legal FEN is under 100 characters).
    public static let maximumFENLength = 128

    /// Checks the shape of a FEN: 4 or 6 space-separated fields; 8 ranks of 8 squares
    /// using `pnbrqkPNBRQK` and digits 1–8 (never two digits in a row); side `w`/`b`;
    /// castling `-` or up to four distinct letters from `KQkq` or `A-H a-h`
    /// (Shredder-FEN); en passant `-` or a square on rank 3 or 6; a non-negative halfmove
    /// clock and a positive move number.
    public static func fenProblem(_ fen: String) -> String? {
        guard fen.count <= maximumFENLength else { return "longer than \(maximumFENLength) characters" }
        let fields = fen.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 4 || fields.count == 6 else { return "expected 6 fields, got \(fields.count)" }
        if let problem = placementProblem(fields[0]) { return problem }
        guard fields[1] == "w" || fields[1] == "b" else { return "side to move must be w or b, got \(fields[1])" }
        if let problem = castlingProblem(fields[2]) { return problem }
        if fields[3] != "-" {
            guard let square = Square(fields[3]), fields[3] == square.name, square.rank == 2 || square.rank == 5
            else { return "en passant square must be - or on rank 3 or 6, got \(fields[3])" }
        }
        if fields.count == 6 {
            guard fields[4].count <= 5, fields[4].allSatisfy(\.isASCIIDigit), Int(fields[4]) != nil else {
                return "halfmove clock must be a whole number, got \(fields[4])"
            }
            guard fields[5].count <= 5, fields[5].allSatisfy(\.isASCIIDigit), let number = Int(fields[5]),
                number > 0
            else { return "move number must be a positive whole number, got \(fields[5])" }
        }
        return nil
    }

    private static func placementProblem(_ placement: Substring) -> String? {
        let ranks = placement.split(separator: "/", omittingEmptySubsequences: false)
        guard ranks.count == 8 else { return "expected 8 ranks separated by /, got \(ranks.count)" }
        for (index, rank) in ranks.enumerated() {
            let rankNumber = 8 - index
            var squares = 0
            var previousWasDigit = false
            for character in rank {
                if let digit = character.wholeNumberValue, character.isASCII, (1...8).contains(digit) {
                    guard !previousWasDigit else { return "rank \(rankNumber) has two digits in a row" }
                    squares += digit
                    previousWasDigit = true
                } else if "pnbrqkPNBRQK".contains(character) {
                    squares += 1
                    previousWasDigit = false
                } else {
                    return "rank \(rankNumber) holds \"\(character)\""
                }
            }
            guard squares == 8 else { return "rank \(rankNumber) describes \(squares) squares instead of 8" }
        }
        return nil
    }

    private static func castlingProblem(_ castling: Substring) -> String? {
        if castling == "-" { return nil }
        let allowed = "KQkqABCDEFGHabcdefgh"
        guard castling.count <= 4, castling.allSatisfy({ allowed.contains($0) }), Set(castling).count == castling.count
        else { return "castling rights must be - or letters from KQkq, got \(castling)" }
        return nil
    }

    /// Checks PGN `TimeControl` syntax (PGN standard §9.6.1, plus the common
    /// `moves/seconds+increment` periods): `?`, `-`, `*seconds` (sandclock), or periods
    /// separated by `:`, each `[moves/]seconds[+increment]`, where only the last period
    /// may omit the move count. Seconds are positive, increments non-negative; both may
    /// carry a decimal fraction. The same rules as the kernel's `TimeControl(pgn:)`.
    public static func timeControlProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return "empty" }
        guard text.count <= 64 else { return "longer than 64 characters" }
        if text == "?" || text == "-" { return nil }
        if text.hasPrefix("*") {
            guard let seconds = number(text.dropFirst()), seconds > 0 else {
                return "a sandclock is * followed by positive seconds"
            }
            return nil
        }
        let periods = text.split(separator: ":", omittingEmptySubsequences: false)
        for (index, period) in periods.enumerated() {
            var rest = period
            var hasMoves = false
            if let slash = rest.firstIndex(of: "/") {
                let moves = rest[..<slash]
                guard !moves.isEmpty, moves.count <= 4, moves.allSatisfy(\.isASCIIDigit), let count = Int(moves),
                    count > 0
                else { return "period \"\(period)\": the move count must be a positive whole number" }
                hasMoves = true
                rest = rest[rest.index(after: slash)...]
            }
            if let plus = rest.firstIndex(of: "+") {
                guard number(rest[rest.index(after: plus)...]) != nil else {
                    return "period \"\(period)\": the increment must be a number of seconds"
                }
                rest = rest[..<plus]
            }
            guard let seconds = number(rest), seconds > 0 else {
                return "period \"\(period)\": the time must be a positive number of seconds"
            }
            if !hasMoves, index != periods.count - 1 {
                return "period \"\(period)\" has no move count but is not the last period"
            }
        }
        return nil
    }

    /// A non-negative decimal number of ASCII digits with at most one inner dot.
    private static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCIIDigit || $0 == "." }),
            text.filter({ $0 == "." }).count <= 1, text.first != ".", text.last != ".",
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}

extension Character {
    /// `0`…`9` only (not other Unicode digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
