import Chess
import Contract
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #15 (8): after `new_game` the ChessUp's own game starts afresh too, so every
    /// move of the next game is reported by the board and published.
    @Test func chessUpNewGameIsPlayedOnTheBoardsOwnGame() async throws {
        let board = HallBoard(id: "cup-new", family: "chessup", address: "AA:BB:CC:00:15:01")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        _ = try await hall.playOpening(board.id)

        var mark = hall.recorder.mark
        try hall.recorder.publish(hall.topic(board.id, "set"), #"{"new_game":{},"transaction":"ng"}"#)
        try await waitUntil("the new game's reply", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id, "response"), since: mark).contains { $0["transaction"] == "ng" }
        }
        let reply = hall.recorder.json(on: hall.topic(board.id, "response"), since: mark).first {
            $0["transaction"] == "ng"
        }
        #expect(reply?["data"]?["board_game"] == "loaded", "reply: \(String(describing: reply))")
        // The arbiter sets the pieces up again; then a whole game is played.
        try await hall.ctl("reset", board.id)
        mark = hall.recorder.mark
        let game = try PlayedGame(Games.whitePromotes)
        try await hall.play(board.id, Games.whitePromotes)
        let published = try await hall.waitForMoves(board.id, count: Games.whitePromotes.count, since: mark)
        game.expectPublished(published, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: game.uci.count, since: mark), board: board.id)
    }

    /// Issue #15 (8): a `position` on a ChessUp loads the position into the board's own game:
    /// the moves played from it are reported and published.
    @Test func chessUpPositionIsLoadedIntoTheBoardsOwnGame() async throws {
        let board = HallBoard(id: "cup-pos", family: "chessup", address: "AA:BB:CC:00:15:02")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        // White to move in an Italian opening, set up by hand, then declared.
        var setUp = try PlayedGame(["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"])
        let fen = setUp.fen
        try await hall.ctl("reset", board.id, fen)
        let mark = hall.recorder.mark
        try hall.recorder.publish(hall.topic(board.id, "set"), "{\"position\":\"\(fen)\",\"transaction\":\"p\"}")
        try await waitUntil("the position's reply", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id, "response"), since: mark).contains { $0["transaction"] == "p" }
        }
        let reply = hall.recorder.json(on: hall.topic(board.id, "response"), since: mark).first {
            $0["transaction"] == "p"
        }
        #expect(reply?["data"]?["board_game"] == "loaded", "reply: \(String(describing: reply))")
        let more = ["c2c3", "g8f6", "d2d4", "e5d4", "c3d4", "c5b4", "b1c3"]
        try setUp.append(more)
        try await hall.play(board.id, more)
        let published = try await hall.waitForMoves(board.id, count: more.count, since: mark)
        #expect(published.compactMap { $0["uci"]?.stringValue } == more)
        #expect(published.last?["fen"]?.stringValue == setUp.fen)
    }

    /// Issue #15 (8): a ChessUp bridge killed (SIGKILL) and later stopped (SIGTERM) in the
    /// middle of a game: started again, it resumes the board's session instead of starting
    /// the board's game afresh, so the move made while it was down and every later one are
    /// published.
    @Test func chessUpBridgeRestartsResumeTheBoardsGame() async throws {
        let board = HallBoard(id: "cup-restart", family: "chessup", address: "AA:BB:CC:00:15:03")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        var game = try await hall.playOpening(board.id)

        #expect(try await hall.killBridgeAndAwaitLastWill() == 128 + SIGKILL)
        try game.append(["f1c4"])
        try await hall.play(board.id, ["f1c4"])
        var mark = hall.recorder.mark
        try hall.bridge.start()
        try await hall.waitUntilReady(board.id, since: mark)
        let more = ["g8f6", "d2d3", "f8c5"]
        try game.append(more)
        try await hall.play(board.id, more)
        game.expectPublished(
            try await hall.waitForMoves(board.id, count: 1 + more.count, since: mark), fromPly: 5, board: board.id)

        // Stopped gracefully, started again: the game goes on.
        await hall.bridge.terminate()
        mark = hall.recorder.mark
        try hall.bridge.start()
        try await hall.waitUntilReady(board.id, since: mark)
        let rest = ["e1g1", "e8g8", "c1g5"]
        try game.append(rest)
        try await hall.play(board.id, rest)
        game.expectPublished(
            try await hall.waitForMoves(board.id, count: rest.count, since: mark), fromPly: 9, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: game.uci.count, since: mark), board: board.id)
    }

    /// Issue #29 (3): five plies made while the bridge was down (some of them independent of
    /// the others) come back after the restart as the board resends its reports, some of
    /// them before the bridge listens. Every move published is the game's, at its ply, with
    /// its SAN and FEN (all six when the board's state places them, or the gap reported as
    /// missed moves); never another order or a later move in an earlier one's place. A
    /// parallel run once published `d3` as ply 5 here.
    @Test func chessUpMovesMadeWhileTheBridgeWasDownAreNeverPublishedOutOfPlace() async throws {
        let board = HallBoard(id: "cup-down", family: "chessup", address: "AA:BB:CC:00:15:05")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        var game = try await hall.playOpening(board.id)
        #expect(try await hall.killBridgeAndAwaitLastWill() == 128 + SIGKILL)
        let whileDown = ["f1c4", "g8f6", "d2d3", "f8c5", "c1g5"]
        try game.append(whileDown)
        try await hall.play(board.id, whileDown)
        let mark = hall.recorder.mark
        try hall.bridge.start()
        try await hall.waitUntilReady(board.id, since: mark)
        let more = ["h7h6"]
        try game.append(more)
        try await hall.play(board.id, more)
        let moveTopic = hall.topic(board.id, "move")
        func missed() -> Bool {
            hall.recorder.json(on: hall.topic(board.id, "event"), since: mark).contains {
                $0["reason"]?.stringValue == "missed_moves"
            }
        }
        try await waitUntil("six moves, or the gap reported missed", context: hall.report) {
            hall.recorder.json(on: moveTopic, since: mark).count == whileDown.count + more.count || missed()
        }
        let published = hall.recorder.json(on: moveTopic, since: mark)
        for payload in published {
            let ply = try #require(payload["ply"]?.intValue)
            let move = try #require(ply >= 5 && ply <= game.game.moves.count ? game.game.moves[ply - 1] : nil)
            #expect(payload["uci"]?.stringValue == move.move.uci, "ply \(ply): \(payload)")
            #expect(payload["san"]?.stringValue == move.san, "ply \(ply): \(payload)")
            #expect(payload["fen"]?.stringValue == move.fenAfter, "ply \(ply): \(payload)")
        }
        if published.count == whileDown.count + more.count {
            game.expectPublished(published, fromPly: 5, board: board.id)
        }
    }

    /// Issue #15 (10): every board that has a battery publishes its level on the state topic
    /// soon after `ready`, without anyone asking, and the level is read again periodically
    /// (`game.battery_interval`): a change on the board shows up by itself.
    @Test func batteryIsKnownAfterReadyAndRefreshed() async throws {
        let boards = [
            HallBoard(id: "bat-nut", family: "chessnut", address: "AA:BB:CC:00:15:11"),
            HallBoard(id: "bat-up", family: "chessup", address: "AA:BB:CC:00:15:12"),
            HallBoard(id: "bat-so", family: "squareoff", address: "AA:BB:CC:00:15:13", orientation: "white"),
            HallBoard(id: "bat-peg", family: "pegasus", address: "AA:BB:CC:00:15:14", orientation: "white"),
            HallBoard(id: "bat-one", family: "ichessone", address: "AA:BB:CC:00:15:15"),
        ]
        let hall = try await Hall(boards: boards, settings: HallSettings(batteryInterval: 1))
        defer { hall.stop() }
        func battery(_ board: String, since mark: Int = 0) -> Int? {
            hall.recorder.json(on: hall.topic(board), since: mark).last?["battery"]?["percent"]?.intValue
        }
        for board in boards {
            try await waitUntil("battery of \(board.id) known", context: hall.report) { battery(board.id) == 100 }
        }
        let mark = hall.recorder.mark
        for (index, board) in boards.enumerated() {
            try await hall.ctl("battery", board.id, String(40 + index))
        }
        for (index, board) in boards.enumerated() {
            try await waitUntil("battery of \(board.id) refreshed", context: hall.report) {
                battery(board.id, since: mark) == 40 + index
            }
        }
    }
}

