public import FoundationEssentials

/// A pure-value reconnect schedule for unexpected disconnections (a link drop, not a
/// user-initiated one).
///
/// `nextDelay(attempt:)` is `nil` ("give up") outside `1...maxAttempts`; attempts past
/// the end of `delays` repeat its last entry. Edge cases, decided here:
/// - `maxAttempts < 1` means never reconnect: every attempt gives up.
/// - an empty `delays` means retry at once: every attempt within range waits 0 s.
/// - negative delays are treated as 0.
public struct BoardReconnectPolicy: Sendable, Equatable {
    /// How many reconnect attempts are made before giving up.
    public let maxAttempts: Int
    /// The ramp of waits, in seconds; the last entry repeats.
    public let delays: [TimeInterval]

    /// The default waits 2 s, 4 s, then 8 s three times.
    public init(maxAttempts: Int = 5, delays: [TimeInterval] = [2, 4, 8]) {
        self.maxAttempts = maxAttempts
        self.delays = delays
    }

    /// The wait before reconnect attempt `attempt` (1-indexed), or `nil` to give up.
    public func nextDelay(attempt: Int) -> TimeInterval? {
        guard maxAttempts >= 1, (1...maxAttempts).contains(attempt) else { return nil }
        guard let last = delays.last else { return 0 }
        let delay = attempt <= delays.count ? delays[attempt - 1] : last
        return max(0, delay)
    }
}
