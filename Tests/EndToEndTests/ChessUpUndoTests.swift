import Chess
import Contract
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

extension EndToEndTests {
    /// Issue #30 (4): a move the ChessUp's engine refuses (a bishop moved like a rook) is
    /// reported nowhere by the board; the bridge sees it in the board's occupancy stream
    /// and publishes `illegal_move`, the state reads out of sync (never `in_sync`) until
    /// the bishop is back, and the game goes on.
    @Test func chessUpIllegalPlacementIsSeenFromItsOccupancy() async throws {
        let board = HallBoard(id: "cup-illegal", family: "chessup", address: "AA:BB:CC:00:30:05")
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        try await hall.play(board.id, ["e2e4", "e7e5"])
        _ = try await hall.waitForMoves(board.id, count: 2)
        let mark = hall.recorder.mark
        try await hall.ctl("lift", board.id, "f1")
        try await hall.ctl("place", board.id, "f3", "B")
        func illegal() -> ReceivedMessage? {
            hall.recorder.messages(on: hall.topic(board.id, "event"), since: mark).first {
                $0.json?["event_type"] == "illegal_move" && $0.json?["uci"] == "f1f3"
            }
        }
        try await waitUntil("the illegal move", context: hall.report) { illegal() != nil }
        try await waitUntil("out of sync", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id), since: mark).last?["sync"]?["state"] == "out_of_sync"
        }
        let back = hall.recorder.mark
        try await hall.ctl("lift", board.id, "f3")
        try await hall.ctl("place", board.id, "f1", "B")
        try await waitUntil("in sync again", context: hall.report) {
            hall.recorder.json(on: hall.topic(board.id), since: back).last?["sync"]?["state"] == "in_sync"
        }
        // From the alert on (the bishop stands on f3) until it is lifted again.
        let alerted = illegal()?.index ?? mark
        let states = hall.recorder.messages(on: hall.topic(board.id), since: alerted).filter { $0.index < back }
            .compactMap(\.json)
        #expect(!states.contains { $0["sync"]?["state"] == "in_sync" }, "in sync while the bishop stood on f3")
        try await hall.play(board.id, ["g1f3"])
        let moves = try await hall.waitForMoves(board.id, count: 1, since: back)
        #expect(moves.map { $0["uci"]?.stringValue } == ["g1f3"])
        #expect(moves.first?["ply"] == 3)
    }
}
