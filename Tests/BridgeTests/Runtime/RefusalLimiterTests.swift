import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Issue #16 (3): refused commands are answered and logged at a bounded rate per board,
/// with a count of what was not.
@Suite struct RefusalLimiterTests {
    @Test func aBurstIsAnsweredThenTheRateApplies() {
        var limiter = RefusalLimiter(burst: 5, perSecond: 2)
        let decisions = (0..<100).map { _ in limiter.admit("b02", at: 10) }
        #expect(decisions.prefix(5).allSatisfy { $0 == .answer(suppressedBefore: 0) })
        #expect(decisions.dropFirst(5).allSatisfy { $0 == .suppress })
        // Half a second later one token is back: the next refusal is answered with the count.
        #expect(limiter.admit("b02", at: 10.5) == .answer(suppressedBefore: 95))
        #expect(limiter.admit("b02", at: 10.5) == .suppress)
    }

    @Test func boardsHaveTheirOwnBuckets() {
        var limiter = RefusalLimiter(burst: 1, perSecond: 1)
        #expect(limiter.admit("b02", at: 0) == .answer(suppressedBefore: 0))
        #expect(limiter.admit("b02", at: 0) == .suppress)
        #expect(limiter.admit("b01", at: 0) == .answer(suppressedBefore: 0))
    }

    @Test func suppressedRefusalsAreReportedOnceTheBucketRefills() {
        var limiter = RefusalLimiter(burst: 2, perSecond: 4)
        for _ in 0..<10 { _ = limiter.admit("b02", at: 0) }
        #expect(limiter.takeReports(at: 0).isEmpty)
        #expect(limiter.nextReportDelay(at: 0) == 0.25)
        let reports = limiter.takeReports(at: 0.25)
        #expect(reports.map(\.key) == ["b02"])
        #expect(reports.map(\.suppressed) == [8])
        #expect(limiter.takeReports(at: 10).isEmpty)
        #expect(limiter.nextReportDelay(at: 10) == nil)
    }

    /// A fixed-seed property: whatever the arrival times, at most `burst + rate × elapsed`
    /// answers and reports go out, and every suppressed refusal is counted in exactly one
    /// later answer or report.
    @Test func everySuppressedRefusalIsCountedOnce() {
        let seed: UInt64 = 0x16_0003
        var generator = SeededGenerator(seed: seed)
        var limiter = RefusalLimiter(burst: 20, perSecond: 5)
        var now = 0.0
        var sent = 0
        var suppressed = 0
        var counted = 0
        for _ in 0..<50_000 {
            now += Double(generator.next() % 1_000) / 100_000  // 0–10 ms apart
            switch limiter.admit("b", at: now) {
            case .answer(let before):
                sent += 1
                counted += before
            case .suppress:
                suppressed += 1
            }
            if generator.next() % 100 == 0 {
                for report in limiter.takeReports(at: now) {
                    sent += 1
                    counted += report.suppressed
                }
            }
        }
        now += 1
        for report in limiter.takeReports(at: now) { counted += report.suppressed }
        #expect(Double(sent) <= 20 + 5 * now + 1, "seed \(seed)")
        #expect(suppressed > 40_000, "seed \(seed)")
        #expect(counted == suppressed, "seed \(seed)")
    }
}
