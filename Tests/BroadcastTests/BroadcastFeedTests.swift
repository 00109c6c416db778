import Broadcast
import Chess
import Testing

@Suite struct BroadcastFeedTests {
    /// A game of `plies` random legal moves, each with a clock.
    static func randomGame(plies: Int, seed: UInt64) -> Game {
        var state = seed
        var game = Game()
        for ply in 0..<plies {
            let moves = game.position.legalMoves()
            guard !moves.isEmpty, game.result == .ongoing else { break }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let move = moves[Int(state >> 33) % moves.count]
            try? game.play(move, clock: 5400 - Double(ply) * 7)
        }
        return game
    }

    /// The first `count` moves of `game`.
    static func prefix(of game: Game, _ count: Int) -> Game {
        var copy = game
        copy.takeBack(plies: game.moves.count - count)
        return copy
    }

    @Test(arguments: [0.0, 15, 900])
    func nothingNewerThanTheDelayIsShown(delay: Double) {
        for seed in UInt64(1)...20 {
            let full = Self.randomGame(plies: 60, seed: seed)
            var feed: BroadcastGameFeed?
            var seen: [Double] = []
            var time = 1000.0
            var state = seed
            for count in 0...full.moves.count {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                time += Double(state >> 58)  // 0–63 s between moves
                let game = Self.prefix(of: full, count)
                if feed == nil {
                    feed = BroadcastGameFeed(game: game, at: time)
                } else {
                    feed?.update(game: game, clocks: nil, at: time)
                }
                if count > 0 { seen.append(time) }
                // Look at many instants up to now.
                for probe in stride(from: time - 120, through: time, by: 3.5) {
                    guard let view = feed?.view(at: probe, delay: delay) else { continue }
                    let expected = seen.filter { $0 <= probe - delay }.count
                    #expect(view.game.moves.count == min(expected, count), "seed \(seed) probe \(probe)")
                    #expect(view.game.moves.map(\.move) == Array(full.moves.prefix(view.game.moves.count).map(\.move)))
                }
            }
        }
    }

    /// Issue #30 (5): the pieces set up again after a decisive game must not wipe it, with or
    /// without a delay; the board's next game waits for the next round.
    @Test(arguments: [0.0, 10])
    func aFinishedGameStaysAsItEndedWhenItsBoardIsSetUpAgain(delay: Double) throws {
        // 1. f3 e5 2. g4 Qh4#: 0-1 at t = 100.
        var game = Game()
        var feed = BroadcastGameFeed(game: game, at: 0)
        for (index, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].enumerated() {
            try game.play(Move(uci: uci)!)
            feed.update(game: game, clocks: nil, at: 97 + Double(index))
        }
        #expect(game.result == .blackWins)
        // 40 ms later the board shows the start position: the bridge's next game.
        let wiped = feed.update(game: Game(), clocks: nil, at: 100.04)
        #expect(!wiped)
        var next = Game()
        try next.play(Move(uci: "e2e4")!)
        let taken = feed.update(game: next, clocks: nil, at: 130)
        #expect(!taken)
        for probe in [100.5, 110.5, 200] {
            let view = feed.view(at: probe, delay: delay).game
            if probe - delay >= 100 {
                #expect(view.moves.map(\.move.uci) == ["f2f3", "e7e5", "g2g4", "d8h4"], "probe \(probe)")
                #expect(view.result == .blackWins, "probe \(probe)")
            } else {
                #expect(view.result == .ongoing, "probe \(probe)")
            }
        }
        // A correction of the same game is taken: the mate taken back (the arbiter).
        var corrected = game
        corrected.takeBack(plies: 1)
        let correction = feed.update(game: corrected, clocks: nil, at: 300)
        #expect(correction)
        #expect(feed.view(at: 400, delay: delay).game.moves.count == 3)
    }

    @Test func aCorrectionReplacesTheMovesAndTheirTimes() throws {
        var game = Game()
        try game.play(Move(uci: "e2e4")!)
        try game.play(Move(uci: "e7e5")!)
        var feed = BroadcastGameFeed(game: game, at: 0)
        game.takeBack(plies: 1)
        try game.play(Move(uci: "c7c5")!)
        feed.update(game: game, clocks: nil, at: 100)
        // 60 s behind at 130: the correction is 30 s old, so the line as it stood then is
        // shown (issue #30: removals wait for the delay like moves); at 160 the corrected one.
        #expect(feed.view(at: 130, delay: 60).game.moves.map(\.san) == ["e4", "e5"])
        #expect(feed.view(at: 160, delay: 60).game.moves.map(\.san) == ["e4", "c5"])
        #expect(feed.view(at: 130, delay: 0).game.moves.map(\.san) == ["e4", "c5"])
    }

    /// Issue #30 (5): a takeback and a reset wait for the delay like moves do.
    @Test func takebacksAndResetsAreDelayedLikeMoves() throws {
        var game = Game()
        var feed = BroadcastGameFeed(game: game, at: 0)
        for (index, uci) in ["e2e4", "e7e5", "g1f3"].enumerated() {
            try game.play(Move(uci: uci)!)
            feed.update(game: game, clocks: nil, at: Double(index + 1))
        }
        game.takeBack(plies: 1)
        feed.update(game: game, clocks: nil, at: 20)
        feed.update(game: Game(), clocks: nil, at: 40)
        let shown = { (now: Double) in feed.view(at: now, delay: 10).game.moves.count }
        #expect([2.5, 5, 13, 25, 29.9, 30, 45, 49.9, 50, 60].map(shown) == [0, 0, 3, 3, 3, 2, 2, 2, 0, 0])
        #expect(feed.view(at: 25, delay: 0).game.moves.count == 2)
        #expect(feed.view(at: 45, delay: 0).game.moves.count == 0)
        // A result changed after it was shown: the old one stays for the delay.
        var ended = Game()
        try ended.play(Move(uci: "e2e4")!)
        ended.result = .whiteWins
        var decided = BroadcastGameFeed(game: ended, at: 0)
        ended.result = .draw
        decided.update(game: ended, clocks: nil, at: 100)
        #expect(decided.view(at: 105, delay: 10).game.result == .whiteWins)
        #expect(decided.view(at: 111, delay: 10).game.result == .draw)
    }

    @Test func theResultAndTheClocksWaitForTheDelayToo() throws {
        var game = Game()
        try game.play(Move(uci: "e2e4")!, clock: 299)
        var feed = BroadcastGameFeed(game: game, at: 0)
        feed.update(game: game, clocks: BroadcastClocks(white: 299, black: 300), at: 0)
        game.result = .whiteWins
        feed.update(game: game, clocks: BroadcastClocks(white: 299, black: 300), at: 50)
        #expect(feed.view(at: 60, delay: 30).game.result == .ongoing)
        #expect(feed.view(at: 80, delay: 30).game.result == .whiteWins)
        #expect(feed.view(at: 20, delay: 30).clocks == nil)
        #expect(feed.view(at: 40, delay: 30).clocks == BroadcastClocks(white: 299, black: 300))
    }
}
