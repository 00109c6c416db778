import Chess
import Contract
import Foundation
import TestSupport
import Testing

/// Issue #32: iChessOne boards served by `boardsim` over its fake BlueZ, end to end through
/// the bridge binary.
extension EndToEndTests {
    /// An iChessOne set up the other way round (found from its start position) plays a whole
    /// random game, exact across a dropped link with a move made meanwhile; beside it a
    /// Millennium plays the same game. Both, left alone for longer than the stall watch
    /// allows, stay connected: a board that reports only changes answers the watch's request
    /// for its state, and that answer counts even when it says nothing new.
    @Test func iChessOneGameAcrossALinkDropAndQuietBoardsAreNoSilentOnes() async throws {
        let ichessone = HallBoard(
            id: "ichessone", family: "ichessone", address: "AA:BB:CC:00:32:11", simulatorOptions: "flipped=true")
        let millennium = HallBoard(id: "millennium-quiet", family: "millennium", address: "AA:BB:CC:00:32:12")
        let hall = try await Hall(
            boards: [ichessone, millennium], settings: HallSettings(health: (interval: 2, stallAfter: 4)))
        defer { hall.stop() }

        let uci = Self.randomLegalGame(seed: 3211, plies: 40)
        let game = try PlayedGame(uci)
        try await hall.playTogether([(ichessone.id, Array(uci.prefix(14))), (millennium.id, uci)], pace: 0.2)
        try await hall.waitForMoves(ichessone.id, count: 14)

        let mark = hall.recorder.mark
        try await hall.ctl("present", ichessone.id, "false")
        try await waitUntil("the board reported lost", context: hall.report) {
            hall.connectionStates(ichessone.id, since: mark).contains("reconnecting")
        }
        try await hall.play(ichessone.id, [uci[14]], pace: 0.2)
        try await hall.ctl("present", ichessone.id, "true")
        try await hall.waitUntilReady(ichessone.id, since: mark)
        try await hall.waitForMoves(ichessone.id, count: 15)
        try await hall.play(ichessone.id, Array(uci.dropFirst(15)), pace: 0.2)
        for board in [ichessone.id, millennium.id] {
            game.expectPublished(try await hall.waitForMoves(board, count: uci.count), board: board)
            game.expectPGN(try await hall.waitForPGN(board, plies: uci.count), board: board)
        }

        // Left alone for longer than the stall watch allows.
        try await hall.expectNoStallWhileLeftAlone([ichessone.id, millennium.id])
    }
}
