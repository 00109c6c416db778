import Bridge
import Chess
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #30 (4): an undo made on a ChessUp (its button; boardsim's `ctl button … undo`)
    /// is a `takeback` through the whole pipeline, the PGN follows, and the game goes on.
    @Test func chessUpUndoOnTheBoardIsATakeback() async throws {
        let board = HallBoard(id: "cup-undo", family: "chessup", address: "AA:BB:CC:00:30:04")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        let opening = ["e2e4", "e7e5", "g1f3"]
        try await hall.play(board.id, opening)
        _ = try await hall.waitForMoves(board.id, count: 3)
        let mark = hall.recorder.mark
        try await hall.ctl("button", board.id, "undo")
        try await waitUntil("the takeback", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id, "event"), since: mark).contains {
                $0["event_type"] == "takeback" && $0["plies"] == 1
            }
        }
        _ = try await hall.waitForPGN(board.id, plies: 2, since: mark)
        // The knight is put back, and another move is played from the position after 1... e5.
        try await hall.ctl("lift", board.id, "f3")
        try await hall.ctl("place", board.id, "g1", "N")
        try await hall.ctl("lift", board.id, "b1")
        try await hall.ctl("place", board.id, "c3", "N")
        let moves = try await hall.waitForMoves(board.id, count: 1, since: mark)
        #expect(moves.map { $0["uci"]?.stringValue } == ["b1c3"])
        #expect(moves.first?["ply"] == 3)
        _ = try await hall.waitForPGN(board.id, plies: 3, since: mark)
    }
}
