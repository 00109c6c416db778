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

    /// A board of the protocol's 2024 dialect (OPENCHESSBOARD's): it refuses the `begin`, the
    /// adapter finds its dialect and the session gives it the position again as `fen`, also
    /// after a dropped link mid-game and after a set position. Its bare `ok` is the squares
    /// of the position it was given: a board put right while its link was down is in sync
    /// the moment it says so (without that reading the game stays out of sync on the last
    /// squares it showed, until its next move).
    @Test func aRefereedBoardOfThe2024DialectIsBegunWithFENAndBelievedWhenItSaysOK() async throws {
        let firmware = ChessPeripheralPersonality(name: "OCB", options: .openChessBoard)
        var harness = try SessionHarness(family: .chessPeripheral, name: "OCB", personality: firmware)
        await harness.connect()
        let start = Position.starting.fen
        let words = harness.transport.writes.map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(words == ["feature submove_state", "feature check", "begin \(start)", "fen \(start)"])
        #expect(Self.firmware(harness)?.heldFEN == start)
        #expect(harness.session.core.syncState == .inSync)

        for uci in ["e2e4", "d7d6", "f1b5", "b8c6", "g1f3"] { await harness.play(uci) }
        #expect(Self.firmware(harness)?.verdicts == Array(repeating: "ok", count: 5))

        // The pinned knight: refused, out of sync on the squares the board shows. Put back
        // while the link is down, the board answers the `fen` it is given with a bare `ok`.
        await harness.play("c6d4")
        #expect(Self.firmware(harness)?.verdicts.last == "nok")
        #expect(harness.session.core.syncState.isOutOfSync)
        harness.transport.dropLink()
        await harness.pump()
        harness.transport.perform(.lift(.d4))
        harness.transport.perform(.place(Piece(.black, .knight), on: .c6))
        harness.transport.establishLink()
        await harness.pump()
        let last = harness.transport.writes.last.map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(last == "fen \(harness.session.core.position.fen)")
        #expect(Self.firmware(harness)?.isSynced == true)
        #expect(harness.session.core.syncState == .inSync)
        await harness.play("c8d7")
        #expect(harness.session.core.game.moves.map(\.san) == ["e4", "d6", "Bb5+", "Nc6", "Nf3", "Bd7"])

        // A set position is given as `fen` too.
        let shown = try Position(fen: "r2qkbnr/pppbpppp/2np4/1B6/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 1")
        let before = harness.transport.writes.count
        #expect(throws: Never.self) { try harness.session.execute(.game(.setPosition(shown))).get() }
        await harness.pump()
        let given = harness.transport.writes[before...].map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(given == ["fen \(shown.fen)"])
        #expect(harness.session.core.syncState == .inSync)
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