extension Hall {
    /// Starts the next game on a ChessUp: `new_game`, then the pieces set up again (done
    /// when `ctl reset` returns). Waits for the answer and for the bridge's state to show
    /// the new game in sync (at once on a board whose game went by the board's own; after
    /// the set-up's `in_sync` on one left waiting for the start position), so the next
    /// moves are the new game's. Returns the recording index of the answer.
    func startNextChessUpGame(_ board: String, transaction: String) async throws -> Int {
        let mark = recorder.mark
        try recorder.publish(topic(board, "set"), "{\"new_game\":{},\"transaction\":\"\(transaction)\"}")
        func answer() -> ReceivedMessage? {
            recorder.messages(on: topic(board, "response"), since: mark).first {
                $0.json?["transaction"]?.stringValue == transaction
            }
        }
        try await waitUntil("the answer to \(transaction)", context: report) { answer() != nil }
        try await ctl("reset", board)
        try await waitUntil("the new game in sync after \(transaction)", context: report) {
            let state = self.recorder.json(on: self.topic(board), since: mark).last
            return state?["ply"] == 0 && state?["sync"]?["state"] == "in_sync"
        }
        return answer()?.index ?? mark
    }
}

extension PlayedGame {
    /// The FEN after the last move.
    var fen: String { game.position.fen }
}

