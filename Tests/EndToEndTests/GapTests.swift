import Contract
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #15 (9): three moves made on a Chessnut while its link is down (the adapter
    /// switched off) are found from the board when the link is back and published in
    /// order, each marked `"recovered": true`; the game goes on after them.
    @Test func threeMovesMadeWhileTheLinkIsDownArePublishedAsRecovered() async throws {
        let board = HallBoard(id: "gap", family: "chessnut", address: "AA:BB:CC:00:15:09")
        let hall = try await Hall(boards: [board], settings: HallSettings(desyncGrace: 0.5))
        defer { hall.stop() }
        var game = try await hall.playOpening(board.id)

        let mark = hall.recorder.mark
        try await hall.ctl("power", "hci0", "off")
        try await waitUntil("the board shows powered_off", context: hall.report) {
            hall.connectionStates(board.id, since: mark).last == "powered_off"
        }
        // 3. Bb5 a6 4. Bxc6: the only line from 2... Nc6 to that board.
        let gap = ["f1b5", "a7a6", "b5c6"]
        try game.append(gap)
        try await hall.play(board.id, gap)
        let powerOn = hall.recorder.mark
        try await hall.ctl("power", "hci0", "on")
        try await hall.waitUntilReady(board.id, since: powerOn)
        let recovered = try await hall.waitForMoves(board.id, count: 3, since: mark)
        game.expectPublished(recovered, fromPly: 5, board: board.id)
        #expect(recovered.allSatisfy { $0["recovered"] == true }, "\(recovered)")
        #expect(!hall.eventTypes(board.id, since: mark).contains("out_of_sync"))

        // Tracking goes on: the next move is published as usual.
        let next = hall.recorder.mark
        try game.append(["d7c6"])
        try await hall.play(board.id, ["d7c6"])
        let moves = try await hall.waitForMoves(board.id, count: 1, since: next)
        game.expectPublished(moves, fromPly: 8, board: board.id)
        #expect(moves.first?["recovered"] == nil)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: 8, since: mark), board: board.id)
    }
}
