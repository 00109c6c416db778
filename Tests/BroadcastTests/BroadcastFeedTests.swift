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

    @Test func aCorrectionReplacesTheMovesAndTheirTimes() throws {
        var game = Game()
        try game.play(Move(uci: "e2e4")!)
        try game.play(Move(uci: "e7e5")!)
        var feed = BroadcastGameFeed(game: game, at: 0)
        game.takeBack(plies: 1)
        try game.play(Move(uci: "c7c5")!)
        feed.update(game: game, clocks: nil, at: 100)
        // 60 s behind at 130: the corrected move is 30 s old, not shown; e4 is.
        #expect(feed.view(at: 130, delay: 60).game.moves.map(\.san) == ["e4"])
        #expect(feed.view(at: 160, delay: 60).game.moves.map(\.san) == ["e4", "c5"])
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