extension EndToEndTests {
    /// Issue #15 (8): at fifty moves a second (far beyond any player) every ChessUp
    /// report is committed as the move it reports, never a stale one: whole random games
    /// come out exact.
    @Test func chessUpAtFiftyMovesASecondCommitsNoStaleReport() async throws {
        let board = HallBoard(id: "cup-fast", family: "chessup", address: "AA:BB:CC:00:15:09")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        for seed in UInt64(1)...3 {
            let uci = Self.randomLegalGame(seed: 0xC0FFEE &+ seed, plies: 120)
            let mark = hall.recorder.mark
            let game = try PlayedGame(uci)
            try await hall.play(board.id, uci, pace: 0.02)
            let published = try await hall.waitForMoves(board.id, count: uci.count, since: mark)
            game.expectPublished(published, board: board.id)
            // The next game starts from the start position.
            _ = try await hall.startNextChessUpGame(board.id, transaction: "ng-\(seed)")
        }
    }

    /// Issue #15 (8): unthrottled (`--pace 0`: a whole game's reports at once) the ChessUp
    /// reports faster than one ack per write round trip. Its acks must reach it before it
    /// gives up retransmitting, or it floods and drops the link (it did, over and over):
    /// the link stays up. The burst is faster than any radio link, so the simulated
    /// bluetoothd drops notifications its socket cannot take (as the real one does, ten
    /// datagrams deep), and a lost report used to let a later legal one take its ply (a
    /// wrong move published). Reports that come that fast now wait for the board's own
    /// game (`67`): every move published is the one played at its ply, once, in order; the
    /// moves lost are recovered when the board's game tells them, and where it cannot the
    /// gap is reported as `missed_moves`.
    @Test func chessUpUnthrottledKeepsItsLinkAndPublishesNoWrongMove() async throws {
        let board = HallBoard(id: "cup-burst", family: "chessup", address: "AA:BB:CC:00:15:0A")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        for seed in UInt64(1)...2 {
            let uci = Self.randomLegalGame(seed: 0xB0257 &+ seed, plies: 120)
            let mark = hall.recorder.mark
            try await hall.play(board.id, uci, pace: 0)
            func missedMoves(_ events: [ReceivedMessage]) -> Bool {
                events.contains { $0.json?["event_type"] == "out_of_sync" && $0.json?["reason"] == "missed_moves" }
            }
            // The burst is told once every ply is published or the gap reported.
            try await waitUntil("every ply published or missed_moves", context: hall.report) {
                hall.recorder.messages(on: hall.topic(board.id, "move"), since: mark).count >= uci.count
                    || missedMoves(hall.recorder.messages(on: hall.topic(board.id, "event"), since: mark))
            }
            // The next game: the bridge answers its `new_game` after everything it published
            // about this burst (a late move, a dropped link), and the set-up's `in_sync`
            // comes later still; so all of that is in, and looked at up to the answer.
            let answer = try await hall.startNextChessUpGame(board.id, transaction: "ng-\(seed)")
            func burst(_ leaf: String) -> [ReceivedMessage] {
                hall.recorder.messages(on: hall.topic(board.id, leaf), since: mark).filter { $0.index < answer }
            }
            let published = burst("move").compactMap(\.json)
            #expect(!published.isEmpty)
            let plies = published.compactMap { $0["ply"]?.intValue }
            #expect(plies == plies.indices.map { $0 + 1 }, "each ply once, in order: \(plies)")
            for move in published {
                let ply = move["ply"]?.intValue ?? 0
                #expect(
                    (1...uci.count).contains(ply) && move["uci"]?.stringValue == uci[ply - 1],
                    "a wrong move at ply \(ply): \(move["uci"]?.stringValue ?? "?")")
            }
            if published.count < uci.count {
                #expect(
                    missedMoves(burst("event")), "\(published.count) of \(uci.count) plies published, no missed_moves")
            }
            let states = hall.recorder.json(on: hall.topic(board.id, "connection"), since: mark)
                .compactMap { $0["state"]?.stringValue }
            #expect(states.allSatisfy { $0 == "ready" }, "the link dropped: \(states)")
        }
    }

    /// A random legal game of at most `plies` plies that does not end early.
    static func randomLegalGame(seed: UInt64, plies: Int) -> [String] {
        var state = seed
        var game = Game()
        var moves: [String] = []
        while moves.count < plies, game.result == .ongoing {
            let legal = game.position.legalMoves()
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let move = legal[Int(state >> 33) % legal.count]
            try? game.play(move)
            if game.result != .ongoing {
                game.takeBack()
                if legal.count == 1 { break }
                continue
            }
            moves.append(move.uci)
        }
        return moves
    }
}
