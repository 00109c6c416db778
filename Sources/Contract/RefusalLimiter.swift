/// Per-board token buckets for refused commands, so a flood of bad commands costs a few
/// answers and log lines, not one each.
///
/// Each key (a board id, or one shared key for unknown boards and one for bridge
/// requests, so the number of buckets stays bounded) may have ``burst`` refusals answered
/// and logged at once and ``perSecond`` a second after that. The others are counted; the
/// count is reported once the bucket has a token again — with the next refusal answered
/// (``Decision/answer(suppressedBefore:)``) or, when none comes, by ``takeReports(at:)``.
/// Time is an argument (seconds on any monotonic scale), so tests need no clock.
public struct RefusalLimiter: Sendable {
    /// What to do with one refusal.
    public enum Decision: Equatable, Sendable {
        /// Answer and log it; `suppressedBefore` refusals on the same key went unanswered
        /// since the last report.
        case answer(suppressedBefore: Int)
        /// Neither answer nor log it (it is counted).
        case suppress
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Double
        var suppressed = 0
    }

    /// Refusals answered at once before the rate applies.
    let burst: Int
    /// Refusals answered per second after the burst.
    let perSecond: Double
    private var buckets: [String: Bucket] = [:]

    /// A limiter answering `burst` refusals at once and `perSecond` a second per key.
    public init(burst: Int = 20, perSecond: Double = 5) {
        self.burst = max(burst, 1)
        self.perSecond = max(perSecond, 0.001)
    }

    /// Decides about one refusal on `key` at `now`.
    public mutating func admit(_ key: String, at now: Double) -> Decision {
        var bucket = refilled(key, at: now)
        defer { buckets[key] = bucket }
        guard bucket.tokens >= 1 else {
            bucket.suppressed += 1
            return .suppress
        }
        bucket.tokens -= 1
        let suppressed = bucket.suppressed
        bucket.suppressed = 0
        return .answer(suppressedBefore: suppressed)
    }

    /// The keys with unreported suppressed refusals whose bucket has a token again, with
    /// their counts (oldest key first by name); each report takes a token.
    package mutating func takeReports(at now: Double) -> [(key: String, suppressed: Int)] {
        var reports: [(key: String, suppressed: Int)] = []
        for key in buckets.keys.sorted() {
            var bucket = refilled(key, at: now)
            if bucket.suppressed > 0, bucket.tokens >= 1 {
                reports.append((key, bucket.suppressed))
                bucket.suppressed = 0
                bucket.tokens -= 1
            }
            buckets[key] = bucket
        }
        return reports
    }

    /// Seconds from `now` until ``takeReports(at:)`` has something to report, or `nil`.
    package func nextReportDelay(at now: Double) -> Double? {
        var earliest: Double?
        for bucket in buckets.values where bucket.suppressed > 0 {
            let tokens = min(Double(burst), bucket.tokens + max(0, now - bucket.updatedAt) * perSecond)
            let wait = tokens >= 1 ? 0 : (1 - tokens) / perSecond
            earliest = min(earliest ?? wait, wait)
        }
        return earliest
    }

    private func refilled(_ key: String, at now: Double) -> Bucket {
        guard var bucket = buckets[key] else { return Bucket(tokens: Double(burst), updatedAt: now) }
        let elapsed = max(0, now - bucket.updatedAt)
        bucket.tokens = min(Double(burst), bucket.tokens + elapsed * perSecond)
        bucket.updatedAt = max(bucket.updatedAt, now)
        return bucket
    }
}
