/// How long the client waits before the next connection attempt: exponential backoff
/// between a minimum and a maximum, with random jitter so that many bridges restarted
/// together do not hammer the broker in step.
///
/// After the `n`-th consecutive failure the base delay is `minimumDelay × 2^(n-1)`, capped
/// at `maximumDelay`; the actual delay is the base multiplied by a random factor in
/// `1 - jitter ... 1 + jitter`, then capped at `maximumDelay` again. It is never below
/// ``floor`` (100 ms), whatever the configuration says, so a misconfigured client cannot
/// busy-loop.
public struct MQTTReconnectPolicy: Hashable, Sendable {
    /// The delay after the first failure (default 1 s).
    public var minimumDelay: Duration
    /// The longest delay (default 60 s).
    public var maximumDelay: Duration
    /// The relative jitter, 0 (none) to 1 (default 0.25, that is ±25 %).
    public var jitter: Double

    /// The smallest delay the client ever waits between attempts.
    public static let floor: Duration = .milliseconds(100)

    /// A policy; values are clamped when used (delays to at least ``floor``, jitter to 0...1).
    public init(
        minimumDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60), jitter: Double = 0.25
    ) {
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The delay after `failures` consecutive failed attempts (1 for the first), for a
    /// `random` number in `0..<1` (the caller supplies randomness, so this is testable).
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        let minimum = max(minimumDelay, Self.floor)
        let maximum = max(maximumDelay, minimum)
        let exponent = min(max(failures, 1) - 1, 30)
        var base = minimum
        for _ in 0..<exponent where base < maximum { base = base * 2 }
        base = min(base, maximum)
        let spread = min(max(jitter.isNaN ? 0 : jitter, 0), 1)
        let unit = min(max(random.isNaN ? 0.5 : random, 0), 1)
        let factor = 1 + spread * (2 * unit - 1)
        let jittered = base * factor
        return min(max(jittered, Self.floor), maximum)
    }
}
