import BoardKit
import Contract
import Foundation
import JSON
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #7 (2 and 3), on one timed identity board: a knocked-over piece puts the board
    /// out of sync and pauses the clock, putting it back resumes it, and a move made while
    /// out of sync resumes the other side. Then the link drops: reconnect attempts are
    /// published, the link recovers and the game goes on.
    @Test func knockedPieceGatesTheClockAndDroppedLinkRecovers() async throws {
        let board = HallBoard(id: "clocked", family: "chessnut", address: "AA:BB:CC:00:02:01", timeControl: "300+2")
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        let events = hall.topic(board.id, "event")
        let clock = hall.topic(board.id, "clock")
        func eventTypes(since mark: Int) -> [String] { hall.eventTypes(board.id, since: mark) }

        var game = try await hall.playOpening(board.id)

        // Knocked over: out of sync, White's running clock pauses.
        var mark = hall.recorder.mark
        try await hall.ctl("knock", board.id, "h8")
        try await waitUntil("out_of_sync and a pause", context: hall.report) {
            eventTypes(since: mark).contains("out_of_sync") && !hall.recorder.json(on: clock, since: mark).isEmpty
        }
        let outOfSync = hall.recorder.json(on: events, since: mark).first { $0["event_type"] == "out_of_sync" }
        #expect(outOfSync?["squares"] == ["h8"])
        var clockActions = hall.recorder.json(on: clock, since: mark)
        #expect(clockActions.first?["action"] == "pause")
        #expect(clockActions.first?["color"] == "white")
        #expect(clockActions.first?["reason"] == "out_of_sync")

        // Put back: in sync, White's clock runs again.
        mark = hall.recorder.mark
        try await hall.ctl("place", board.id, "h8", "r")
        try await waitUntil("in_sync and a resume", context: hall.report) {
            eventTypes(since: mark).contains("in_sync") && !hall.recorder.json(on: clock, since: mark).isEmpty
        }
        clockActions = hall.recorder.json(on: clock, since: mark)
        #expect(clockActions.map { $0["action"] } == ["resume"])
        #expect(clockActions.first?["color"] == "white")

        // Knocked over again, White moves meanwhile; putting the rook back shows the move,
        // and the clock resumes for Black.
        mark = hall.recorder.mark
        try await hall.ctl("knock", board.id, "h8")
        try await waitUntil("out_of_sync again", context: hall.report) {
            eventTypes(since: mark).contains("out_of_sync")
        }
        mark = hall.recorder.mark
        try game.append(["f1c4"])
        try await hall.play(board.id, ["f1c4"])
        try await hall.ctl("place", board.id, "h8", "r")
        let moved = try await hall.waitForMoves(board.id, count: 1, since: mark)
        game.expectPublished(moved, fromPly: 5, board: board.id)
        try await waitUntil("in_sync and a resume for Black", context: hall.report) {
            eventTypes(since: mark).contains("in_sync")
                && hall.recorder.json(on: clock, since: mark).contains { $0["action"] == "resume" }
        }
        clockActions = hall.recorder.json(on: clock, since: mark)
        #expect(clockActions.filter { $0["action"] == "resume" }.map { $0["color"] } == ["black"])
        #expect(eventTypes(since: mark).filter { $0 == "move" }.count == 1)

        // 3. The link drops; the next two connects fail (with an error that is not retried
        // within one attempt): the attempts are published, then the link is back.
        mark = hall.recorder.mark
        try await hall.ctl("fail-connects", board.id, "2", "--error", "io-error")
        try await hall.ctl("drop", board.id)
        try await hall.waitUntilReady(board.id, since: mark)
        let connection = hall.recorder.json(on: hall.topic(board.id, "connection"), since: mark)
        let states = connection.compactMap { $0["state"]?.stringValue }
        let attempts = connection.filter { $0["state"] == "reconnecting" }.compactMap { $0["attempt"]?.intValue }
        #expect(states.first == "reconnecting", "connection states: \(states)")
        #expect(Set(attempts).isSuperset(of: [1, 2, 3]), "reconnect attempts: \(attempts)")
        #expect(attempts == attempts.sorted(), "attempts in order: \(attempts)")
        #expect(connection.contains { $0["max_attempts"] == 20 })
        #expect(states.suffix(2) == ["connected", "ready"], "connection states: \(states)")
        let availability = hall.recorder.json(on: hall.topic(board.id, "availability"), since: mark)
        #expect(availability.first?["state"] == "offline")

        // The game goes on after the reconnect.
        mark = hall.recorder.mark
        try game.append(["g8f6", "d2d3"])
        try await hall.play(board.id, ["g8f6", "d2d3"])
        game.expectPublished(try await hall.waitForMoves(board.id, count: 2, since: mark), fromPly: 6, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 7), board: board.id)

        // The adapter is switched off: the board shows `powered_off` and cannot come back
        // until it is on again (no reconnect attempt is spent meanwhile). A move made
        // meanwhile is seen when the board shows itself again.
        mark = hall.recorder.mark
        try await hall.ctl("power", "hci0", "off")
        try await waitUntil("the board's availability goes offline and it shows powered_off", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id, "availability"), since: mark).last?["state"] == "offline"
                && hall.connectionStates(board.id, since: mark).last == "powered_off"
        }
        try game.append(["f8c5"])
        try await hall.play(board.id, ["f8c5"])
        #expect(hall.connectionStates(board.id, since: mark).last == "powered_off")
        let powerOn = hall.recorder.mark
        try await hall.ctl("power", "hci0", "on")
        try await hall.waitUntilReady(board.id, since: powerOn)
        game.expectPublished(try await hall.waitForMoves(board.id, count: 1, since: mark), fromPly: 8, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 8, since: mark), board: board.id)
        let statesWhileOff = hall.connectionStates(board.id, since: mark)
        #expect(statesWhileOff.contains("powered_off"), "connection states: \(statesWhileOff)")
        #expect(!statesWhileOff.contains("disconnected"), "connection states: \(statesWhileOff)")
        #expect(statesWhileOff.last == "ready", "connection states: \(statesWhileOff)")
        // At most the attempt under way when the power went is spent while it is off.
        let attemptsWhileOff = hall.recorder.messages(on: hall.topic(board.id, "connection"), since: mark)
            .filter { $0.index < powerOn }.compactMap { $0.json?["attempt"]?.intValue }
        #expect(attemptsWhileOff.allSatisfy { $0 <= 2 }, "attempts spent while off: \(attemptsWhileOff)")
    }

    /// An occupancy board (Square Off) whose sensor missed a piece being put back stays
    /// out of sync although the pieces stand right, and a move made meanwhile cannot be
    /// read from its lifts and placements. Once the grace period and the resync delay have
    /// passed, the bridge asks the board for its full state: back in sync, the move found.
    @Test func aMissedPlacementIsRecoveredByAskingTheBoardForItsState() async throws {
        let board = HallBoard(id: "occupancy", family: "squareoff", address: "AA:BB:CC:00:03:01")
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        func eventTypes(since mark: Int) -> [String] { hall.eventTypes(board.id, since: mark) }
        var game = try await hall.playOpening(board.id)
        let requestState = "333023522a"  // `30#R*`
        func stateRequests() async throws -> Int {
            try await hall.writes(board.id).filter { HexBytes.string($0).contains(requestState) }.count
        }
        let requestsBefore = try await stateRequests()

        // The black rook is knocked off h8: out of sync.
        let mark = hall.recorder.mark
        try await hall.ctl("lift", board.id, "h8")
        try await waitUntil("out_of_sync", context: hall.report) { eventTypes(since: mark).contains("out_of_sync") }
        // It is put back, but the board's sensor misses it; White plays Bc4 meanwhile.
        try await hall.ctl("lose", board.id, "1")
        try await hall.ctl("place", board.id, "h8", "r")
        try game.append(["f1c4"])
        try await hall.play(board.id, ["f1c4"])

        // A few seconds later the bridge asks for the board's state; the move is in it.
        let moved = try await hall.waitForMoves(board.id, count: 1, since: mark)
        game.expectPublished(moved, fromPly: 5, board: board.id)
        try await waitUntil("in_sync", context: hall.report) { eventTypes(since: mark).contains("in_sync") }
        #expect(try await stateRequests() > requestsBefore)
        let violations = try await hall.simulator.ctl(["violations", board.id])
        #expect(violations.standardOutput.contains(#""droppedNotifications":1"#), "\(violations)")
    }

    /// Issue #7 (4): the broker restarts mid-game; moves made while it is down are published
    /// when it is back, in order, none lost.
    @Test func brokerRestartLosesNoMove() async throws {
        let board = HallBoard(id: "relay", family: "millennium", address: "AA:BB:CC:00:03:01")
        let hall = try await Hall(boards: [board], settings: HallSettings(brokerPersistence: true))
        defer { hall.stop() }
        var game = try PlayedGame(Array(Games.blackUnderpromotes.prefix(2)))
        try await hall.play(board.id, game.uci)
        try await hall.waitForMoves(board.id, count: 2)

        await hall.broker.terminate()
        let whileDown = Array(Games.blackUnderpromotes[2..<8])
        try game.append(whileDown)
        try await hall.play(board.id, whileDown)
        // The bridge saw them all (its log), while nothing could reach the broker.
        try await waitUntil("the bridge logs ply 8", context: hall.report) {
            hall.bridge.output.contains("\(board.id): move ply=8 ")
        }
        #expect(!hall.broker.isRunning)
        try await hall.broker.start()

        let rest = Array(Games.blackUnderpromotes[8...])
        try game.append(rest)
        try await hall.play(board.id, rest)
        // QoS 1 is at least once: a move the broker had taken but not yet acknowledged when it
        // went down may come again (the same payload); none may be missing or differ.
        let published = try await hall.waitForMovesAtLeastOnce(board.id, count: game.uci.count)
        game.expectPublished(published, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: game.uci.count), board: board.id)
    }

    /// Issue #7 (5): the bridge is killed (SIGKILL): the broker publishes its last will; started
    /// again on the same state directory it resumes the game, and the PGN after more moves
    /// is complete, no move lost or doubled.
    @Test func killedBridgeResumesTheGame() async throws {
        let board = HallBoard(id: "phoenix", family: "chessnut", address: "AA:BB:CC:00:04:01", timeControl: "600+5")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        var game = try PlayedGame(Games.opening)
        try await hall.play(board.id, Games.opening)
        try await hall.waitForMoves(board.id, count: 4)
        _ = try await hall.waitForPGN(board.id, plies: 4)

        #expect(try await hall.killBridgeAndAwaitLastWill() == 128 + SIGKILL)

        // A move made while no bridge runs.
        try game.append(["f1c4"])
        try await hall.play(board.id, ["f1c4"])

        let mark = hall.recorder.mark
        try hall.bridge.start()
        try await waitUntil("the bridge is back online", context: hall.report) {
            hall.recorder.messages(on: hall.bridgeStateTopic, since: mark).contains {
                $0.text == #"{"state":"online"}"#
            }
        }
        try await hall.waitUntilReady(board.id, since: mark)
        // The restored game goes on with the move made meanwhile, then with more.
        game.expectPublished(try await hall.waitForMoves(board.id, count: 1, since: mark), fromPly: 5, board: board.id)
        let more = ["g8f6", "d2d3", "f8c5", "e1g1"]
        try game.append(more)
        try await hall.play(board.id, more)
        let published = try await hall.waitForMoves(board.id, count: 1 + more.count, since: mark)
        game.expectPublished(published, fromPly: 5, board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: game.uci.count), board: board.id)
        let retained = try await hall.retainedMessages()
        game.expectPGN(retained[hall.topic(board.id, "pgn")] ?? "", board: board.id)
    }
}

extension Hall {
    /// Waits for `count` moves of `board` and returns them with QoS 1's redeliveries left out:
    /// a payload identical to one received before it (its `ply` too). A move that differs, or
    /// a ply missing, stays for the caller's checks to see.
    func waitForMovesAtLeastOnce(_ board: String, count: Int) async throws -> [JSONValue] {
        let topic = topic(board, "move")
        func distinct() -> [JSONValue] {
            var seen = Set<String>()
            return recorder.messages(on: topic, since: 0).filter { seen.insert($0.text).inserted }.compactMap(\.json)
        }
        try await waitUntil("\(count) moves on \(topic)", context: report) { distinct().count >= count }
        return distinct()
    }
}
