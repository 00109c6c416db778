/// When to push a round's PGN to a relay's push endpoint: every change is pushed, changes
/// that come while a push is under way or within ``minimumInterval`` of the last one are
/// coalesced into the next, and failures back off exponentially (1, 2, 4 … 60 s, or what
/// the relay's `Retry-After` asks). A `429` waits at least ``rateLimitWait`` (lichess asks
/// clients to wait a full minute before resuming). Pure: time is passed in.
public struct BroadcastPushSchedule: Sendable, Equatable {
    /// How a push ended.
    public enum Outcome: Equatable, Sendable {
        /// The relay took the push (`2xx`); `gameErrors` of its games were refused.
        case accepted(gameErrors: Int)
        /// The relay answered with an error status; `retryAfter` seconds when it said.
        case refused(status: Int, retryAfter: Double?)
        /// No answer: the relay could not be reached or timed out.
        case unreachable
    }

    /// The least wait after a `429 Too Many Requests`, in seconds, whatever `Retry-After`
    /// says (lichess: "please wait a full minute before resuming API usage").
    public static let rateLimitWait: Double = 60

    /// The least time between two pushes, in seconds.
    public var minimumInterval: Double
    /// The longest back-off, in seconds.
    public var maximumBackoff: Double
    /// When the oldest change not yet pushed was made (`nil`: nothing to push).
    public private(set) var pendingSince: Double?
    /// Whether a push is under way.
    public private(set) var inFlight = false
    /// Failed pushes in a row.
    public private(set) var failures = 0
    /// No push starts before this time.
    public private(set) var notBefore: Double = -.infinity

    /// A schedule with nothing to push.
    public init(minimumInterval: Double = 1, maximumBackoff: Double = 60) {
        self.minimumInterval = minimumInterval
        self.maximumBackoff = maximumBackoff
    }

    /// Something changed at `time` that the relay should get.
    public mutating func changed(at time: Double) {
        if pendingSince == nil { pendingSince = time }
    }

    /// Whether a push should start at `now`.
    public func isDue(at now: Double) -> Bool {
        pendingSince != nil && !inFlight && now >= notBefore
    }

    /// When the next push may start (`nil`: none is waiting or one is under way).
    public var nextAttempt: Double? {
        guard let pendingSince, !inFlight else { return nil }
        return max(pendingSince, notBefore)
    }

    /// A push of everything changed so far starts at `now`.
    public mutating func started(at now: Double) {
        pendingSince = nil
        inFlight = true
    }

    /// The push started last ended at `now`. A failed push leaves its changes pending.
    public mutating func finished(_ outcome: Outcome, at now: Double) {
        inFlight = false
        switch outcome {
        case .accepted:
            failures = 0
            notBefore = now + minimumInterval
        case .refused(let status, let retryAfter):
            failures += 1
            pendingSince = min(pendingSince ?? now, now)
            let least = status == 429 ? Self.rateLimitWait : minimumInterval
            let wait = retryAfter.map { min($0, 3600) } ?? (status == 429 ? 0 : backoff)
            notBefore = now + max(wait, least)
        case .unreachable:
            failures += 1
            pendingSince = min(pendingSince ?? now, now)
            notBefore = now + backoff
        }
    }

    /// The exponential back-off after ``failures`` failures in a row.
    private var backoff: Double {
        min(Double(1 << min(max(failures - 1, 0), 30)), maximumBackoff)
    }
}
