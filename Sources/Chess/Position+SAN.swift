public import BoardKit

extension Position {
    /// `move` in Standard Algebraic Notation: piece letter, the file, rank or both of the
    /// origin when another piece of the same kind could also go there, `x` for captures,
    /// `=Q` for promotions, `O-O`/`O-O-O` for castling, and `+` or `#` for check or mate.
    /// `move` should be legal here; an illegal one is written as if it were.
    public func san(for move: Move) -> String {
        guard let packed = packed(move) else { return move.uci }
        var text: String
        if packed.special == Special.castling {
            text = move.to.file > move.from.file ? "O-O" : "O-O-O"
        } else {
            let fromBit: Bitboard = 1 << move.from.rawValue
            let kind = kind(at: fromBit) ?? .pawn
            let isCapture = occupied & (1 << move.to.rawValue) != 0 || packed.special == Special.enPassant
            if kind == .pawn {
                text = isCapture ? String(fileLetter(move.from.file)) + "x" : ""
                text += move.to.name
                if let promotion = packed.move.promotion { text += "=" + String(promotion.letter).uppercased() }
            } else {
                text = String(kind.letter).uppercased() + disambiguation(for: move, kind: kind)
                text += (isCapture ? "x" : "") + move.to.name
            }
        }
        var after = self
        after.make(packed)
        if after.isCheck { text += after.hasLegalMoves ? "+" : "#" }
        return text
    }

    /// The file, rank or square of the origin needed to tell `move` apart from other legal
    /// moves of pieces of the same kind to the same square: the file when it is unique,
    /// else the rank when that is, else both.
    private func disambiguation(for move: Move, kind: PieceKind) -> String {
        let rivals = withLegalMoves { moves in
            moves.filter {
                $0.toIndex == move.to.rawValue && $0.fromIndex != move.from.rawValue
                    && self.kind(at: 1 << $0.fromIndex) == kind
            }.map(\.fromIndex)
        }
        guard !rivals.isEmpty else { return "" }
        if !rivals.contains(where: { $0 & 7 == move.from.file }) { return String(fileLetter(move.from.file)) }
        if !rivals.contains(where: { $0 >> 3 == move.from.rank }) { return String(move.from.rank + 1) }
        return move.from.name
    }

    private func fileLetter(_ file: Int) -> Character {
        Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(file)))
    }

    /// The legal move named by `san`.
    ///
    /// Accepts standard SAN with or without check, mate and annotation suffixes
    /// (`+ # ! ?`), `O-O`/`O-O-O` with letter O or digit zero, promotions written `e8=Q`
    /// or `e8Q`, `:` for captures, a trailing `e.p.`, and the over-specified long forms
    /// `Ng1f3`, `Ng1-f3`, `e2e4`. A capture mark is not required to match.
    public func move(san: String) throws(SANError) -> Move {
        var body = Substring(san.trimmingWhitespace)
        while let last = body.last, "+#!?".contains(last) { body.removeLast() }
        if body.hasSuffix("e.p.") { body = body.dropLast(4).trimmingTrailingWhitespace }
        guard !body.isEmpty else { throw .invalidSyntax(san) }

        switch body {
        case "O-O", "0-0", "o-o": return try castling(kingside: true, san: san)
        case "O-O-O", "0-0-0", "o-o-o": return try castling(kingside: false, san: san)
        default: break
        }

        var characters = Array(body)
        var kind = PieceKind.pawn
        if let first = characters.first, "NBRQK".contains(first), let pieceKind = PieceKind(letter: first) {
            kind = pieceKind
            characters.removeFirst()
        }
        var promotion: PieceKind?
        if let last = characters.last, last.isLetter {
            guard kind == .pawn, "NBRQnbrq".contains(last), let promoted = PieceKind(letter: last) else {
                throw .invalidSyntax(san)
            }
            promotion = promoted
            characters.removeLast()
            if characters.last == "=" { characters.removeLast() }
        }
        guard characters.count >= 2, let target = Square(String(characters.suffix(2))) else {
            throw .invalidSyntax(san)
        }
        characters.removeLast(2)
        if let last = characters.last, "x:-".contains(last) { characters.removeLast() }
        var fromFile: Int?
        var fromRank: Int?
        for character in characters {
            if let ascii = character.asciiValue, (UInt8(ascii: "a")...UInt8(ascii: "h")).contains(ascii),
                fromFile == nil, fromRank == nil
            {
                fromFile = Int(ascii - UInt8(ascii: "a"))
            } else if let ascii = character.asciiValue, (UInt8(ascii: "1")...UInt8(ascii: "8")).contains(ascii),
                fromRank == nil
            {
                fromRank = Int(ascii - UInt8(ascii: "1"))
            } else {
                throw .invalidSyntax(san)
            }
        }

        let candidates = legalMoves().filter { move in
            move.to == target && move.promotion == promotion && self.kind(at: 1 << move.from.rawValue) == kind
                && fromFile.map { $0 == move.from.file } ?? true && fromRank.map { $0 == move.from.rank } ?? true
        }
        guard let found = candidates.first else { throw .noSuchMove(san) }
        guard candidates.count == 1 else { throw .ambiguous(san) }
        return found
    }

    private func castling(kingside: Bool, san: String) throws(SANError) -> Move {
        let home = sideToMove == .white ? Square.e1 : Square.e8
        guard let to = home.offset(file: kingside ? 2 : -2, rank: 0) else { throw .noSuchMove(san) }
        let move = Move(from: home, to: to)
        guard packed(move)?.special == Special.castling, isLegal(move) else { throw .noSuchMove(san) }
        return move
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space.
    var trimmingWhitespace: Substring {
        let text = Substring(self)
        guard let start = text.firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let end = text.lastIndex(where: { !$0.isWhitespace }) ?? start
        return text[start...end]
    }

    /// The text without trailing white space.
    var trimmingTrailingWhitespace: Substring {
        let text = Substring(self)
        guard let end = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return text[...end]
    }
}
