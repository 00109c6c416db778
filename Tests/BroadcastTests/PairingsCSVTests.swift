import Broadcast
import Testing

@Suite struct PairingsCSVTests {
    static let file =
        "\u{FEFF}"
        + [
            "board,board_id,white,white_title,white_fide_id,white_rating,black,black_title,black_fide_id,black_rating",
            #"2,board-02,"Roe, Richard",IM,2020009,2505,"Poe, ""Ed""",,,"#,
            #"1,board-01,"Doe, John",GM,1503014,2830,"Moe, Max",FM,,2301"#,
            "",
            #"3,,"Loe, Lee",,,,"Zoe, Zed",,,"#,
        ].joined(separator: "\r\n")

    @Test func readsQuotedFieldsCRLFAndABOMInBoardOrder() throws {
        let round = try BroadcastRound(csv: Self.file, round: "3")
        #expect(round.pairings.map(\.boardNumber) == [1, 2, 3])
        let top = round.pairings[0]
        #expect(top.boardID == "board-01")
        #expect(top.white == BroadcastPlayer(name: "Doe, John", title: "GM", fideID: 1_503_014, rating: 2830))
        #expect(top.black == BroadcastPlayer(name: "Moe, Max", title: "FM", rating: 2301))
        #expect(round.pairings[1].black.name == #"Poe, "Ed""#)
        #expect(round.pairings[2].boardID == nil)
        #expect(round.pairings.allSatisfy { $0.gameID.hasPrefix("3-") && $0.gameID.count == 10 })
    }

    @Test(arguments: [
        ("board,white,black,colour\n", "1:19: unknown column 'colour'"),
        ("board,white\n", "1:0: the header has no 'black' column"),
        ("board,white,black\n1,A,B\nx,C,D\n", "3:1: 'board' must be a whole number, not 'x'"),
        ("board,white,black\n1,,B\n", "2:3: 'white' is empty"),
        ("board,white,black,white_rating\n1,A,B,12x\n", "2:7: 'white_rating' must be a whole number, not '12x'"),
        ("board,white,black\n1,\"A,B\n", "2:3: a quoted field never closes"),
        ("board,white,black\n1,A\"x,B\n", "2:4: a quote inside an unquoted field"),
        ("board,white,black\n1,A,B,C\n", "2:7: 4 fields where the header names 3"),
        ("board,white,black\n1,A,B\n1,C,D\n", "0:0: board number 1 is paired twice"),
        ("board,board_id,white,black\n1,b1,A,B\n2,b1,C,D\n", "0:0: e-board b1 is given two games"),
        ("", "1:1: the file is empty: a header line is needed"),
    ])
    func refusesWithWhere(text: String, expected: String) {
        #expect(throws: PairingsError.self) { try BroadcastRound(csv: text, round: "1") }
        do {
            _ = try BroadcastRound(csv: text, round: "1")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error)")
        }
    }

    @Test func theGameIdStaysWhenAGameMovesToAnotherBoard() throws {
        var round = try BroadcastRound(csv: Self.file, round: "3")
        let id = round.pairings[2].gameID
        try round.move(gameID: id, toBoard: "board-09", number: 7)
        #expect(round.pairing(onBoard: "board-09")?.gameID == id)
        #expect(round.pairings.last?.boardNumber == 7)
        // The same players in a file numbered otherwise get the same id.
        let renumbered = try BroadcastRound(
            csv: "board,white,black\n12,\"Loe, Lee\",\"Zoe, Zed\"\n", round: "3")
        #expect(renumbered.pairings[0].gameID == id)
        #expect(throws: PairingsError.self) { try round.move(gameID: id, toBoard: "board-01") }
    }
}
