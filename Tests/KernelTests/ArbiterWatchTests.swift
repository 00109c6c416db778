import BoardKit
import Chess
import Kernel
import Testing

/// Issue #30 (3): alerts before anyone asks — a clock paused too long, a board out of sync
/// too long, a result the position does not support; each once per stretch.
@Suite struct ArbiterWatchTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)

    private func session(_ control: String = "300+2") throws -> GameSession {
        var session = GameSession(timeControl: try TimeControl(pgn: control), inputPath: .identity, options: options)
        _ = session.handle(.connected, at: 0)
        _ = session.handle(.ready, at: 0)
        _ = session.handle(.pieces(Position.starting.snapshot), at: 0)
        return session
    }

    @Test func aClockPausedTooLongIsAlertedOncePerPause() throws {
        var session = try session()
        var watch = ArbiterWatch(limits: .init(clockPaused: 300, outOfSync: 0))
        _ = session.startClock(at: 1)
        _ = session.pauseClock(at: 10)
        #expect(watch.observe(session, at: 10).isEmpty)
        #expect(watch.nextDeadline == 310)
        #expect(watch.observe(session, at: 309).isEmpty)
        let alerts = watch.observe(session, at: 310)
        #expect(alerts.map(\.reason) == ["clock_paused"])
        #expect(alerts.first?.detail == "the clock has been paused for 5 min with no result")
        #expect(watch.observe(session, at: 900).isEmpty)
        #expect(watch.nextDeadline == nil)
        _ = session.resumeClock(at: 901)
        #expect(watch.observe(session, at: 901).isEmpty)
        _ = session.pauseClock(at: 950)
        _ = watch.observe(session, at: 950)
        #expect(watch.observe(session, at: 1250).map(\.reason) == ["clock_paused"])
        // An untimed game's clock is nobody's concern.
        var untimed = try self.session("-")
        var quiet = ArbiterWatch()
        _ = untimed.pauseClock(at: 10)
        #expect(quiet.observe(untimed, at: 10_000).isEmpty)
    }

    @Test func aBoardOutOfSyncTooLongIsAlertedOncePerStretch() throws {
        var session = try session()
        var watch = ArbiterWatch(limits: .init(clockPaused: 0, outOfSync: 120))
        // The e-pawn three squares ahead: no move explains it.
        var knocked = Position.starting.snapshot
        knocked[.e2] = nil
        knocked[.e5] = Piece(.white, .pawn)
        _ = session.handle(.pieces(knocked), at: 5)
        _ = session.tick(at: 8)
        #expect(session.syncState.isOutOfSync)
        #expect(watch.observe(session, at: 8).isEmpty)
        #expect(watch.nextDeadline == 128)
        let alerts = watch.observe(session, at: 128)
        #expect(alerts.map(\.reason) == ["out_of_sync_long"])
        #expect(alerts.first?.detail == "the board has differed from its game for 2 min on e2 e5")
        #expect(watch.observe(session, at: 500).isEmpty)
        _ = session.handle(.pieces(Position.starting.snapshot), at: 501)
        #expect(watch.observe(session, at: 501).isEmpty)
        #expect(watch.nextDeadline == nil)
    }

    @Test func aResultThePositionDoesNotSupportIsAlerted() throws {
        // A bare king against a rook: White cannot mate (Black could).
        var session = try session()
        _ = session.setPosition(try Position(fen: "8/8/8/4k3/8/8/r7/4K3 w - - 0 1"), at: 1)
        var watch = ArbiterWatch()
        _ = watch.observe(session, at: 1)
        let declared = session.declareResult(.whiteWins, at: 2)
        #expect(declared != nil)
        let alerts = watch.observe(session, at: 2)
        #expect(alerts.map(\.reason) == ["result_unsupported"])
        #expect(alerts.first?.detail == "result 1-0: white has no mating material")
        #expect(watch.observe(session, at: 3).isEmpty)
        // A claim with the kings is judged as well.
        let claim = watch.observe(session, outputs: [.tracker(.resultClaim(.whiteWins))], at: 4)
        #expect(claim.first?.detail == "result 1-0 claimed: white has no mating material")
        #expect(watch.observe(session, outputs: [.tracker(.resultClaim(.blackWins))], at: 5).isEmpty)
    }

    @Test func resultsThePositionAllowsAreNotAlerted() throws {
        let game = Game()
        for result in [GameResult.whiteWins, .blackWins, .draw] {
            #expect(ArbiterWatch.unsupported(result, in: game) == nil)
        }
        // 1. f3 e5 2. g4 Qh4#: only 0-1.
        var mated = Game()
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] { try mated.play(mated.position.legalMove(uci: uci)!) }
        #expect(ArbiterWatch.unsupported(.blackWins, in: mated) == nil)
        #expect(ArbiterWatch.unsupported(.whiteWins, in: mated) == "the position is checkmate, won by black")
        #expect(ArbiterWatch.unsupported(.draw, in: mated) == "the position is checkmate, won by black")
        var stalemate = Game(startPosition: try Position(fen: "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
        stalemate.result = .ongoing
        #expect(ArbiterWatch.unsupported(.whiteWins, in: stalemate) == "the position is stalemate, a draw")
    }
}
