import Chess
import Contract
import Foundation
import JSON
import TestSupport
import Testing

/// The boards issue #15's lifecycle is played on: the identity boards (Millennium,
/// Chessnut) and the occupancy boards (Square Off, Pegasus).
enum LifecycleBoards {
    static let all = [
        HallBoard(id: "millennium", family: "millennium", address: "AA:BB:CC:00:15:01"),
        HallBoard(id: "chessnut", family: "chessnut", address: "AA:BB:CC:00:15:02"),
        HallBoard(id: "squareoff", family: "squareoff", address: "AA:BB:CC:00:15:03", orientation: "white"),
        HallBoard(id: "pegasus", family: "pegasus", address: "AA:BB:CC:00:15:04", orientation: "white"),
        HallBoard(id: "ichessone", family: "ichessone", address: "AA:BB:CC:00:15:05"),
    ]
}

extension EndToEndTests {
    /// Issue #15 (1, 5, 6, 7), on an untimed board: `new_game` after a finished game
    /// publishes `game_start` with the tags, a fresh retained state and PGN at once; the
    /// board, still showing the old game, is out of sync (`awaiting_start_position`) until
    /// its pieces are set up, and nothing it shows meanwhile is a move. Throughout, no
    /// `in_sync` without an `out_of_sync` before it, and no clock action.
    @Test(arguments: LifecycleBoards.all)
    func aNewGameIsPublishedAtOnceAndWaitsForTheStartPosition(board: HallBoard) async throws {
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        let events = hall.topic(board.id, "event")
        let foolsMate = ["f2f3", "e7e5", "g2g4", "d8h4"]
        let mate = try PlayedGame(foolsMate)
        try await hall.play(board.id, foolsMate)
        mate.expectPublished(try await hall.waitForMoves(board.id, count: 4), board: board.id)
        try await waitUntil("game_end", context: hall.report) {
            hall.eventTypes(board.id, since: 0).contains("game_end")
        }
        // The old game's last PGN is in, so whatever PGN follows is the new game's.
        _ = try await hall.waitForPGN(board.id, plies: 4)

        // New game: in force at once.
        var mark = hall.recorder.mark
        try hall.command(board.id, #"{"new_game":{"white":"Doe, J","black":"Roe, R"},"transaction":"ng-1"}"#)
        let reply = try await hall.response(board.id, transaction: "ng-1", since: mark)
        #expect(reply["status"] == "ok")
        #expect(reply["data"]?["fen"]?.stringValue == Position.starting.fen)
        let started = try await hall.event(board.id, "game_start", since: mark)
        #expect(started["fen"]?.stringValue == Position.starting.fen)
        #expect(started["game"]?["white"] == "Doe, J")
        #expect(started["game"]?["black"] == "Roe, R")
        let pgn = try await hall.waitForPGN(board.id, plies: 0, since: mark)
        #expect(!pgn.contains("Qh4"), "\(pgn)")
        #expect(pgn.contains(#"[White "Doe, J"]"#), "\(pgn)")
        let state = try await hall.state(board.id, since: mark) { $0["ply"] == 0 }
        #expect(state["last_move"]?["uci"] == .null)
        #expect(state["result"] == "*")
        #expect(state["game"]?["white"] == "Doe, J")
        #expect(state["sync"]?["state"] == "out_of_sync")
        #expect(state["sync"]?["reason"] == "awaiting_start_position")
        let waiting = try await hall.event(board.id, "out_of_sync", since: mark)
        #expect(waiting["reason"] == "awaiting_start_position")
        // The game_start comes before the new game's state and PGN.
        let startIndex = hall.recorder.messages(on: events, since: mark).first {
            $0.json?["event_type"] == "game_start"
        }
        let firstPGN = hall.recorder.messages(on: hall.topic(board.id, "pgn"), since: mark).first
        #expect((startIndex?.index ?? .max) < (firstPGN?.index ?? -1))

        // The pieces are set up: in sync, nothing else.
        mark = hall.recorder.mark
        try await hall.ctl("reset", board.id)
        _ = try await hall.event(board.id, "in_sync", since: mark)
        #expect(hall.recorder.messages(on: hall.topic(board.id, "move"), since: mark).isEmpty)
        #expect(!hall.eventTypes(board.id, since: mark).contains("takeback"))
        // Play begins from there.
        let game = try PlayedGame(["e2e4"])
        try await hall.play(board.id, game.uci)
        game.expectPublished(try await hall.waitForMoves(board.id, count: 1, since: mark), board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 1, since: mark), board: board.id)

        hall.expectInSyncOnlyAfterOutOfSync(board.id)
        #expect(hall.recorder.messages(on: hall.topic(board.id, "clock")).isEmpty, "no clock action when untimed")
    }

