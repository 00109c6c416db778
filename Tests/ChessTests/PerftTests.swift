import Chess
import Testing

/// Published node counts (chessprogramming.org "Perft Results", cross-checked against
/// several independent engines' test suites). Depths keep a debug run to a few seconds;
/// deeper counts are measured in release builds (see the report in the branch history).
@Suite struct PerftTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let fen: String
        let counts: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "start position",
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            counts: [20, 400, 8902, 197_281]),
        Case(
            name: "Kiwipete (position 2)",
            fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            counts: [48, 2039, 97862, 4_085_603]),
        Case(
            name: "position 3 (en passant, pins)",
            fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            counts: [14, 191, 2812, 43238, 674_624]),
        Case(
            name: "position 4 (promotions, castling)",
            fen: "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            counts: [6, 264, 9467, 422_333]),
        Case(
            name: "position 4 mirrored",
            fen: "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            counts: [6, 264, 9467]),
        Case(
            name: "position 5",
            fen: "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            counts: [44, 1486, 62379, 2_103_487]),
        Case(
            name: "position 6",
            fen: "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            counts: [46, 2079, 89890]),
    ]

    @Test(arguments: cases)
    func matchesPublishedNodeCounts(_ testCase: Case) throws {
        let position = try Position(fen: testCase.fen)
        for (index, expected) in testCase.counts.enumerated() {
            #expect(position.perft(depth: index + 1) == expected, "depth \(index + 1)")
        }
    }

    @Test func depthZeroIsOneNode() {
        #expect(Position.starting.perft(depth: 0) == 1)
        #expect(Position.starting.perft(depth: -3) == 1)
    }

    @Test func divideSumsToPerft() throws {
        let position = try Position(fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
        let divide = position.perftDivide(depth: 3)
        #expect(divide.count == 14)
        #expect(divide.map(\.nodes).reduce(0, +) == 2812)
    }

    @Test func legalMoveListMatchesDepthOne() throws {
        for testCase in Self.cases {
            let position = try Position(fen: testCase.fen)
            let moves = position.legalMoves()
            #expect(moves.count == testCase.counts[0], "\(testCase.name)")
            #expect(Set(moves).count == moves.count, "no duplicates in \(testCase.name)")
        }
    }
}
