import BoardKit
import Chess
import Testing

@Suite struct SANTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let fen: String
        let uci: String
        let san: String
        var testDescription: String { "\(san) (\(uci))" }
    }

    static let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    static let rooksOnRank = "1k6/8/8/8/8/8/4K3/R6R w - - 0 1"
    static let rooksOnFile = "7k/8/8/R7/8/p7/4K3/R7 w - - 0 1"
    static let threeQueens = "8/7k/8/Q7/8/8/8/Q3Q2K w - - 0 1"
    static let pinnedKnight = "7k/8/8/3b4/8/1N3N2/K7/8 w - - 0 1"
    static let promotion = "1r5k/P7/8/8/8/8/8/K7 w - - 0 1"
    static let castling = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"

    static let cases: [Case] = [
        Case(fen: start, uci: "e2e4", san: "e4"),
        Case(fen: start, uci: "g1f3", san: "Nf3"),
        Case(fen: "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", uci: "e4d5", san: "exd5"),
        Case(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", uci: "e5d6", san: "exd6"),
        Case(fen: rooksOnRank, uci: "a1d1", san: "Rad1"),
        Case(fen: rooksOnRank, uci: "h1d1", san: "Rhd1"),
        Case(fen: rooksOnRank, uci: "a1a2", san: "Ra2"),
        Case(fen: rooksOnFile, uci: "a1a3", san: "R1xa3"),
        Case(fen: rooksOnFile, uci: "a5a3", san: "R5xa3"),
        Case(fen: threeQueens, uci: "a1e5", san: "Qa1e5"),
        Case(fen: threeQueens, uci: "a5e5", san: "Q5e5"),
        Case(fen: threeQueens, uci: "e1e5", san: "Qee5"),
        Case(fen: pinnedKnight, uci: "f3d4", san: "Nd4"),
        Case(fen: promotion, uci: "a7a8q", san: "a8=Q"),
        Case(fen: promotion, uci: "a7a8r", san: "a8=R"),
        Case(fen: promotion, uci: "a7a8b", san: "a8=B"),
        Case(fen: promotion, uci: "a7a8n", san: "a8=N"),
        Case(fen: promotion, uci: "a7b8q", san: "axb8=Q+"),
        Case(fen: promotion, uci: "a7b8n", san: "axb8=N"),
        Case(fen: castling, uci: "e1g1", san: "O-O"),
        Case(fen: castling, uci: "e1c1", san: "O-O-O"),
        Case(fen: "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", uci: "e8c8", san: "O-O-O"),
        Case(fen: "5k2/8/8/8/8/8/8/4K2R w K - 0 1", uci: "e1g1", san: "O-O+"),
        Case(fen: castling, uci: "a1a8", san: "Rxa8+"),
        Case(fen: "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", uci: "a1a8", san: "Ra8#"),
        Case(fen: "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2", uci: "d8h4", san: "Qh4#"),
        Case(fen: "7k/8/6K1/5Q2/8/8/8/8 w - - 0 1", uci: "f5f7", san: "Qf7"),
        Case(fen: "7k/P7/8/8/8/8/8/K7 w - - 0 1", uci: "a7a8q", san: "a8=Q+"),
    ]

    @Test(arguments: cases)
    func printsSAN(_ testCase: Case) throws {
        let position = try Position(fen: testCase.fen)
        let move = try #require(position.legalMove(uci: testCase.uci))
        #expect(position.san(for: move) == testCase.san)
    }

    @Test(arguments: cases)
    func parsesSAN(_ testCase: Case) throws {
        let position = try Position(fen: testCase.fen)
        #expect(try position.move(san: testCase.san).uci == testCase.uci)
    }

    struct Variant: Sendable, CustomTestStringConvertible {
        let fen: String
        let text: String
        let uci: String
        var testDescription: String { text }
    }

    static let variants: [Variant] = [
        Variant(fen: start, text: "e4!?", uci: "e2e4"),
        Variant(fen: start, text: "Nf3!", uci: "g1f3"),
        Variant(fen: start, text: "  Nf3  ", uci: "g1f3"),
        Variant(fen: start, text: "Ng1f3", uci: "g1f3"),
        Variant(fen: start, text: "Ng1-f3", uci: "g1f3"),
        Variant(fen: start, text: "e2e4", uci: "e2e4"),
        Variant(fen: start, text: "e2-e4", uci: "e2e4"),
        Variant(fen: castling, text: "0-0", uci: "e1g1"),
        Variant(fen: castling, text: "0-0-0", uci: "e1c1"),
        Variant(fen: castling, text: "O-O+", uci: "e1g1"),
        Variant(fen: castling, text: "Kg1", uci: "e1g1"),
        Variant(fen: promotion, text: "a8Q", uci: "a7a8q"),
        Variant(fen: promotion, text: "a8=q", uci: "a7a8q"),
        Variant(fen: promotion, text: "axb8N", uci: "a7b8n"),
        Variant(fen: promotion, text: "ab8=R", uci: "a7b8r"),
        Variant(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", text: "exd6 e.p.", uci: "e5d6"),
        Variant(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", text: "e:d6", uci: "e5d6"),
        Variant(fen: rooksOnFile, text: "R1a3", uci: "a1a3"),
        Variant(fen: rooksOnRank, text: "Ra1d1", uci: "a1d1"),
        Variant(fen: pinnedKnight, text: "Nfd4", uci: "f3d4"),
    ]

    @Test(arguments: variants)
    func acceptsCommonVariants(_ variant: Variant) throws {
        let position = try Position(fen: variant.fen)
        #expect(try position.move(san: variant.text).uci == variant.uci)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let fen: String
        let text: String
        let error: SANError
        var testDescription: String { "\(error)" }
    }

    static let failures: [Failure] = [
        Failure(fen: start, text: "", error: .invalidSyntax("")),
        Failure(fen: start, text: "+", error: .invalidSyntax("+")),
        Failure(fen: start, text: "hello", error: .invalidSyntax("hello")),
        Failure(fen: start, text: "Nf9", error: .invalidSyntax("Nf9")),
        Failure(fen: start, text: "Zf3", error: .invalidSyntax("Zf3")),
        Failure(fen: start, text: "Nf3=Q", error: .invalidSyntax("Nf3=Q")),
        Failure(fen: start, text: "e5", error: .noSuchMove("e5")),
        Failure(fen: start, text: "Ke2", error: .noSuchMove("Ke2")),
        Failure(fen: start, text: "O-O", error: .noSuchMove("O-O")),
        Failure(fen: start, text: "Nbd2", error: .noSuchMove("Nbd2")),
        Failure(fen: promotion, text: "a8", error: .noSuchMove("a8")),
        Failure(fen: pinnedKnight, text: "Nbd4", error: .noSuchMove("Nbd4")),
        Failure(fen: rooksOnRank, text: "Rd1", error: .ambiguous("Rd1")),
        Failure(fen: rooksOnFile, text: "Rxa3", error: .ambiguous("Rxa3")),
        Failure(fen: threeQueens, text: "Qe5", error: .ambiguous("Qe5")),
        Failure(fen: threeQueens, text: "Qae5", error: .ambiguous("Qae5")),
    ]

    @Test(arguments: failures)
    func rejectsWithTheText(_ failure: Failure) throws {
        let position = try Position(fen: failure.fen)
        #expect(throws: failure.error) { try position.move(san: failure.text) }
    }

    /// Every legal move along a deterministic random walk prints as SAN that parses back to
    /// the same move.
    @Test func everyLegalMoveRoundTrips() throws {
        var random = SplitMix64(seed: 42)
        for fen in [Self.start, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"] {
            var position = try Position(fen: fen)
            for _ in 0..<40 {
                let moves = position.legalMoves()
                guard !moves.isEmpty else { break }
                for move in moves {
                    let san = position.san(for: move)
                    #expect(try position.move(san: san) == move, "\(san) in \(position.fen)")
                }
                position.apply(moves[Int(random.next() % UInt64(moves.count))])
            }
        }
    }
}