    /// Issue #15 (7): New game pressed while the board still shows 1. Nf3. Before, `g1f3`
    /// was published as the new game's first move, and a takeback when the knight went
    /// back. Now the board is out of sync (`awaiting_start_position`) until it is set up,
    /// and the new game's first move is the one played after that.
    ///
    /// On the Millennium too (issue #28): boardsim answered the bridge's `S` with the board
    /// as it stood when the write arrived but sent it a response delay later, after the
    /// reports of the set-up, so 1. Nf3 came back and read as `g1f3`; the firmware now
    /// answers when the response goes out (`WriteRequestAnswerTests`).
    @Test(arguments: LifecycleBoards.all)
    func aMoveStillOnTheBoardIsNotTheNewGamesFirstMove(board: HallBoard) async throws {
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        try await hall.play(board.id, ["g1f3"])
        try await hall.waitForMoves(board.id, count: 1)
        _ = try await hall.waitForPGN(board.id, plies: 1)

        let mark = hall.recorder.mark
        try hall.command(board.id, #"{"new_game":{},"transaction":"ng"}"#)
        _ = try await hall.response(board.id, transaction: "ng", since: mark)
        try await hall.ctl("reset", board.id)
        let game = try PlayedGame(["e2e4"])
        try await hall.play(board.id, game.uci)
        let moveTopic = hall.topic(board.id, "move")
        try await waitUntil("e2e4 published", context: hall.report) {
            hall.recorder.json(on: moveTopic, since: mark).contains { $0["uci"] == "e2e4" }
        }
        game.expectPublished(hall.recorder.json(on: moveTopic, since: mark), board: board.id)
        #expect(!hall.eventTypes(board.id, since: mark).contains("takeback"))
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 1, since: mark), board: board.id)
        let waiting = hall.recorder.json(on: hall.topic(board.id, "event"), since: mark).first {
            $0["event_type"] == "out_of_sync"
        }
        #expect(waiting?["reason"] == "awaiting_start_position")
        #expect(waiting?["squares"] == ["g1", "f3"])
        hall.expectInSyncOnlyAfterOutOfSync(board.id)
    }

    /// Issue #15 (5, 6), on untimed boards: a move is a `move` event, never an `in_sync`
    /// (that follows only an `out_of_sync`: a piece knocked off and put back); and no clock
    /// action is published for an untimed game, neither for moves nor for the sync gate.
    @Test(arguments: LifecycleBoards.all)
    func movesAreNoInSyncAndUntimedGamesHaveNoClockAction(board: HallBoard) async throws {
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        _ = try await hall.playOpening(board.id)
        let mark = hall.recorder.mark
        try await hall.ctl("lift", board.id, "h8")
        _ = try await hall.event(board.id, "out_of_sync", since: mark)
        try await hall.ctl("place", board.id, "h8", "r")
        _ = try await hall.event(board.id, "in_sync", since: mark)
        let game = try PlayedGame(Games.opening + ["f1c4"])
        try await hall.play(board.id, ["f1c4"])
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 5), board: board.id)
        let syncEvents = hall.eventTypes(board.id, since: 0).filter { $0 == "in_sync" || $0 == "out_of_sync" }
        #expect(syncEvents == ["out_of_sync", "in_sync"])
        hall.expectInSyncOnlyAfterOutOfSync(board.id)
        #expect(hall.recorder.messages(on: hall.topic(board.id, "clock")).isEmpty, "no clock action when untimed")
    }

    /// Issue #15 (2, 3, 5): `position` while the board shows the start is kept (reply, state,
    /// `game_start`), the board is out of sync (`awaiting_position`) until its pieces stand
    /// there, then the moves from it are published with the FEN's move numbers, `ply`
    /// counting from 1, and the PGN numbers them the same.
    @Test(arguments: LifecycleBoards.all)
    func aPositionIsKeptAwaitedAndNumberedAsItsFEN(board: HallBoard) async throws {
        let fen = "r1bqk2r/ppp2ppp/2n2n2/3pP3/1b6/2N2N2/PPPP1PPP/R1BQKB1R w KQkq d6 0 20"
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        var mark = hall.recorder.mark
        try hall.command(board.id, #"{"position":"\#(fen)","transaction":7}"#)
        let reply = try await hall.response(board.id, transaction: 7, since: mark)
        #expect(reply["data"]?["fen"]?.stringValue == fen)
        #expect(try await hall.event(board.id, "game_start", since: mark)["fen"]?.stringValue == fen)
        #expect(try await hall.event(board.id, "out_of_sync", since: mark)["reason"] == "awaiting_position")
        let state = try await hall.state(board.id, since: mark) { $0["fen"]?.stringValue == fen }
        #expect(state["move_number"] == 20)
        #expect(state["ply"] == 0)
        #expect(state["sync"]?["reason"] == "awaiting_position")

        mark = hall.recorder.mark
        try await hall.ctl("reset", board.id, fen)
        _ = try await hall.event(board.id, "in_sync", since: mark)
        let moves = ["e5d6", "e8g8", "d2d3"]
        try await hall.play(board.id, moves)
        let published = try await hall.waitForMoves(board.id, count: 3, since: mark)
        var replay = Game(startPosition: try Position(fen: fen))
        for uci in moves { try replay.play(try #require(replay.position.legalMove(uci: uci))) }
        #expect(published.map { $0["uci"]?.stringValue } == moves)
        #expect(published.map { $0["san"]?.stringValue } == ["exd6", "O-O", "d3"])
        #expect(published.map { $0["fen"]?.stringValue } == replay.moves.map(\.fenAfter))
        #expect(published.map { $0["ply"] } == [1, 2, 3])
        #expect(published.map { $0["move_number"] } == [20, 20, 21])
        #expect(published.map { $0["color"] } == ["white", "black", "white"])
        let pgn = try await hall.waitForPGN(board.id, plies: 3, since: mark)
        #expect(pgn.contains("20. exd6 O-O 21. d3"), "\(pgn)")
        #expect(pgn.contains(#"[FEN "\#(fen)"]"#), "\(pgn)")
        let last = try await hall.state(board.id, since: mark) { $0["ply"] == 3 }
        #expect(last["move_number"] == 21)
        #expect(last["sync"]?["state"] == "in_sync")
        hall.expectInSyncOnlyAfterOutOfSync(board.id)
    }
}

extension Hall {
    /// Publishes one command on `board`'s `set` topic.
    func command(_ board: String, _ json: String) throws {
        try recorder.publish(topic(board, "set"), json)
    }

    /// Waits for the answer carrying `transaction` on `board`'s `response` topic since `mark`.
    func response(_ board: String, transaction: JSONValue, since mark: Int) async throws -> JSONValue {
        let topic = topic(board, "response")
        func found() -> JSONValue? { recorder.json(on: topic, since: mark).first { $0["transaction"] == transaction } }
        try await waitUntil("a response to \(transaction) on \(topic)", context: report) { found() != nil }
        return found() ?? .null
    }

    /// Waits for the first `type` event of `board` since `mark`.
    func event(_ board: String, _ type: String, since mark: Int) async throws -> JSONValue {
        let topic = topic(board, "event")
        func found() -> JSONValue? {
            recorder.json(on: topic, since: mark).first { $0["event_type"]?.stringValue == type }
        }
        try await waitUntil("a \(type) event on \(topic)", context: report) { found() != nil }
        return found() ?? .null
    }

    /// Waits for the last full state of `board` since `mark` to satisfy `condition`.
    func state(
        _ board: String, since mark: Int, where condition: @escaping (JSONValue) -> Bool
    ) async throws -> JSONValue {
        let topic = topic(board)
        func latest() -> JSONValue? { recorder.json(on: topic, since: mark).last }
        try await waitUntil("the state of \(board)", context: report) { latest().map(condition) ?? false }
        return latest() ?? .null
    }

    /// Checks that every `in_sync` event of `board` follows an `out_of_sync` with no
    /// `in_sync` between them: a move alone is no return to sync.
    func expectInSyncOnlyAfterOutOfSync(_ board: String) {
        var outOfSync = false
        for type in eventTypes(board, since: 0) {
            if type == "out_of_sync" { outOfSync = true }
            if type == "in_sync" {
                #expect(outOfSync, "in_sync with no out_of_sync before it on \(board): \(eventTypes(board, since: 0))")
                outOfSync = false
            }
        }
    }
}
