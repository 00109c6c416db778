import BoardKit
import Chess
import Testing

@Suite struct PGNTests {
    static let operaGame = """
        [Event "Paris"]
        [Site "Paris FRA"]
        [Date "1858.??.??"]
        [Round "?"]
        [White "Paul Morphy"]
        [Black "Duke Karl / Count Isouard"]
        [Result "1-0"]
        [ECO "C41"]

        % an escape line, ignored
        {The Opera Game.} 1. e4 e5 2. Nf3 d6 {Philidor Defence} 3. d4 Bg4 $6
        (3... exd4 4. Nxd4 Nf6 (4... g6 {fianchetto}) 5. Nc3) 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6
        7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 $2 10. Nxb5! cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8
        13. Rxd7 Rxd7 ; the rook is pinned
        14. Rd1 Qe6 15.Bxd7+ Nxd7 16. Qb8+!! Nxb8 17. Rd8# 1-0

        """

    @Test func importsARealGameWithCommentsNAGsAndVariations() throws {
        let game = try Game(pgn: Self.operaGame)
        #expect(game.moves.count == 33)
        #expect(game.moves.first?.san == "e4")
        #expect(game.moves.last?.san == "Rd8#")
        #expect(game.moves[20].san == "Bxb5+")
        #expect(game.moves[22].san == "O-O-O")
        #expect(game.result == .whiteWins)
        #expect(game.termination == .checkmate(winner: .white))
        #expect(game.tags["White"] == "Paul Morphy")
        #expect(game.tags["Black"] == "Duke Karl / Count Isouard")
        #expect(game.tags["ECO"] == "C41")
        #expect(game.tags["Result"] == nil)
        #expect(game.moves[3].comment == "Philidor Defence")
        #expect(game.moves[5].comment == nil)
        #expect(game.moves[25].comment == "the rook is pinned")
        #expect(game.startPosition == .starting)
    }

    @Test func exportsGoldenTextAndReimportsIt() throws {
        let game = try Game(pgn: Self.operaGame)
        let expected = """
            [Event "Paris"]
            [Site "Paris FRA"]
            [Date "1858.??.??"]
            [Round "?"]
            [White "Paul Morphy"]
            [Black "Duke Karl / Count Isouard"]
            [Result "1-0"]
            [ECO "C41"]

            1. e4 e5 2. Nf3 d6 { Philidor Defence } 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5
            6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O
            Rd8 13. Rxd7 Rxd7 { the rook is pinned } 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+
            Nxb8 17. Rd8# 1-0

            """
        #expect(game.pgn == expected)
        #expect(game.pgn.split(separator: "\n").allSatisfy { $0.count <= 80 })
        let again = try Game(pgn: game.pgn)
        #expect(again == game)
        #expect(again.pgn == game.pgn)
    }

    @Test func exportsClocksBoardAndTimeControl() throws {
        var game = Game(tags: [
            "Event": "Casual", "Date": "2024.05.01", "White": "Alice", "Black": "Bob", "Annotator": "BoardBridge",
            "TimeControl": "300+2", "Board": "chessnut-air",
        ])
        try game.play(san: "e4", clock: 300)
        try game.play(san: "e5", clock: 298.5)
        try game.play(san: "Nf3", clock: 297)
        try game.play(san: "Nc6")
        try game.play(san: "Bb5", clock: 3725.04)
        try game.play(san: "a6")
        let expected = """
            [Event "Casual"]
            [Site "?"]
            [Date "2024.05.01"]
            [Round "?"]
            [White "Alice"]
            [Black "Bob"]
            [Result "*"]
            [Board "chessnut-air"]
            [TimeControl "300+2"]
            [Annotator "BoardBridge"]

            1. e4 { [%clk 0:05:00] } 1... e5 { [%clk 0:04:58.5] } 2. Nf3 { [%clk 0:04:57] }
            2... Nc6 3. Bb5 { [%clk 1:02:05] } 3... a6 *

            """
        #expect(game.pgn == expected)
        let again = try Game(pgn: game.pgn)
        #expect(again.moves.map(\.clock) == [300, 298.5, 297, nil, 3725, nil])
        #expect(again.pgn == game.pgn)
    }

    @Test func importsLichessStyleClocks() throws {
        let pgn = """
            [Event "Rated Blitz game"]
            [White "a"]
            [Black "b"]
            [Result "0-1"]
            [TimeControl "180+0"]

            1. f3 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59.5] [%eval 0.1] } 2. g4 { [%clk 0:02:58] }
            2... Qh4# { [%clk 0:02:57] } 0-1
            """
        let game = try Game(pgn: pgn)
        #expect(game.moves.map(\.clock) == [180, 179.5, 178, 177])
        #expect(game.moves[1].comment == "[%eval 0.1]")
        #expect(game.result == .blackWins)
        #expect(game.tags["TimeControl"] == "180+0")
    }

