import Broadcast
import Chess
import Testing

/// Issue #30 (5): pairings as pairing programs export them, a PGN file of the round's games.
@Suite struct PairingsPGNTests {
    static let export = """
        [Event "Weekend Open"]
        [Site "Town Hall"]
        [Date "2026.12.05"]
        [Round "5.2"]
        [White "Roe, Richard"]
        [Black "Poe, Edgar"]
        [WhiteTitle "IM"]
        [WhiteElo "2505"]
        [WhiteFideId "2020009"]
        [BlackFed "USA"]
        [BoardId "board-b"]
        [Result "*"]

        *

        [Event "Weekend Open"]
        [Round "5.1"]
        [White "Doe, John"]
        [Black "Moe, Max"]
        [WhiteTitle "GM"]
        [BlackFideId "4100000"]
        [Result "*"]

        *

        [Event "Weekend Open"]
        [Round "5"]
        [Board "7"]
        [White "Loe, Lee"]
        [Black "Zoe, Zed"]
        [GameId "keep-me"]
        [Result "*"]

        *
        """

    @Test func readsPlayersBoardsAndTheRoundFromTheTags() throws {
        let round = try BroadcastRound(pgn: Self.export, round: nil)
        #expect(round.round == "5")
        #expect(round.event == "Weekend Open" && round.site == "Town Hall" && round.date == "2026.12.05")
        #expect(round.pairings.map(\.boardNumber) == [1, 2, 7])
        let second = round.pairings[1]
        #expect(second.white == BroadcastPlayer(name: "Roe, Richard", title: "IM", fideID: 2_020_009, rating: 2505))
        #expect(second.black == BroadcastPlayer(name: "Poe, Edgar", federation: "USA"))
        #expect(second.boardID == "board-b")
        #expect(round.pairings[0].black.fideID == 4_100_000 && round.pairings[0].boardID == nil)
        #expect(round.pairings[2].gameID == "keep-me")
        // The configured name and event win over the file's.
        let named = try BroadcastRound(pgn: Self.export, round: "final", event: "Club Final")
        #expect(named.round == "final" && named.event == "Club Final")
        // The same games and board order as the CSV would give: the relay's game ids are stable.
        #expect(round.pairings[0].gameID == (try BroadcastRound(pgn: Self.export, round: nil)).pairings[0].gameID)
    }

    @Test(arguments: [
        ("", "the file holds no game"),
        ("[White \"A\"]\n[Black \"?\"]\n*\n", "game 1 (A – ?): no Black player"),
        ("[White \"A\"]\n[Black \"B\"]\n[Board \"x\"]\n*\n", "game 1 (A – B): Board must be a whole number, not 'x'"),
        (
            "[Round \"3.1\"]\n[White \"A\"]\n[Black \"B\"]\n*\n\n[Round \"3.1\"]\n[White \"C\"]\n[Black \"D\"]\n*\n",
            "board number 1 is paired twice"
        ),
        ("[White \"A\"]\n[Black \"B\"]\n*\n", "no round name"),
        ("[White \"A\"\n", "not PGN"),
    ])
    func refusesWithTheGameNamed(_ text: String, _ message: String) {
        do {
            _ = try BroadcastRound(
                pgn: text, round: text.contains("Round") ? nil : (message == "no round name" ? nil : "1"))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
