import BoardKit
import Chess
import Emulation
import Foundation
import Kernel
import TestSupport
import Testing

@testable import Bridge

/// Issue #32: a board that keeps the host's position (the Chess Peripheral Protocol) is
/// refereed by the session: begun once ready, every report answered with the kernel's
/// verdict, given the position again after a takeback, told when the game is over.
extension BoardSessionTests {
    static func firmware(_ harness: SessionHarness) -> ChessPeripheralPersonality? {
        harness.transport.personality as? ChessPeripheralPersonality
    }

    @Test func aRefereedBoardIsBegunJudgedAndGivenTheTakeback() async throws {
        var harness = try SessionHarness(family: .chessPeripheral, name: "CPP Board")
        await harness.connect()
        #expect(Self.firmware(harness)?.heldFEN == Position.starting.fen)
        #expect(Self.firmware(harness)?.isSynced == true)

        for uci in ["e2e4", "d7d6", "f1b5", "b8c6", "g1f3"] { await harness.play(uci) }
        #expect(harness.session.core.game.moves.count == 5)
        #expect(Self.firmware(harness)?.verdicts == Array(repeating: "ok", count: 5))
        #expect(Self.firmware(harness)?.heldFEN == harness.session.core.position.fen)

        // The pinned knight: reported, refused, the board out of sync until it is back.
        await harness.play("c6d4")
        #expect(Self.firmware(harness)?.verdicts.last == "nok")
        #expect(harness.session.core.game.moves.count == 5)
        #expect(harness.session.core.syncState.isOutOfSync)
        await harness.play("d4c6")
        #expect(harness.session.core.syncState == .inSync)

        // A takeback: the board is given the position before Nf3 and is out of sync until the
        // knight is back.
        let writes = harness.transport.writes.count
        #expect(throws: Never.self) { try harness.session.execute(.game(.takeback(plies: 1))).get() }
        let begun = harness.transport.writes[writes...].map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(begun == ["begin \(harness.session.core.position.fen)"])
        #expect(Self.firmware(harness)?.isSynced == false)
        await harness.play("f3g1")
        #expect(Self.firmware(harness)?.isSynced == true)
        await harness.play("b1c3")
        #expect(harness.session.core.game.moves.map(\.san).last == "Nc3")
    }

    @Test func aRefereedBoardIsToldTheGameIsOverAndBegunForTheNext() async throws {
        var harness = try SessionHarness(family: .chessPeripheral, name: "CPP Board")
        await harness.connect()
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] { await harness.play(uci) }
        #expect(harness.session.core.game.result == .blackWins)
        #expect(Self.firmware(harness)?.endReason == "checkmate")
        #expect(Self.firmware(harness)?.heldFEN == nil)
        // A move after the end is no report: the round is over.
        let writes = harness.transport.writes.count
        await harness.play("a2a3")
        #expect(harness.transport.writes.count == writes)
        // The next game begins a round again (the board, still showing the mate, is out of
        // sync until it is set up).
        #expect(throws: Never.self) { try harness.session.execute(.game(.setPosition(.starting))).get() }
        #expect(Self.firmware(harness)?.heldFEN == Position.starting.fen)
        #expect(Self.firmware(harness)?.isSynced == false)
    }

    /// A promotion the board names no piece for is answered with the game's pick.
    @Test func aRefereedPromotionIsAnsweredWithTheGamesPiece() async throws {
        let fen = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
        var harness = try SessionHarness(family: .chessPeripheral, name: "CPP Board")
        await harness.connect()
        #expect(throws: Never.self) { try harness.session.execute(.game(.setPosition(try Position(fen: fen)))).get() }
        let target = BoardSnapshot(fenPlacement: "8/P6k/8/8/8/8/8/K7")!
        for square in Square.allCases where harness.transport.personality.board[square] != target[square] {
            if harness.transport.personality.board[square] != nil { harness.perform(.lift(square)) }
            if let piece = target[square] { harness.perform(.place(piece, on: square)) }
        }
        await harness.pump()
        #expect(Self.firmware(harness)?.isSynced == true)
        await harness.play("a7a8q")
        #expect(Self.firmware(harness)?.verdicts == ["promote a7a8q"])
        #expect(harness.session.core.game.moves.last?.san == "a8=Q")
    }
}
