import BoardKit
import Chess
import Kernel
import Testing

/// An occupancy board stuck out of sync is asked for its full state: 3 s after the grace
/// period, then with back-off, a bounded number of times, afresh after each stretch.
@Suite struct ResyncTests {
    private func occupancySession() -> GameSession {
        GameSession(inputPath: .occupancy, options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
    }

    private func requests(_ outputs: [SessionOutput]) -> Int {
        outputs.filter { $0 == .command(.requestState) }.count
    }

    /// Ready at 0 showing the start; at 1 the session sees Black's e7 pawn lifted (its
    /// putting back was missed): out of sync at 3, when the grace ends.
    private func stuckSession() -> GameSession {
        var session = occupancySession()
        _ = session.handle(.ready, at: 0)
        _ = session.handle(.occupancy(.startingPosition), at: 0)
        _ = session.handle(.pieceLifted(.e7), at: 1)
        let expired = session.tick(at: 3)
        #expect(expired.contains(.tracker(.syncChanged(.outOfSync(mismatched: [.e7])))))
        #expect(requests(expired) == 0)
        return session
    }

    @Test func policyWaitsThreeSecondsThenBacksOff() {
        let policy = ResyncPolicy()
        #expect((1...5).map { policy.delay(beforeAttempt: $0) } == [3, 6, 12, 24, nil])
        #expect(ResyncPolicy.disabled.delay(beforeAttempt: 1) == nil)
        #expect(ResyncPolicy(firstDelay: -1, backoff: 0.5, maxAttempts: 2).delay(beforeAttempt: 2) == 0)
        #expect(ResyncPolicy.standard(for: .occupancy) == policy)
        #expect(ResyncPolicy.standard(for: .identity) == .disabled)
        #expect(ResyncPolicy.standard(for: .reportedMoves) == .disabled)
        #expect(GameSession(inputPath: .identity).resync == .disabled)
    }

    @Test func stuckBoardIsAskedWithBackOffAndAtMostFourTimes() {
        var session = stuckSession()
        #expect(session.nextDeadline == 6)
        #expect(requests(session.tick(at: 5.9)) == 0)
        var times: [Double] = []
        var time = 5.9
        while let deadline = session.nextDeadline, deadline < 1000 {
            time = deadline
            if requests(session.tick(at: time)) == 1 { times.append(time) }
        }
        #expect(times == [6, 12, 24, 48])
        #expect(session.nextDeadline == nil)
        #expect(session.syncState.isOutOfSync)
        #expect(requests(session.tick(at: 500)) == 0)
    }

    @Test func backInSyncStartsTheCountAfresh() {
        var session = stuckSession()
        #expect(requests(session.tick(at: 6)) == 1)
        // The board answers with its full occupancy: the pawn is there, all is well.
        let answer = session.handle(.occupancy(.startingPosition), at: 6.2)
        #expect(answer.contains(.tracker(.syncChanged(.inSync))))
        #expect(session.nextDeadline == nil)
        // Another missed update later: the first request comes 3 s after the grace again.
        _ = session.handle(.pieceLifted(.d7), at: 20)
        #expect(session.tick(at: 22).contains(.tracker(.syncChanged(.outOfSync(mismatched: [.d7])))))
        #expect(session.nextDeadline == 25)
        #expect(requests(session.tick(at: 25)) == 1)
    }

    @Test func onlyABoardThatIsReadyIsAsked() {
        // Never ready: out of sync, but nothing is asked.
        var unready = occupancySession()
        _ = unready.handle(.occupancy(.startingPosition), at: 0)
        _ = unready.handle(.pieceLifted(.e7), at: 1)
        _ = unready.tick(at: 3)
        #expect(unready.syncState.isOutOfSync)
        #expect(unready.nextDeadline == nil)
        #expect(requests(unready.tick(at: 100)) == 0)

        // The link drops before the first request: none is due; ready again, the count
        // starts from the new link.
        var session = stuckSession()
        _ = session.handle(.disconnected(error: "gone"), at: 4)
        #expect(!session.isBoardReady)
        #expect(requests(session.tick(at: 6)) == 0)
        _ = session.handle(.connected, at: 10)
        #expect(requests(session.tick(at: 13)) == 0)
        _ = session.handle(.ready, at: 14)
        #expect(session.isBoardReady)
        #expect(session.syncState.isOutOfSync)
        #expect(session.nextDeadline == 17)
        #expect(requests(session.tick(at: 17)) == 1)
    }

    @Test func aFinishedGameOrADisabledPolicyAsksNothing() throws {
        var session = stuckSession()
        _ = session.endGame(GameEnd(result: .draw, reason: .agreement), at: 4)
        #expect(requests(session.tick(at: 6)) == 0)
        #expect(session.nextDeadline == nil)

        var quiet = occupancySession()
        quiet.resync = .disabled
        _ = quiet.handle(.ready, at: 0)
        _ = quiet.handle(.occupancy(.startingPosition), at: 0)
        _ = quiet.handle(.pieceLifted(.e7), at: 1)
        _ = quiet.tick(at: 3)
        #expect(quiet.syncState.isOutOfSync)
        #expect(requests(quiet.tick(at: 6)) == 0)
    }
}
