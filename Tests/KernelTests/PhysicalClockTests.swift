import BoardKit
import Chess
import Foundation
import Kernel
import Testing

/// Issue #23: a clock on the board (a DGT 3000) is the game's clock: its times are the
/// published times and each move's `[%clk]`; the bridge's own clock rules do not touch it.
@Suite struct PhysicalClockTests {
    @Test func theFirstRunningSideIsTheSideToMove() {
        var clock = PhysicalClock()
        #expect(clock.remainingTimes == nil)
        clock.observe(BoardClockReading(left: 300, right: 280, running: nil, leverUp: .left), sideToMove: .white)
        // Not run yet: White is on the left.
        #expect(clock.remaining(for: .white) == 300)
        clock.observe(BoardClockReading(left: 300, right: 280, running: .right, leverUp: .left), sideToMove: .white)
        #expect(clock.whiteSide == .right)
        #expect(clock.remaining(for: .white) == 280)
        #expect(clock.remaining(for: .black) == 300)
        // Later lever presses do not move White's display.
        clock.observe(BoardClockReading(left: 290, right: 270, running: .left, leverUp: .right), sideToMove: .white)
        #expect(clock.whiteSide == .right)
        clock.observe(nil, sideToMove: .black)
        #expect(clock.remainingTimes == nil)
    }

    @Test func movesCarryTheBoardsClockUntimedOrTimed() throws {
        for control in [TimeControl.unlimited, try TimeControl(pgn: "600")] {
            var session = GameSession(timeControl: control, inputPath: .reportedMoves)
            // The arbiter starts White's time on the left display.
            _ = session.handle(.clock(BoardClockReading(left: 300, right: 300, running: .left, leverUp: .right)), at: 0)
            _ = session.handle(.clock(BoardClockReading(left: 296, right: 300, running: .left, leverUp: .right)), at: 4)
            _ = session.handle(.moveReported(BoardMove(uci: "e2e4")!), at: 4.5)
            _ = session.handle(
                .clock(BoardClockReading(left: 296, right: 291, running: .right, leverUp: .left)), at: 14)
            _ = session.handle(.moveReported(BoardMove(uci: "e7e5")!), at: 14.2)
            #expect(session.game.moves.map(\.clock) == [296, 291])
            #expect(session.game.pgn.contains("[%clk 0:04:56]"), "\(session.game.pgn)")
            #expect(session.game.pgn.contains("[%clk 0:04:51]"), "\(session.game.pgn)")
            #expect(session.publishedClocks(at: 100)?.white == 296)
            #expect(session.publishedClocks(at: 100)?.black == 291)
        }
    }
}
