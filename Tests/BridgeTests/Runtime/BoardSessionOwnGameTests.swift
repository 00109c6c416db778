import Adapters
import BoardKit
import Chess
import Config
import Emulation
import Foundation
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

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

/// Issue #30 (4): an undo made on a ChessUp is a takeback: the board says so (`BD`), its
/// state frame shows its game a move back, and the PGN follows; the pieces standing as
/// before the undo are not in sync until they are put back.
@Suite(.serialized) @MainActor struct ChessUpUndoTests {
    @Test func anUndoOnTheBoardTakesTheMoveBack() async throws {
        var harness = try SessionHarness(family: .chessUp, name: "ChessUp")
        await harness.connect()
        for uci in ["e2e4", "e7e5", "g1f3"] { await harness.play(uci) }
        #expect(await eventually { harness.session.core.game.moves.count == 3 }, "three moves")
        harness.publisher.clear()
        harness.transport.perform(.pressButton("undo"))
        #expect(await eventually { harness.session.core.game.moves.count == 2 }, "the takeback")
        await harness.pump()
        let events = harness.publisher.payloads(on: "boardbridge/board-01/event")
        #expect(events.contains { $0["event_type"] == "takeback" && $0["plies"] == 1 }, "\(events)")
        let pgn =
            harness.publisher.messages.last { $0.topic == "boardbridge/board-01/pgn" }
            .map { String(decoding: $0.payload, as: UTF8.self) } ?? ""
        #expect(pgn.contains("1. e4 e5 *"), "\(pgn)")
        #expect(harness.session.core.syncState != .inSync, "the knight still stands on f3")
        // The knight goes back and the game goes on from there (the ChessUp streams no
        // occupancy: its next move report shows the pieces stand as the game).
        harness.transport.perform(.lift(.f3))
        harness.transport.perform(.place(Piece(.white, .knight), on: .g1))
        await harness.pump()
        await harness.play("b1c3")
        #expect(await eventually { harness.session.core.game.moves.count == 3 }, "the next move")
        #expect(harness.session.core.game.moves.last?.move.uci == "b1c3")
        #expect(await eventually { harness.session.core.syncState == .inSync }, "in sync again")
    }

    /// A state frame behind the game without an undo announced (a stale one) takes nothing back.
    @Test func aStateFrameBehindTheGameWithoutAnUndoTakesNothingBack() async throws {
        var harness = try SessionHarness(family: .chessUp, name: "ChessUp")
        await harness.connect()
        for uci in ["e2e4", "e7e5"] { await harness.play(uci) }
        #expect(await eventually { harness.session.core.game.moves.count == 2 }, "two moves")
        var board = Position.starting.snapshot
        board[.e2] = nil
        board[.e4] = Piece(.white, .pawn)
        harness.session.handle(.gameState(board, sideToMove: .black, fullmoveNumber: 1))
        await harness.pump()
        #expect(harness.session.core.game.moves.count == 2)
    }
}
