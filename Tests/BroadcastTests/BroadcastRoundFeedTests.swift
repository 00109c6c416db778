import Broadcast
import Chess
import Testing

@Suite struct BroadcastRoundFeedTests {
    static func round() throws -> BroadcastRound {
        try BroadcastRound(
            csv: """
                board,board_id,white,white_title,white_fide_id,white_rating,black,black_title,black_fide_id
                2,board-b,"Roe, Richard",IM,2020009,2505,"Poe, Ed",,
                1,board-a,"Doe, John",GM,1503014,2830,"Moe, Max",FM,4100000
                3,,"Loe, Lee",,,,"Zoe, Zed",,
                """, round: "5", event: "Club open", site: "Hall 1", date: "2026.12.05", timeControl: "5400+30")
    }

    @Test func everyGameIsServedInBoardOrderWithTheRelayTags() throws {
        var feed = BroadcastRoundFeed(round: try Self.round(), delay: 0, at: 0)
        var game = Game(tags: ["White": "board's own name", "ECO": "C20"])
        try game.play(Move(uci: "e2e4")!, clock: 5398)
        try game.play(Move(uci: "e7e5")!, clock: 5395.5)
        let inRound = feed.update(
            boardID: "board-a", game: game, clocks: BroadcastClocks(white: 5398, black: 5395.5), at: 1)
        let outside = feed.update(boardID: "board-z", game: game, clocks: nil, at: 1)
        #expect(inRound && !outside)
        let games = try Game.games(pgn: feed.gamesPGN(at: 2))
        #expect(games.map { $0.tags["Round"] } == ["5.1", "5.2", "5.3"])
        let top = games[0]
        #expect(top.moves.map(\.san) == ["e4", "e5"])
        #expect(top.moves.map(\.clock) == [5398, 5395.5])
        #expect(top.tags["White"] == "Doe, John")
        #expect(top.tags["WhiteTitle"] == "GM")
        #expect(top.tags["WhiteFideId"] == "1503014")
        #expect(top.tags["BlackFideId"] == "4100000")
        #expect(top.tags["WhiteElo"] == "2830")
        #expect(top.tags["WhiteClock"] == "1:29:58")
        #expect(top.tags["BlackClock"] == "1:29:55.5")
        #expect(top.tags["TimeControl"] == "5400+30")
        #expect(top.tags["ECO"] == "C20")
        #expect(top.tags["GameId"] == feed.round.pairings[0].gameID)
        #expect(top.result == .ongoing)
        #expect(games[2].moves.isEmpty)
        #expect(feed.gamePGN(number: 1, at: 2) == feed.gamesPGN(at: 2).components(separatedBy: "\n\n[")[0] + "\n")
        #expect(feed.gamePGN(number: 4, at: 2) == nil)
    }

    /// Issue #30 (3): a timed round's game whose moves come without clock times is named.
    @Test func aTimedGameWithoutClockTimesIsNamed() throws {
        var feed = BroadcastRoundFeed(round: try Self.round(), delay: 0, at: 0)
        var clocked = Game()
        var bare = Game()
        for (index, uci) in ["e2e4", "e7e5", "g1f3", "b8c6"].enumerated() {
            try clocked.play(Move(uci: uci)!, clock: 5400 - Double(index))
            try bare.play(Move(uci: uci)!)
        }
        feed.update(boardID: "board-a", game: clocked, clocks: nil, at: 1)
        feed.update(boardID: "board-b", game: bare, clocks: nil, at: 1)
        #expect(feed.gamesWithoutClockTimes().map(\.boardNumber) == [2])
        // The first two plies may come unclocked (the clock starts with the first move).
        var opening = Game()
        try opening.play(Move(uci: "e2e4")!)
        try opening.play(Move(uci: "e7e5")!)
        feed.update(boardID: "board-b", game: opening, clocks: nil, at: 2)
        #expect(feed.gamesWithoutClockTimes().isEmpty)
    }

