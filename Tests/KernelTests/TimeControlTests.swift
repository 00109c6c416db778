import Kernel
import Testing

@Suite struct TimeControlTests {
    @Test func parsesIncrementalControls() throws {
        #expect(try TimeControl(pgn: "300+2") == .periods([TimeControlPeriod(seconds: 300, increment: 2)]))
        #expect(try TimeControl(pgn: "5400+30") == .periods([TimeControlPeriod(seconds: 5400, increment: 30)]))
        #expect(try TimeControl(pgn: " 60 ") == .periods([TimeControlPeriod(seconds: 60)]))
        #expect(try TimeControl(pgn: "90+0.5") == .periods([TimeControlPeriod(seconds: 90, increment: 0.5)]))
    }

    @Test func parsesMovesToGoPeriods() throws {
        let control = try TimeControl(pgn: "40/5400+30:1800+30")
        #expect(
            control
                == .periods([
                    TimeControlPeriod(moves: 40, seconds: 5400, increment: 30),
                    TimeControlPeriod(seconds: 1800, increment: 30),
                ]))
        #expect(control.pgn == "40/5400+30:1800+30")
        #expect(control.initialTime == 5400)
        #expect(control.period(at: 1)?.seconds == 1800)
        #expect(control.period(at: 7)?.seconds == 1800)
    }

    @Test func parsesSpecialForms() throws {
        #expect(try TimeControl(pgn: "-") == .unlimited)
        #expect(try TimeControl(pgn: "?") == .unknown)
        #expect(try TimeControl(pgn: "*180") == .sandclock(seconds: 180))
        #expect(try TimeControl(pgn: "-").isTimed == false)
        #expect(try TimeControl(pgn: "*180").pgn == "*180")
    }

    @Test(arguments: ["300+2", "5400+30", "40/5400+30:1800+30", "-", "?", "*180", "40/7200:20/3600:900+30", "90+0.5"])
    func roundTripsThroughText(_ text: String) throws {
        let control = try TimeControl(pgn: text)
        #expect(control.pgn == text)
        #expect(try TimeControl(pgn: control.pgn) == control)
    }

    @Test func rejectsMalformedText() {
        #expect(throws: TimeControlError.empty) { try TimeControl(pgn: "  ") }
        #expect(throws: TimeControlError.invalidSeconds("abc")) { try TimeControl(pgn: "abc") }
        #expect(throws: TimeControlError.invalidSeconds("0")) { try TimeControl(pgn: "0") }
        #expect(throws: TimeControlError.invalidSeconds("-5")) { try TimeControl(pgn: "-5") }
        #expect(throws: TimeControlError.invalidIncrement("300+")) { try TimeControl(pgn: "300+") }
        #expect(throws: TimeControlError.invalidIncrement("300+x")) { try TimeControl(pgn: "300+x") }
        #expect(throws: TimeControlError.invalidMoveCount("0/300")) { try TimeControl(pgn: "0/300") }
        #expect(throws: TimeControlError.invalidMoveCount("/300")) { try TimeControl(pgn: "/300") }
        #expect(throws: TimeControlError.invalidSandclock("*")) { try TimeControl(pgn: "*") }
        #expect(throws: TimeControlError.suddenDeathNotLast("300")) { try TimeControl(pgn: "300:40/60") }
        #expect(throws: TimeControlError.invalidSeconds("")) { try TimeControl(pgn: "40/300:") }
        #expect(throws: TimeControlError.invalidSeconds("1.2.3")) { try TimeControl(pgn: "1.2.3") }
        #expect(throws: TimeControlError.invalidSeconds("1e9")) { try TimeControl(pgn: "1e9") }
        #expect(throws: TimeControlError.invalidSeconds("٣٠٠")) { try TimeControl(pgn: "٣٠٠") }
    }
}
