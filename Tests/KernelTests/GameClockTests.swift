import BoardKit
import Foundation
import Kernel
import Testing

@Suite struct GameClockTests {
    private func clock(_ text: String) throws -> GameClock {
        GameClock(timeControl: try TimeControl(pgn: text))
    }

    @Test func runsForOneSideAtATimeAndAddsIncrements() throws {
        var clock = try clock("300+2")
        #expect(clock.state == .notStarted)
        #expect(clock.remaining(for: .white, at: 50) == 300)
        clock.start(.white, at: 100)
        #expect(clock.remaining(for: .white, at: 110) == 290)
        #expect(clock.remaining(for: .black, at: 110) == 300)
        #expect(clock.flagDeadline == 400)
        let result1 = clock.moveMade(by: .white, at: 110)
        #expect(result1 == 292)
        #expect(clock.state == .running(.black))
        #expect(clock.remaining(for: .black, at: 125) == 285)
        let result2 = clock.moveMade(by: .black, at: 125)
        #expect(result2 == 287)
        #expect(clock.movesMade == ColorPair(white: 1, black: 1))
        #expect(clock.remaining(for: .white, at: 125) == 292)
    }

    @Test func pauseAndResumeStopTheTime() throws {
        var clock = try clock("300")
        clock.start(.white, at: 0)
        let result3 = clock.pause(at: 10)
        #expect(result3)
        let result4 = clock.pause(at: 11)
        #expect(!result4)
        #expect(clock.state == .paused(.white))
        #expect(clock.remaining(for: .white, at: 500) == 290)
        #expect(clock.flagDeadline == nil)
        // A move committed while paused hands the paused clock to the other side.
        clock.moveMade(by: .white, at: 600)
        #expect(clock.state == .paused(.black))
        #expect(clock.remaining(for: .white, at: 600) == 290)
        let result5 = clock.resume(.black, at: 1000)
        #expect(result5)
        #expect(clock.remaining(for: .black, at: 1030) == 270)
    }

    @Test func movesToGoGrantsTheNextPeriodOnce() throws {
        var clock = try clock("2/100+5:50")
        clock.start(.white, at: 0)
        #expect(clock.movesToGo(for: .white) == 2)
        clock.moveMade(by: .white, at: 10)  // 100 - 10 + 5 = 95
        clock.moveMade(by: .black, at: 10)
        #expect(clock.movesToGo(for: .white) == 1)
        // Second white move completes the period: +5 increment, +50 for the next period.
        let result6 = clock.moveMade(by: .white, at: 30)
        #expect(result6 == 130)  // 95 - 20 + 5 + 50
        #expect(clock.periodIndex.white == 1)
        #expect(clock.movesToGo(for: .white) == nil)
        // The sudden-death period has no increment.
        clock.moveMade(by: .black, at: 30)
        let result7 = clock.moveMade(by: .white, at: 40)
        #expect(result7 == 120)
        // A takeback never grants a period twice.
        clock.undoMoves(of: .white, count: 3)
        #expect(clock.movesMade.white == 0)
        #expect(clock.periodIndex.white == 1)
    }

    @Test func lastPeriodWithAMoveCountRepeats() throws {
        var clock = try clock("1/60")
        clock.start(.white, at: 0)
        let result8 = clock.moveMade(by: .white, at: 10)
        #expect(result8 == 110)
        clock.moveMade(by: .black, at: 10)
        let result9 = clock.moveMade(by: .white, at: 20)
        #expect(result9 == 160)
        #expect(clock.movesToGo(for: .white) == 1)
    }

    @Test func flagFallsOnceAtTheDeadline() throws {
        var clock = try clock("60")
        clock.start(.white, at: 0)
        clock.moveMade(by: .white, at: 5)
        #expect(clock.flagDeadline == 65)
        let result10 = clock.checkFlag(at: 64.9)
        #expect(result10 == nil)
        let result11 = clock.checkFlag(at: 70)
        #expect(result11 == .black)
        #expect(clock.state == .flagged(.black))
        #expect(clock.remaining(for: .black, at: 90) == 0)
        let result12 = clock.checkFlag(at: 80)
        #expect(result12 == nil)
        let result13 = clock.resume(.white, at: 80)
        #expect(!result13)
    }

    @Test func untimedClocksCountMovesButNoTime() throws {
        var clock = try clock("-")
        clock.start(.white, at: 0)
        #expect(clock.isRunning)
        #expect(clock.remaining(for: .white, at: 100) == nil)
        let result14 = clock.moveMade(by: .white, at: 100)
        #expect(result14 == nil)
        #expect(clock.flagDeadline == nil)
        let result15 = clock.checkFlag(at: 1e9)
        #expect(result15 == nil)
        #expect(clock.movesMade.white == 1)
    }

    @Test func sandclockTimeFlowsToTheOpponent() throws {
        var clock = try clock("*100")
        clock.start(.white, at: 0)
        #expect(clock.remaining(for: .white, at: 30) == 70)
        clock.moveMade(by: .white, at: 30)
        #expect(clock.remaining(for: .black, at: 30) == 130)
        #expect(clock.remaining(for: .white, at: 30) == 70)
    }

    @Test func backwardTimeAndBadAdjustmentsAreHarmless() throws {
        var clock = try clock("300")
        clock.start(.white, at: 100)
        #expect(clock.remaining(for: .white, at: 50) == 300)
        clock.adjust(.black, remaining: -4, at: 100)
        #expect(clock.remaining(for: .black, at: 100) == 0)
        clock.adjust(.black, remaining: .nan, at: 100)
        #expect(clock.remaining(for: .black, at: 100) == 0)
        clock.adjust(.white, remaining: 42, at: 110)
        #expect(clock.remaining(for: .white, at: 112) == 40)
    }

    @Test func stopFreezesAndSurvivesCoding() throws {
        var clock = try clock("40/5400+30:1800+30")
        clock.start(.white, at: 0)
        clock.moveMade(by: .white, at: 3)
        let result16 = clock.stop(at: 10)
        #expect(result16)
        #expect(clock.state == .stopped)
        let result17 = clock.start(.white, at: 20)
        #expect(!result17)
        let data = try JSONEncoder().encode(clock)
        #expect(try JSONDecoder().decode(GameClock.self, from: data) == clock)
    }
}
