import BoardKit
import Chess
import Kernel
import Testing

/// The DGT result gesture on identity boards: both kings on the centre squares is a result
/// claim (light squares 1-0, dark 0-1, one of each ½-½), never a move or a game end.
@Suite struct ResultClaimTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)
    /// Kings far from the centre, White to move.
    private let endgame = "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 40"

    private func claims(_ outputs: [TrackerOutput]) -> [GameResult] {
        outputs.compactMap {
            if case .resultClaim(let result) = $0 { return result }
            return nil
        }
    }

    @Test(arguments: [
        (Square.e4, Square.d5, GameResult.whiteWins), (.d5, .e4, .whiteWins), (.d4, .e5, .blackWins),
        (.e5, .d4, .blackWins), (.e4, .e5, .draw), (.d4, .d5, .draw),
    ])
    func bothKingsInTheCentreClaimAResult(white: Square, black: Square, expected: GameResult) {
        var tracker = GameTracker(
            game: Game(startPosition: position(endgame)), inputPath: .identity, options: options)
        var board = PhysicalBoard(placement(endgame), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        var outputs: [TrackerOutput] = []
        var time = 0.0
        // The arbiter lifts both kings, then puts them down in the centre.
        for step: Step in [
            .lift(.g8), .lift(.g1), .place(Piece(.black, .king), black), .place(Piece(.white, .king), white),
        ] {
            time += 1
            for event in board.perform(step) { outputs += tracker.handle(event, at: time) }
        }
        outputs += tracker.tick(at: time + 5)
        #expect(claims(outputs) == [expected])
        #expect(tracker.game.moves.isEmpty)
        #expect(tracker.game.result == .ongoing)
        #expect(tracker.syncState.isOutOfSync)
        // Seen again (the board repeats its frame, a knock elsewhere): one claim only.
        outputs = tracker.tick(at: time + 10)
        #expect(claims(outputs).isEmpty)
    }

    @Test func oneKingInTheCentreIsNoClaim() {
        var tracker = GameTracker(
            game: Game(startPosition: position(endgame)), inputPath: .identity, options: options)
        var board = PhysicalBoard(placement(endgame), path: .identity)
        var outputs = tracker.handle(board.snapshotEvent, at: 0)
        for event in board.perform(.lift(.g8)) { outputs += tracker.handle(event, at: 1) }
        for event in board.perform(.place(Piece(.black, .king), .d5)) { outputs += tracker.handle(event, at: 2) }
        outputs += tracker.tick(at: 5)
        #expect(claims(outputs).isEmpty)
        #expect(tracker.game.moves.isEmpty)
    }
}
