import Contract
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #30 (7): Home Assistant's "Restart bridge" button (`request/restart`): the
    /// bridge answers, stops as on SIGTERM (the board goes offline, the game is saved), and
    /// comes back as the same process with the game restored and play going on.
    @Test func theRestartRequestRestartsTheBridgeInPlace() async throws {
        let board = HallBoard(id: "restart", family: "chessnut", address: "AA:BB:CC:00:30:07")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        var game = try PlayedGame(["e2e4", "e7e5", "g1f3"])
        try await hall.play(board.id, game.uci)
        game.expectPublished(try await hall.waitForMoves(board.id, count: 3), board: board.id)
        let pid = hall.bridge.pid
        let mark = hall.recorder.mark
        let logged = hall.bridge.output.count
        try hall.recorder.publish(hall.topic("bridge", "\(Hall.node)/request/restart"), #"{"transaction":"r1"}"#)
        try await waitUntil("the restart's answer", context: hall.report) {
            hall.recorder.json(on: hall.topic("bridge", "\(Hall.node)/response/restart"), since: mark).contains {
                $0["status"] == "ok" && $0["transaction"] == "r1"
            }
        }
        try await waitUntil("the board offline, then the bridge online again", context: hall.report) {
            let states = hall.recorder.json(on: hall.topic("bridge", "\(Hall.node)/state"), since: mark)
                .compactMap { $0["state"]?.stringValue }
            return states.contains("offline") && states.last == "online"
        }
        try await hall.waitUntilReady(board.id, since: mark)
        #expect(hall.bridge.pid == pid)
        let output = String(hall.bridge.output.dropFirst(logged))
        #expect(output.contains("stopped, restarting"), "\(output)")
        #expect(output.contains("\(board.id): restored game ply=3 "), "\(output)")
        try game.append(["b8c6"])
        let after = hall.recorder.mark
        try await hall.play(board.id, ["b8c6"])
        game.expectPublished(try await hall.waitForMoves(board.id, count: 1, since: after), fromPly: 4, board: board.id)
    }
}
