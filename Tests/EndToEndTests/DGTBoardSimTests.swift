import Chess
import Contract
import Foundation
import TestSupport
import Testing

/// Issue #23: DGT e-Boards served by `boardsim`, end to end through the bridge binary: one
/// behind a pseudo-terminal (`transport=pty`, configured by its stable `serial:` name), one
/// behind the fake BlueZ's `Profile1` flow (`transport=rfcomm`, configured by `address:`).
extension EndToEndTests {
    /// A whole random game on a DGT board behind boardsim's pseudo-terminal; mid-game the
    /// board is unplugged (its path goes away), a move is made meanwhile, it is plugged in
    /// again, and later its cable drops once: every move arrives, in order, with the SAN,
    /// FEN and PGN of what was played.
    @Test func dgtGameOverBoardsimPseudoTerminal() async throws {
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("boardsim-dgt-\(UUID())").path
        let board = HallBoard(id: "dgt-pty", family: "dgt", address: "AA:BB:CC:00:23:01", serialLink: link)
        let hall = try await Hall(boards: [board])
        defer { hall.stop() }
        #expect(FileManager.default.fileExists(atPath: link))
        let uci = Self.randomLegalGame(seed: 2311, plies: 30)
        let game = try PlayedGame(uci)
        try await hall.play(board.id, Array(uci.prefix(10)), pace: 0.15)
        try await hall.waitForMoves(board.id, count: 10)

        var mark = hall.recorder.mark
        try await hall.ctl("present", board.id, "false")
        #expect(!FileManager.default.fileExists(atPath: link), "unplugged, the path leads nowhere")
        try await waitUntil("the board reported lost", context: hall.report) {
            hall.connectionStates(board.id, since: mark).contains("reconnecting")
        }
        try await hall.play(board.id, [uci[10]], pace: 0.15)
        try await hall.ctl("present", board.id, "true")
        #expect(FileManager.default.fileExists(atPath: link))
        try await hall.waitUntilReady(board.id, since: mark)
        try await hall.waitForMoves(board.id, count: 11)

        try await hall.play(board.id, Array(uci[11..<20]), pace: 0.15)
        try await hall.waitForMoves(board.id, count: 20)
        mark = hall.recorder.mark
        try await hall.ctl("drop", board.id)
        try await hall.waitUntilReady(board.id, since: mark)
        try await hall.play(board.id, Array(uci.dropFirst(20)), pace: 0.15)
        game.expectPublished(try await hall.waitForMoves(board.id, count: uci.count), board: board.id)
        game.expectPGN(try await hall.waitForPGN(board.id, plies: uci.count), board: board.id)
    }

    /// A whole random game on a Bluetooth DGT e-Board over RFCOMM (Profile1, ConnectProfile,
    /// NewConnection with a socketpair end); its link drops twice mid-game. The DGT 3000 on
    /// the board is started for White (the lever on Black's side): the published times and
    /// the PGN's `[%clk]` are the clock's, Black's standing at its 5 minutes throughout. The
    /// board's serial number and version are in the bridge's info.
    @Test func dgtGameOverBoardsimRFCOMM() async throws {
        let board = HallBoard(
            id: "dgt-bt", family: "dgt", address: "AA:BB:CC:00:23:02", simulatorOptions: "transport=rfcomm")
        let hall = try await Hall(boards: [board], settings: HallSettings(homeAssistant: true))
        defer { hall.stop() }
        let info = "\(Hall.base)/bridge/\(Hall.node)/info"
        try await waitUntil("the board's serial number and version in the info", context: hall.report) {
            let entry = hall.recorder.json(on: info).last?["boards"]?.arrayValue?.first
            return entry?["serial_number"] == "12345" && entry?["firmware_version"] == "1.2"
        }
        try await waitUntil("the device card's serial number and version", context: hall.report) {
            hall.recorder.messages.contains {
                $0.topic.hasPrefix("homeassistant/") && $0.text.contains(#""serial_number":"12345""#)
                    && $0.text.contains(#""sw_version":"1.2""#)
            }
        }
        try await hall.ctl("button", board.id, "lever_right")
        let uci = Self.randomLegalGame(seed: 2312, plies: 30)
        let game = try PlayedGame(uci)
        for (start, end) in [(0, 10), (10, 20), (20, uci.count)] {
            try await hall.play(board.id, Array(uci[start..<end]), pace: 0.15)
            try await hall.waitForMoves(board.id, count: end)
            guard end < uci.count else { break }
            let mark = hall.recorder.mark
            try await hall.ctl("drop", board.id)
            try await hall.waitUntilReady(board.id, since: mark)
        }
        let published = try await hall.waitForMoves(board.id, count: uci.count)
        game.expectPublished(published, board: board.id)
        for move in published {
            #expect(move["clock_source"] == "board", "\(move)")
            #expect(move["clock"]?["black"]?.doubleValue == 300, "\(move)")
            let white = move["clock"]?["white"]?.doubleValue ?? 0
            #expect(white > 0 && white <= 300, "\(move)")
        }
        let whiteTimes = published.compactMap { $0["clock"]?["white"]?.doubleValue }
        #expect(whiteTimes == whiteTimes.sorted(by: >), "White's time only runs down")
        let pgn = try await hall.waitForPGN(board.id, plies: uci.count)
        game.expectPGN(pgn, board: board.id)
        #expect(pgn.components(separatedBy: "[%clk 0:05:00]").count - 1 >= uci.count / 2, "\(pgn)")
        // The retained state shows the board's clock and identity too (the hall view reads it).
        let state = try #require(hall.recorder.json(on: hall.topic(board.id)).last)
        #expect(state["clock"]?["source"] == "board", "\(state)")
        #expect(state["clock"]?["black"]?.doubleValue == 300, "\(state)")
        #expect(state["serial_number"] == "12345" && state["firmware_version"] == "1.2", "\(state)")
    }
}
