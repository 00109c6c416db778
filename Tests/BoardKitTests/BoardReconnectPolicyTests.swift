import BoardKit
import Testing

@Suite struct BoardReconnectPolicyTests {
    private func schedule(_ policy: BoardReconnectPolicy, upTo limit: Int = 10) -> [Double] {
        (1...limit).compactMap { policy.nextDelay(attempt: $0) }
    }

    @Test func defaultIsTwoFourThenEightThreeTimes() {
        let policy = BoardReconnectPolicy()
        #expect(policy.maxAttempts == 5)
        #expect(policy.delays == [2, 4, 8])
        #expect(schedule(policy) == [2, 4, 8, 8, 8])
        #expect(policy.nextDelay(attempt: 6) == nil)
    }

    @Test func shortRampHoldsItsLastEntry() {
        #expect(schedule(BoardReconnectPolicy(delays: [0.5, 1])) == [0.5, 1, 1, 1, 1])
    }

    @Test func maxAttemptsSetsHowMany() {
        let policy = BoardReconnectPolicy(maxAttempts: 2, delays: [0.5])
        #expect(schedule(policy) == [0.5, 0.5])
        #expect(policy.nextDelay(attempt: 3) == nil)
    }

    @Test(arguments: [0, -1, Int.min, 6, 100, Int.max])
    func attemptsOutsideTheRangeGiveUp(_ attempt: Int) {
        #expect(BoardReconnectPolicy().nextDelay(attempt: attempt) == nil)
    }

    @Test(arguments: [0, -3])
    func maxAttemptsBelowOneNeverReconnects(_ maxAttempts: Int) {
        let policy = BoardReconnectPolicy(maxAttempts: maxAttempts)
        #expect(schedule(policy) == [])
    }

    @Test func emptyDelaysRetryAtOnce() {
        #expect(schedule(BoardReconnectPolicy(maxAttempts: 3, delays: [])) == [0, 0, 0])
    }

    @Test func negativeDelaysAreClampedToZero() {
        #expect(schedule(BoardReconnectPolicy(maxAttempts: 2, delays: [-1])) == [0, 0])
    }
}
