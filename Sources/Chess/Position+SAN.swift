public import BoardKit

extension Position {
    /// `move` in Standard Algebraic Notation: piece letter, the file, rank or both of the
    /// origin when another piece of the same kind could also go there, `x` for captures,
    /// `=Q` for promotions, `O-O`/`O-O-O` for castling, and `+` or `#` for check or mate.
    /// `move` should be legal here; an illegal one is written as if it were.
    public func san(for move: Move) -> String {
        guard let packed = packed(move) else { return move.uci }
        // At most 7 bytes (`exd8=Q+`, `Qh4xe1#`), written into the string's own storage.
        return String(unsafeUninitializedCapacity: 8) { bytes in
            var count = 0
            func put(_ byte: UInt8) {
                bytes[count] = byte
                count += 1
            }
            func put(_ square: Square) {
                put(square.fileLetter)
                put(square.rankDigit)
            }
            if packed.special == Special.castling {
                for byte in (move.to.file > move.from.file ? "O-O" : "O-O-O").utf8 { put(byte) }
            } else {
                let kind = kind(at: 1 << move.from.rawValue) ?? .pawn
                let isCapture = occupied & (1 << move.to.rawValue) != 0 || packed.special == Special.enPassant
                if kind == .pawn {
                    if isCapture {
                        put(move.from.fileLetter)
                        put(UInt8(ascii: "x"))
                    }
                    put(move.to)
                    if let promotion = packed.move.promotion {
                        put(UInt8(ascii: "="))
                        put(Piece(.white, promotion).fenASCII)
                    }
                } else {
                    put(Piece(.white, kind).fenASCII)
                    switch disambiguation(for: move, kind: kind) {
                    case .none: break
                    case .file: put(move.from.fileLetter)
                    case .rank: put(move.from.rankDigit)
                    case .square: put(move.from)
                    }
                    if isCapture { put(UInt8(ascii: "x")) }
                    put(move.to)
                }
            }
            var after = self
            after.make(packed)
            if after.isCheck { put(after.hasLegalMoves ? UInt8(ascii: "+") : UInt8(ascii: "#")) }
            return count
        }
    }

    /// What of a move's origin SAN names to tell it from the moves of other pieces of the
    /// same kind to the same square.
    private enum Disambiguation {
        case none, file, rank, square
    }

    /// The file, rank or square of the origin needed to tell `move` apart from other legal
    /// moves of pieces of the same kind to the same square: the file when it is unique,
    /// else the rank when that is, else both.
    private func disambiguation(for move: Move, kind: PieceKind) -> Disambiguation {
        let (rivals, sameFile, sameRank) = withLegalMoves { moves in
            var rivals = false
            var sameFile = false
            var sameRank = false
            for rival in moves
            where rival.toIndex == move.to.rawValue && rival.fromIndex != move.from.rawValue
                && self.kind(at: 1 << rival.fromIndex) == kind
            {
                rivals = true
                if rival.fromIndex & 7 == move.from.file { sameFile = true }
                if rival.fromIndex >> 3 == move.from.rank { sameRank = true }
            }
            return (rivals, sameFile, sameRank)
        }
        guard rivals else { return .none }
        if !sameFile { return .file }
        if !sameRank { return .rank }
        return .square
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
