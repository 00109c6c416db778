import BoardKit
import Chess
import Testing

@testable import Kernel

/// The packed placement's square sets, against a square-by-square reading.
@Suite struct PackedBoardTests {
    static let seed: UInt64 = 0x9AC_4ED

    @Test func differencesAndOccupancyMatchTheSquares() {
        var rng = SplitMix64(seed: Self.seed)
        for _ in 0..<2_000 {
            var one = PackedBoard()
            var other = PackedBoard()
            for square in 0..<64 {
                // Every code, empty often, and the two boards often alike.
                let code = rng.next() % 3 == 0 ? 0 : rng.next() % 16
                one.setCode(code, at: square)
                other.setCode(rng.next() % 4 == 0 ? rng.next() % 16 : code, at: square)
            }
            var differ: UInt64 = 0
            var filled: UInt64 = 0
            for square in 0..<64 {
                if one.code(at: square) != other.code(at: square) { differ |= 1 << UInt64(square) }
                if one.code(at: square) != 0 { filled |= 1 << UInt64(square) }
            }
            #expect(one.differences(from: other) == differ)
            #expect(one.occupancy == filled)
        }
    }

    @Test func aMoveIsAppliedAsThePositionPlaysIt() throws {
        // Castling both ways, en passant, a promotion to a knight, a capture.
        for (fen, uci) in [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"), ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n"),
            ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
        ] {
            let position = try Position(fen: fen)
            let move = try #require(position.legalMove(uci: uci))
            #expect(
                PackedBoard(position: position).applying(move) == PackedBoard(position: position.applying(move)),
                "\(uci)")
        }
    }
}
