import Chess
import Contract
import Foundation
import JSON
import TestSupport
import Testing

/// Issue #32: a Chess Peripheral Protocol board served by `boardsim` over its fake BlueZ,
/// refereed by the bridge end to end.
extension EndToEndTests {
    /// A whole random game exact through the pipeline, across a dropped link with a move
    /// made meanwhile: the board reports that move once the bridge begins the round again,
    /// and the bridge takes it (no guess: the board said which move). In both of the
    /// protocol's dialects: a board of the 2024 one (OPENCHESSBOARD's firmware) refuses the
    /// `begin` it does not know on each link, and its round is begun with `fen`, its bare
    /// `ok` read as the position's squares (in sync before any move).
    @Test(arguments: ["2025", "2024"])
    func chessPeripheralGameAcrossALinkDrop(dialect: String) async throws {
        let board = HallBoard(
            id: "cpp-\(dialect)", family: "cpp", address: dialect == "2024" ? "AA:BB:CC:00:32:23" : "AA:BB:CC:00:32:21",
            simulatorOptions: "dialect=\(dialect)")
        let begins = dialect == "2024" ? "fen" : "begin"
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        try await hall.waitUntilBegun(board.id, with: begins)
        let ready = try await hall.state(board.id, since: 0) { $0["sync"]?["state"] == "in_sync" }
        #expect(ready["ply"] == 0)

        let uci = Self.randomLegalGame(seed: dialect == "2024" ? 3223 : 3221, plies: 40)
        let game = try PlayedGame(uci)
        try await hall.play(board.id, Array(uci.prefix(14)), pace: 0.2)
        try await hall.waitForMoves(board.id, count: 14)

        let mark = hall.recorder.mark
        try await hall.ctl("present", board.id, "false")
        try await waitUntil("the board reported lost", context: hall.report) {
            hall.connectionStates(board.id, since: mark).contains("reconnecting")
        }
        try await hall.play(board.id, [uci[14]], pace: 0.2)
        try await hall.ctl("present", board.id, "true")
        try await hall.waitUntilReady(board.id, since: mark)
        try await hall.waitUntilBegun(board.id, with: begins)
        try await hall.waitForMoves(board.id, count: 15)
        try await hall.play(board.id, Array(uci.dropFirst(15)), pace: 0.2)
        game.expectPublished(try await hall.waitForMoves(board.id, count: uci.count), board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: uci.count), board: board.id)
        _ = try await hall.state(board.id, since: 0) {
            $0["ply"] == JSONValue(uci.count) && $0["sync"]?["state"] == "in_sync"
        }
        let words = try await hall.writes(board.id).map { String(decoding: $0, as: UTF8.self) }
        #expect(
            words.filter { $0.hasPrefix(begins + " ") }.count >= 2, "a round begun on each link: \(words.suffix(8))")
    }

    /// The arbiter's cases: a pinned knight's move is reported by the board and refused by
    /// the bridge (`illegal_move`, out of sync until the knight is back); a takeback from
    /// MQTT is given to the board, which is out of sync until the move is taken back by
    /// hand; a promotion the board names no piece for takes the bridge's queen; a new game
    /// begins again at the start.
    @Test func chessPeripheralArbiterCases() async throws {
        let board = HallBoard(id: "cpp-arbiter", family: "cpp", address: "AA:BB:CC:00:32:22")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }

        try await hall.play(board.id, ["e2e4", "d7d6", "f1b5", "b8c6", "g1f3"], pace: 0.2)
        _ = try await hall.waitForMoves(board.id, count: 5)

        // The knight on c6 is pinned: its move is the board's report, the bridge's refusal.
        var mark = hall.recorder.mark
        // (By hand: boardsim's `play` plays legal moves only.)
        try await hall.ctl("lift", board.id, "c6")
        try await hall.ctl("place", board.id, "d4", "n")
        let illegal = try await hall.event(board.id, "illegal_move", since: mark)
        #expect(illegal["uci"] == "c6d4")
        _ = try await hall.state(board.id, since: mark) { $0["sync"]?["state"] == "out_of_sync" }
        mark = hall.recorder.mark
        try await hall.ctl("lift", board.id, "d4")
        try await hall.ctl("place", board.id, "c6", "n")
        _ = try await hall.state(board.id, since: mark) { $0["sync"]?["state"] == "in_sync" }

        // A takeback from MQTT: the board is given the position before Nf3.
        mark = hall.recorder.mark
        try hall.command(board.id, #"{"takeback":1,"transaction":"tb"}"#)
        let response = try await hall.response(board.id, transaction: "tb", since: mark)
        _ = try await hall.state(board.id, since: mark) { $0["ply"] == 4 && $0["sync"]?["state"] != "in_sync" }
        // The hand takes the knight back once the board has the position before Nf3.
        try await hall.waitUntilGiven(board.id, fen: try #require(response["data"]?["fen"]?.stringValue))
        try await hall.ctl("lift", board.id, "f3")
        try await hall.ctl("place", board.id, "g1", "N")
        _ = try await hall.state(board.id, since: mark) { $0["ply"] == 4 && $0["sync"]?["state"] == "in_sync" }
        try await hall.ctl("lift", board.id, "b1")
        try await hall.ctl("place", board.id, "c3", "N")
        let after = try await hall.waitForMoves(board.id, count: 1, since: mark)
        #expect(after.first?["san"] == "Nc3")
        #expect(after.first?["ply"] == 5)

        // A new game: the board begins again at the start; a promotion without its piece is
        // the bridge's queen.
        _ = try await hall.startNextChessUpGame(board.id, transaction: "ng")
        let promotion = [
            "h2h4", "g7g5", "h4g5", "f7f6", "g5f6", "g8h6", "f6f7", "e8f7", "a2a3", "h6g8", "a3a4", "f7e8", "a4a5",
            "h7h6", "a5a6", "h6h5", "a6b7", "h5h4", "b7a8q",
        ]
        mark = hall.recorder.mark
        try await hall.play(board.id, promotion, pace: 0.2)
        let moves = try await hall.waitForMoves(board.id, count: promotion.count, since: mark)
        #expect(moves.last?["uci"] == "b7a8q")
        #expect(moves.last?["san"] == "bxa8=Q")
    }
}