    @Test func theRoundIndexListsThePairingsInBoardOrder() throws {
        var feed = BroadcastRoundFeed(round: try Self.round(), delay: 0, at: 0)
        var game = Game()
        game.result = .draw
        feed.update(boardID: "board-b", game: game, clocks: nil, at: 1)
        #expect(
            feed.roundIndexJSON(at: 2)
                == #"{"date":"2026-12-05","pairings":[{"black":{"fideid":4100000,"fname":"Max","lname":"Moe","title":"FM"},"live":true,"result":"*","white":{"fideid":1503014,"fname":"John","lname":"Doe","title":"GM"}},{"black":{"fname":"Ed","lname":"Poe"},"live":false,"result":"1/2-1/2","white":{"fideid":2020009,"fname":"Richard","lname":"Roe","title":"IM"}},{"black":{"fname":"Zed","lname":"Zoe"},"live":true,"result":"*","white":{"fname":"Lee","lname":"Loe"}}]}"#
                + "\n")
    }

    @Test func aSilentBoardOfARunningGameIsAnOrphan() throws {
        var feed = BroadcastRoundFeed(round: try Self.round(), delay: 0, at: 0)
        feed.heardFrom(boardID: "board-a", at: 100)
        #expect(feed.orphans(at: 110, silence: 60).map(\.boardID) == ["board-b"])
        var finished = Game()
        finished.result = .blackWins
        feed.update(boardID: "board-b", game: finished, clocks: nil, at: 20)
        #expect(feed.orphans(at: 200, silence: 60).map(\.boardID) == ["board-a"])
    }
}

@Suite struct BroadcastRoundFileTests {
    @Test func readsAPairingsJSONFile() throws {
        let round = try BroadcastRound(
            json: #"""
                {"round":"5","event":"Club open","date":"2026.12.05","time_control":"5400+30",
                 "pairings":[{"board":2,"board_id":"board-02","white":{"name":"Roe, R"},"black":{"name":"Poe, E"}},
                  {"board":1,"board_id":"board-01","game_id":"g1",
                   "white":{"name":"Doe, J","title":"GM","fide_id":1503014,"rating":2830,"federation":"ENG"},
                   "black":{"name":"Moe, M"}}]}
                """#)
        #expect(round.round == "5")
        #expect(round.timeControl == "5400+30")
        #expect(round.pairings.map(\.gameID).first == "g1")
        #expect(
            round.pairings[0].white
                == BroadcastPlayer(name: "Doe, J", title: "GM", fideID: 1_503_014, rating: 2830, federation: "ENG"))
    }

    @Test(arguments: [
        (
            #"{"round":"5","pairings":[{"board":1,"white":{"name":"A"},"black":{}}]}"#,
            "pairings[0].black.name is missing"
        ),
        (
            #"{"round":"5","pairings":[{"board":"one","white":{"name":"A"},"black":{"name":"B"}}]}"#,
            "pairings[0].board:"
        ),
        (
            #"{"round":"5","pairings":[{"board":0,"white":{"name":"A"},"black":{"name":"B"}}]}"#,
            "pairings[0].board must be from 1"
        ),
        ("[1,2", "not JSON"),
    ])
    func refusesABrokenFileNamingThePlace(text: String, expected: String) {
        do {
            _ = try BroadcastRound(json: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.hasPrefix(expected), "\(error.message)")
        }
    }

    @Test func theStartCommandCarriesThePlayersTagsAndTimeControl() throws {
        let round = try BroadcastRoundFeedTests.round()
        let command = round.startCommand(for: round.pairings[0])
        #expect(
            command
                == #"{"new_game":{"black":"Moe, Max","board":1,"event":"Club open","round":"5","site":"Hall 1","tags":{"BlackFideId":"4100000","BlackTitle":"FM","GameId":"\#(round.pairings[0].gameID)","WhiteElo":"2830","WhiteFideId":"1503014","WhiteTitle":"GM"},"time_control":"5400+30","white":"Doe, John"},"transaction":"round-5-\#(round.pairings[0].gameID)"}"#
        )
    }
}