    @Test func exportsAndImportsAStartPosition() throws {
        var game = Game(startPosition: try Position(fen: "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"))
        try game.play(san: "Kd7")
        try game.play(san: "e4")
        game.result = .draw
        let pgn = game.pgn
        #expect(pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]\n"))
        #expect(pgn.hasSuffix("\n\n30... Kd7 31. e4 1/2-1/2\n"))
        let again = try Game(pgn: pgn)
        #expect(again.startPosition == game.startPosition)
        #expect(again.tags["FEN"] == nil)
        #expect(again.result == .draw)
        #expect(again.moves.map(\.move) == game.moves.map(\.move))
    }

    @Test func emptyGameExport() {
        let expected = """
            [Event "?"]
            [Site "?"]
            [Date "????.??.??"]
            [Round "?"]
            [White "?"]
            [Black "?"]
            [Result "*"]

            *

            """
        #expect(Game().pgn == expected)
    }

    @Test func tagValuesAreEscaped() throws {
        let game = Game(tags: ["White": #"Al "the Bear" \ Smith"#])
        #expect(game.pgn.contains(#"[White "Al \"the Bear\" \\ Smith"]"#))
        #expect(try Game(pgn: game.pgn).tags["White"] == #"Al "the Bear" \ Smith"#)
    }

    @Test func readsSeveralGames() throws {
        let text = Self.operaGame + "\n" + "[Event \"Second\"]\n\n1. d4 d5 *\n"
        let games = try Game.games(pgn: text)
        #expect(games.count == 2)
        #expect(games[1].tags["Event"] == "Second")
        #expect(games[1].moves.map(\.san) == ["d4", "d5"])
        #expect(games[1].result == .ongoing)
        #expect(try Game.games(pgn: "  \n").isEmpty)
    }

    @Test func toleratesByteOrderMarkAndWindowsLineEnds() throws {
        let pgn = "\u{FEFF}[Event \"x\"]\r\n\r\n1. e4 e5 ; comment\r\n2. Nf3 !? *\r\n"
        let game = try Game(pgn: pgn)
        #expect(game.tags["Event"] == "x")
        #expect(game.moves.map(\.san) == ["e4", "e5", "Nf3"])
        #expect(game.moves[1].comment == "comment")
    }

    @Test func skipsEnPassantMarks() throws {
        let game = try Game(pgn: "1. e4 Nf6 2. e5 d5 3. exd6 e.p. *")
        #expect(game.moves.last?.san == "exd6")
        #expect(game.position[.d5] == nil)
    }

    @Test func resultFallsBackToTheTag() throws {
        let game = try Game(pgn: "[Result \"1/2-1/2\"]\n\n1. e4 e5\n")
        #expect(game.result == .draw)
        #expect(game.moves.count == 2)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let pgn: String
        let error: PGNError
        var testDescription: String { "\(error)" }
    }

    static let failures: [Failure] = [
        Failure(pgn: "", error: .empty),
        Failure(pgn: "  \n\n ", error: .empty),
        Failure(pgn: "[Event \"x\"\n1. e4", error: .invalidTag("[Event \"x\"")),
        Failure(pgn: "[Event x]\n1. e4", error: .invalidTag("[Event x]")),
        Failure(pgn: "[ \"x\"]", error: .invalidTag("[ \"x\"]")),
        Failure(pgn: "1. e4 {unterminated", error: .unterminatedComment),
        Failure(pgn: "1. e4 (1. d4 d5", error: .unterminatedVariation),
        Failure(pgn: "1. e4 ) e5", error: .unexpectedCharacter(")")),
        Failure(pgn: "1. e4 } e5", error: .unexpectedCharacter("}")),
        Failure(pgn: "1. e4 e5 2. Ke3", error: .invalidMove(san: "Ke3", ply: 2, reason: .noSuchMove("Ke3"))),
        Failure(pgn: "1. e4 e5 2. Xx9", error: .invalidMove(san: "Xx9", ply: 2, reason: .invalidSyntax("Xx9"))),
        Failure(
            pgn: "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*",
            error: .invalidFEN(.missingKing(.white))),
    ]

    @Test(arguments: failures)
    func rejectsWithPreciseError(_ failure: Failure) {
        #expect(throws: failure.error) { try Game(pgn: failure.pgn) }
    }
}
