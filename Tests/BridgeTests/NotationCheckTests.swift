import Testing

@testable import Bridge

@Suite struct NotationCheckTests {
    @Test(arguments: [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "8/8/8/4k3/8/8/8/4K3 w - -",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "4k3/8/8/8/8/8/8/4K3  b  -  -  12  80",
    ])
    func acceptsFENShapes(fen: String) {
        #expect(NotationCheck.fenProblem(fen) == nil)
    }

    @Test(arguments: [
        ("", "expected 6 fields, got 0"),
        ("8/8/8/8/8/8/8/8 w - - 0", "expected 6 fields, got 5"),
        ("8/8/8/8/8/8/8 w - - 0 1", "expected 8 ranks separated by /, got 7"),
        ("44/8/8/8/8/8/8/8 w - - 0 1", "rank 8 has two digits in a row"),
        ("7/8/8/8/8/8/8/8 w - - 0 1", "rank 8 describes 7 squares instead of 8"),
        ("8/8/8/8/8/8/8/7x w - - 0 1", "rank 1 holds \"x\""),
        ("8/8/8/8/8/8/8/8 W - - 0 1", "side to move must be w or b, got W"),
        ("8/8/8/8/8/8/8/8 w KK - 0 1", "castling rights must be - or letters from KQkq, got KK"),
        ("8/8/8/8/8/8/8/8 w - e4 0 1", "en passant square must be - or on rank 3 or 6, got e4"),
        ("8/8/8/8/8/8/8/8 w - E3 0 1", "en passant square must be - or on rank 3 or 6, got E3"),
        ("8/8/8/8/8/8/8/8 w - - x 1", "halfmove clock must be a whole number, got x"),
        ("8/8/8/8/8/8/8/8 w - - 0 0", "move number must be a positive whole number, got 0"),
        ("8/8/8/8/8/8/8/8 w - - -1 1", "halfmove clock must be a whole number, got -1"),
    ])
    func refusesBadFENShapes(fen: String, reason: String) {
        #expect(NotationCheck.fenProblem(fen) == reason)
    }

    @Test func refusesLongFEN() {
        #expect(NotationCheck.fenProblem(String(repeating: "8", count: 200)) == "longer than 128 characters")
    }

    @Test(arguments: [
        "?", "-", "300", "300+2", "5400+30", "40/7200", "40/5400+30:1800+30", "40/7200:20/3600:900", "*180", "0.5+0.5",
    ])
    func acceptsTimeControls(text: String) {
        #expect(NotationCheck.timeControlProblem(text) == nil)
    }

    @Test(arguments: [
        ("", "empty"),
        ("0", "period \"0\": the time must be a positive number of seconds"),
        ("abc", "period \"abc\": the time must be a positive number of seconds"),
        ("300+", "period \"300+\": the increment must be a number of seconds"),
        ("0/300", "period \"0/300\": the move count must be a positive whole number"),
        ("/300", "period \"/300\": the move count must be a positive whole number"),
        ("300:40/60", "period \"300\" has no move count but is not the last period"),
        ("40/5400:", "period \"\": the time must be a positive number of seconds"),
        ("*0", "a sandclock is * followed by positive seconds"),
        ("-5", "period \"-5\": the time must be a positive number of seconds"),
        (" 300", "period \" 300\": the time must be a positive number of seconds"),
        ("1e3", "period \"1e3\": the time must be a positive number of seconds"),
    ])
    func refusesBadTimeControls(text: String, reason: String) {
        #expect(NotationCheck.timeControlProblem(text) == reason)
    }
}
