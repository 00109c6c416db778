import Testing

@testable import Bridge
@testable import Contract

/// The checks delegate to the modules that own the notations (their own suites test
/// every rule); these tests pin the delegation and the length guards.
@Suite struct NotationCheckTests {
    @Test(arguments: [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "8/8/8/4k3/8/8/8/4K3 w - -",
    ])
    func acceptsLegalPositions(fen: String) {
        #expect(NotationCheck.fenProblem(fen) == nil)
    }

    @Test(arguments: [
        ("8/8/8/8/8/8/8 w - - 0 1", #"FEN placement "8/8/8/8/8/8/8" does not have 8 ranks"#),
        ("8/8/8/8/8/8/8/8 W - - 0 1", #"FEN side to move "W" is not w or b"#),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "the white king is missing"),
    ])
    func refusesWhatTheChessModuleRefuses(fen: String, reason: String) {
        #expect(NotationCheck.fenProblem(fen) == reason)
    }

    @Test func refusesLongInput() {
        #expect(NotationCheck.fenProblem(String(repeating: "8", count: 200)) == "longer than 128 characters")
        #expect(NotationCheck.timeControlProblem(String(repeating: "9", count: 65)) == "longer than 64 characters")
    }

    @Test(arguments: ["?", "-", "300", "300+2", "40/5400+30:1800+30", "*180"])
    func acceptsTimeControlsTheKernelRuns(text: String) {
        #expect(NotationCheck.timeControlProblem(text) == nil)
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("300+", #"the increment after "+" must be a number of seconds"#),
        ("300:40/60", #"only the last period may be without a move count ("40/")"#),
    ])
    func refusesWhatTheKernelRefuses(text: String, reason: String) {
        #expect(NotationCheck.timeControlProblem(text) == reason)
    }
}
