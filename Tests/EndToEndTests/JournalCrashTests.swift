import Contract
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #16 (1), with the real binary: 10 moves, SIGKILL, the journal's last line torn
    /// (`truncate -s -25`), a restart, 10 more moves, SIGKILL, a restart. The second
    /// restart restores all 20 plies and the board is in sync; it used to restore ply 9
    /// (the next line had been appended to the torn fragment) and go out of sync.
    @Test func aTornJournalLineCostsNothingAtTheNextRestarts() async throws {
        let board = HallBoard(id: "torn", family: "chessnut", address: "AA:BB:CC:00:16:01")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        let uci = [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6",
            "e1g1", "e8g8", "b1d2", "a7a6", "c4b3", "c5a7", "h2h3", "h7h6", "f1e1", "f8e8",
        ]
        var game = try PlayedGame(Array(uci.prefix(10)))
        try await hall.play(board.id, game.uci)
        game.expectPublished(try await hall.waitForMoves(board.id, count: 10), board: board.id)

        #expect(await hall.bridge.kill() == 128 + SIGKILL)
        let state = hall.directory.appendingPathComponent("state")
        let journal = state.appendingPathComponent("\(board.id).journal")
        let bytes = try Data(contentsOf: journal)
        try bytes.dropLast(25).write(to: journal)

        // The first restart restores ply 9; the board shows ply 10, which is found again.
        var mark = hall.recorder.mark
        try hall.bridge.start()
        try await hall.waitUntilReady(board.id, since: mark)
        game.expectPublished(try await hall.waitForMoves(board.id, count: 1, since: mark), fromPly: 10, board: board.id)
        try game.append(Array(uci.suffix(10)))
        try await hall.play(board.id, Array(uci.suffix(10)))
        let published = try await hall.waitForMoves(board.id, count: 11, since: mark)
        game.expectPublished(published, fromPly: 10, board: board.id)
        _ = try await hall.waitForPGN(board.id, plies: 20, since: mark)

        #expect(await hall.bridge.kill() == 128 + SIGKILL)
        mark = hall.recorder.mark
        let logged = hall.bridge.output.count
        try hall.bridge.start()
        try await hall.waitUntilReady(board.id, since: mark)
        try await waitUntil("the board state after the restart shows ply 20 in sync", context: hall.report) {
            let last = hall.recorder.json(on: hall.topic(board.id), since: mark).last
            return last?["ply"] == 20 && last?["sync"]?["state"] == "in_sync"
        }
        let restart = String(hall.bridge.output.dropFirst(logged))
        #expect(restart.contains("\(board.id): restored game ply=20 "), "\(restart)")
        #expect(!restart.contains("skipped"), "\(restart)")
        #expect(hall.recorder.json(on: hall.topic(board.id, "move"), since: mark).isEmpty)
        #expect(!hall.eventTypes(board.id, since: mark).contains("out_of_sync"))
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 20, since: mark), board: board.id)
        // A torn line is cut, not kept: nothing was moved aside.
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(!files.contains { $0.contains(".corrupt-") }, "\(files)")
    }
}
