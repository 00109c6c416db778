public import BoardKit
import FoundationEssentials

extension Position {
    /// Parses a FEN string, e.g. `rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1`.
    ///
    /// Besides the syntax of each field, the position must make sense: one king per side,
    /// no pawn on rank 1 or 8, castling rights only with king and rook at home, an
    /// en-passant square only behind a pawn that just advanced two squares, and the side
    /// not to move not in check. The two clock fields may be left out (they default to `0 1`).
    public init(fen: String) throws(FENError) {
        let fields = fen.split(whereSeparator: \.isWhitespace)
        guard (4...6).contains(fields.count) else { throw .wrongFieldCount(fields.count) }
        self.init()
        try parsePlacement(fields[0])

        switch fields[1] {
        case "w": sideToMove = .white
        case "b": sideToMove = .black
        default: throw .invalidSideToMove(String(fields[1]))
        }

        guard let rights = CastlingRights(fen: fields[2]) else { throw .invalidCastling(String(fields[2])) }
        castlingRights = rights

        if fields[3] != "-" {
            guard let square = Square(fields[3]) else { throw .invalidEnPassant(String(fields[3])) }
            enPassantSquare = square
        }

        if fields.count > 4 {
            guard let clock = Int(fields[4]), clock >= 0 else { throw .invalidHalfmoveClock(String(fields[4])) }
            halfmoveClock = clock
        }
        if fields.count > 5 {
            guard let number = Int(fields[5]), number >= 1 else { throw .invalidFullmoveNumber(String(fields[5])) }
            fullmoveNumber = number
        }
        try validate(castlingText: String(fields[2]), enPassantText: String(fields[3]))
    }

    /// A position from a board snapshot and the state a snapshot cannot show, validated
    /// like a FEN (the errors name the FEN field that would be at fault).
    public init(
        snapshot: BoardSnapshot, sideToMove: PieceColor = .white, castlingRights: CastlingRights = [],
        enPassantSquare: Square? = nil, halfmoveClock: Int = 0, fullmoveNumber: Int = 1
    ) throws(FENError) {
        self.init()
        for square in Square.allCases {
            if let piece = snapshot[square] { place(piece, at: square.rawValue) }
        }
        self.sideToMove = sideToMove
        self.castlingRights = castlingRights
        self.enPassantSquare = enPassantSquare
        guard halfmoveClock >= 0 else { throw .invalidHalfmoveClock(String(halfmoveClock)) }
        guard fullmoveNumber >= 1 else { throw .invalidFullmoveNumber(String(fullmoveNumber)) }
        self.halfmoveClock = halfmoveClock
        self.fullmoveNumber = fullmoveNumber
        try validate(castlingText: castlingRights.fen, enPassantText: enPassantSquare?.name ?? "-")
    }

    private mutating func parsePlacement(_ placement: Substring) throws(FENError) {
        let ranks = placement.split(separator: "/", omittingEmptySubsequences: false)
        guard ranks.count == 8 else { throw .invalidPlacement(String(placement)) }
        for (index, rankText) in ranks.enumerated() {
            let rank = 7 - index
            var file = 0
            for character in rankText {
                if let digit = character.wholeNumberValue, (1...8).contains(digit), character.isASCII {
                    file += digit
                } else if let piece = Piece(fenLetter: character), character.isASCII {
                    if file < 8 { place(piece, at: rank * 8 + file) }
                    file += 1
                } else {
                    throw .invalidPiece(String(character))
                }
            }
            guard file == 8 else { throw .invalidRankLength(rank: rank + 1, text: String(rankText)) }
        }
    }

    /// The checks a FEN's fields must pass together.
    private func validate(castlingText: String, enPassantText: String) throws(FENError) {
        for color in PieceColor.allCases {
            let count = (kings & pieces(of: color)).nonzeroBitCount
            if count == 0 { throw .missingKing(color) }
            if count > 1 { throw .tooManyKings(color, count: count) }
        }
        let backRanks: Bitboard = 0xFF00_0000_0000_00FF
        if pawns & backRanks != 0, let square = Square(rawValue: (pawns & backRanks).trailingZeroBitCount) {
            throw .pawnOnBackRank(square)
        }
        let homes: [(CastlingRights, PieceColor, king: Int, rook: Int)] = [
            (.whiteKingside, .white, 4, 7), (.whiteQueenside, .white, 4, 0),
            (.blackKingside, .black, 60, 63), (.blackQueenside, .black, 60, 56),
        ]
        for (right, color, king, rook) in homes where castlingRights.contains(right) {
            let own = pieces(of: color)
            guard kings & own & (1 << king) != 0, rooks & own & (1 << rook) != 0 else {
                throw .invalidCastling(castlingText)
            }
        }
        if enPassantIndex >= 0 {
            let target = Int(enPassantIndex)
            let white = sideToMove == .white
            guard target >> 3 == (white ? 5 : 2) else { throw .invalidEnPassant(enPassantText) }
            let pawnSquare = white ? target - 8 : target + 8
            let origin = white ? target + 8 : target - 8
            let enemy = pieces(of: sideToMove.opponent)
            guard pawns & enemy & (1 << pawnSquare) != 0, occupied & ((1 << target) | (1 << origin)) == 0 else {
                throw .invalidEnPassant(enPassantText)
            }
        }
        let mover = sideToMove.opponent
        let king = kings & pieces(of: mover)
        if attackers(of: king.trailingZeroBitCount, by: sideToMove, occupied: occupied) != 0 {
            throw .sideNotToMoveInCheck(mover)
        }
    }

    /// The position in Forsyth–Edwards Notation (all six fields).
    public var fen: String {
        // Written byte by byte into the string's own storage: every move makes one, and a
        // move's message carries it (the placement, 4 short fields and two counters).
        String(unsafeUninitializedCapacity: FENPlacement.maximumLength + 52) { bytes in
            var count = FENPlacement.write(into: bytes, from: 0) { self[$0]?.fenASCII }
            func put(_ byte: UInt8) {
                bytes[count] = byte
                count += 1
            }
            func put(_ number: Int) {
                if number < 0 { put(UInt8(ascii: "-")) }
                var rest = number.magnitude
                var scale: UInt = 1
                while rest / scale >= 10 { scale *= 10 }
                while scale > 0 {
                    put(UInt8(ascii: "0") + UInt8(rest / scale))
                    rest %= scale
                    scale /= 10
                }
            }
            put(UInt8(ascii: " "))
            put(sideToMove == .white ? UInt8(ascii: "w") : UInt8(ascii: "b"))
            put(UInt8(ascii: " "))
            for byte in castlingRights.fen.utf8 { put(byte) }
            put(UInt8(ascii: " "))
            if let square = enPassantSquare {
                put(square.fileLetter)
                put(square.rankDigit)
            } else {
                put(UInt8(ascii: "-"))
            }
            put(UInt8(ascii: " "))
            put(halfmoveClock)
            put(UInt8(ascii: " "))
            put(fullmoveNumber)
            return count
        }
    }
}

extension Position: Codable {
    /// Decodes a position from its FEN string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(fen: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the position as its FEN string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fen)
    }
}

extension Position: CustomStringConvertible {
    /// The FEN.
    public var description: String { fen }
}
