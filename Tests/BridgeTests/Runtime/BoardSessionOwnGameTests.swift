import Adapters
import BoardKit
import Chess
import Config
import Emulation
import Foundation
import Testing

@testable import Bridge

/// Issue #15 (8, 10) at the session: a board that keeps its own game (ChessUp) gets the
/// kernel's new games and positions; batteries are asked for once the board is ready.
@Suite(.serialized) @MainActor struct BoardSessionOwnGameTests {
    private func chessUp() async throws -> SessionHarness {
        var harness = try SessionHarness(family: .chessUp, name: "ChessUp")
        await harness.connect()
        for move in ["e2e4", "e7e5", "g1f3", "b8c6"] { await harness.play(move) }
        #expect(harness.publisher.payloads(on: "boardbridge/board-01/move").count == 4)
        return harness
    }

    private func boardGame(_ harness: SessionHarness) throws -> ChessUpState {
        try #require(harness.transport.personality as? ChessUpPersonality).gameState
    }

    @Test func newGameStartsTheChessUpsOwnGameAfresh() async throws {
        let harness = try await chessUp()
        #expect(try boardGame(harness).pieces != .startingPosition)
        let reply = try harness.session.execute(.game(.newGame(GameCommand.NewGame()))).get()
        #expect(reply["board_game"] == "loaded")
        await harness.pump()
        #expect(try boardGame(harness).pieces == .startingPosition)
        #expect(try #require(harness.transport.personality as? ChessUpPersonality).sessionOpenCount == 2)
    }

    @Test func positionIsLoadedIntoTheChessUpsOwnGame() async throws {
        let harness = try await chessUp()
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
        let reply = try harness.session.execute(.game(.setPosition(try Position(fen: fen)))).get()
        #expect(reply["board_game"] == "loaded")
        await harness.pump()
        let state = try boardGame(harness)
        #expect(state.pieces == (try Position(fen: fen)).snapshot)
        #expect(state.sideToMove == .black)
        // The `66` load went out after the fresh session.
        let opcodes = harness.transport.writes.suffix(3).map { $0.bytes.first }
        #expect(opcodes == [0xB9, 0x66, 0x67])
    }

    @Test func aNewGameWhileTheChessUpIsAwayIsLoadedWhenItIsReady() async throws {
        let harness = try await chessUp()
        harness.transport.dropLink()
        await harness.pump()
        let reply = try harness.session.execute(.game(.newGame(GameCommand.NewGame()))).get()
        #expect(reply["board_game"] == "pending")
        harness.transport.establishLink()
        await harness.pump()
        #expect(try boardGame(harness).pieces == .startingPosition)
    }

    @Test func boardsWithoutAGameOfTheirOwnGetNothingAndNoMention() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        // The board shows the start: the new game is in sync at once, so no out-of-sync
        // alert lights squares either, and nothing at all is written.
        let written = harness.transport.writes.count
        let reply = try harness.session.execute(.game(.newGame(GameCommand.NewGame()))).get()
        await harness.pump()
        #expect(reply["board_game"] == nil)
        #expect(harness.transport.writes.count == written)
    }

    @Test func batteryIsAskedForOnceTheBoardIsReady() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        // Chessnut: `29 01 00`, answered with `2A 02 <level> <flag>`.
        #expect(harness.transport.writes.contains { $0.bytes == Data([0x29, 0x01, 0x00]) })
        let state = harness.publisher.payloads(on: "boardbridge/board-01").last
        #expect(state?["battery"]?["percent"]?.intValue == 100)
    }
}
