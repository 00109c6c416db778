import BoardKit
import Testing

@testable import Chess

/// `Position.fen` writes byte by byte into storage reserved for the longest FEN a position
/// can make (every square filled, every castling right, an en-passant square, both counters
/// at `Int.min`: 123 bytes): that FEN comes out whole and right, signs and all.
@Suite struct FENLengthTests {
    @Test func theLongestFENIsWrittenWhole() {
        var position = Position.starting
        position.whitePieces = .max
        position.blackPieces = 0
        position.pawns = .max
        position.knights = 0
        position.bishops = 0
        position.rooks = 0
        position.queens = 0
        position.kings = 0
        position.castlingRights = [.whiteKingside, .whiteQueenside, .blackKingside, .blackQueenside]
        position.enPassantSquare = .e3
        position.halfmoveClock = .min
        position.fullmoveNumber = .min
        let rank = "PPPPPPPP"
        let expected =
            Array(repeating: rank, count: 8).joined(separator: "/")
            + " w KQkq e3 -9223372036854775808 -9223372036854775808"
        #expect(position.fen == expected)
        #expect(position.fen.utf8.count == 123)
    }
}
