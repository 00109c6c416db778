import Broadcast
import Testing

@Suite struct BroadcastPushTests {
    @Test func changesDuringAPushAreCoalescedIntoTheNext() {
        var schedule = BroadcastPushSchedule(minimumInterval: 1)
        #expect(!schedule.isDue(at: 0))
        schedule.changed(at: 0)
        #expect(schedule.isDue(at: 0))
        schedule.started(at: 0)
        schedule.changed(at: 0.2)
        schedule.changed(at: 0.3)
        #expect(!schedule.isDue(at: 0.4))
        schedule.finished(.accepted(gameErrors: 0), at: 0.5)
        #expect(!schedule.isDue(at: 1.4))
        #expect(schedule.nextAttempt == 1.5)
        #expect(schedule.isDue(at: 1.5))
        schedule.started(at: 1.5)
        schedule.finished(.accepted(gameErrors: 1), at: 1.6)
        #expect(schedule.nextAttempt == nil)
    }

    @Test func failuresBackOffAndKeepTheChanges() {
        var schedule = BroadcastPushSchedule(minimumInterval: 1, maximumBackoff: 60)
        var now = 0.0
        schedule.changed(at: now)
        var waits: [Double] = []
        for _ in 0..<8 {
            schedule.started(at: now)
            schedule.finished(.unreachable, at: now)
            let next = schedule.nextAttempt ?? -1
            waits.append(next - now)
            now = next
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60])
        schedule.started(at: now)
        schedule.finished(.refused(status: 429, retryAfter: 90), at: now)
        #expect(schedule.nextAttempt == now + 90)
        schedule.started(at: now + 90)
        schedule.finished(.accepted(gameErrors: 0), at: now + 90)
        #expect(schedule.failures == 0)
        #expect(schedule.nextAttempt == nil)
    }

    /// Issue #30: lichess asks a client that got a 429 to wait a full minute; it was retried
    /// after 1, 2, 4, 8, 16 s, and after whatever shorter `Retry-After` the relay sent.
    @Test(arguments: [nil, 7, 90] as [Double?])
    func aRateLimitWaitsAtLeastAMinute(retryAfter: Double?) {
        var schedule = BroadcastPushSchedule(minimumInterval: 1, maximumBackoff: 60)
        var now = 0.0
        schedule.changed(at: now)
        var waits: [Double] = []
        for _ in 0..<3 {
            schedule.started(at: now)
            schedule.finished(.refused(status: 429, retryAfter: retryAfter), at: now)
            let next = schedule.nextAttempt ?? -1
            waits.append(next - now)
            now = next
        }
        let expected = max(retryAfter ?? 0, BroadcastPushSchedule.rateLimitWait)
        #expect(waits == [expected, expected, expected])
        // Other refusals still back off from a second.
        schedule.started(at: now)
        schedule.finished(.refused(status: 503, retryAfter: nil), at: now)
        #expect(schedule.nextAttempt == now + 8)
    }

    @Test func theReplyNamesEachRefusedGame() {
        let reply = BroadcastPushReply(
            json: #"""
                {"games":[{"tags":{"White":"Doe, J","Black":"Roe, R","GameId":"5-0a1b2c3d"},"moves":4},
                {"tags":{"White":"Loe, L","Black":"Zoe, Z"},"error":"Invalid move: Nxe5"}]}
                """#)
        #expect(reply?.games.count == 2)
        #expect(reply?.games[0].gameID == "5-0a1b2c3d")
        #expect(reply?.errors.map(\.players) == ["Loe, L - Zoe, Z"])
        #expect(reply?.errors.first?.error == "Invalid move: Nxe5")
        #expect(BroadcastPushReply(json: "<html>502</html>") == nil)
    }
}
