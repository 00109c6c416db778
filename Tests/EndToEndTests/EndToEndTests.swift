import Chess
import Contract
import Foundation
import TestScheduling
import TestSupport
import Testing

/// Issue #7: the whole product with real processes — a private `dbus-daemon`, `boardsim`
/// faking BlueZ with emulated boards, `mosquitto`, and `boardbridge run` between them.
/// Each test builds its own hall and tears it down by PID (also on failure). A hall mostly
/// waits on its processes, so a few run at once (``WholeHall``), each on its own bus, broker,
/// ports and paths.
@Suite(.wholeHall, .enabled(if: TestTools.available("dbus-daemon", "mosquitto")))
@MainActor
struct EndToEndTests {
    /// The games played are legal and hold castling, en passant and a promotion each.
    @Test(arguments: [Games.whitePromotes, Games.blackUnderpromotes])
    func gamesHaveEverySpecialMove(uci: [String]) throws {
        let played = try PlayedGame(uci)
        var castles = false
        var enPassant = false
        var promotes = false
        for (index, move) in played.game.moves.enumerated() {
            let before = played.game.positions[index]
            castles = castles || move.san.hasPrefix("O-O")
            promotes = promotes || move.move.promotion != nil
            let isPawn = before.snapshot[move.move.from]?.kind == .pawn
            let diagonal = move.move.from.file != move.move.to.file
            enPassant = enPassant || (isPawn && diagonal && before.snapshot[move.move.to] == nil)
        }
        #expect(castles)
        #expect(enPassant)
        #expect(promotes)
    }
}
