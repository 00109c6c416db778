import Dispatch
import FoundationEssentials

/// Seconds on a monotonic scale since the simulator started: the time personalities are
/// given and write logs are stamped with.
struct MonotonicClock: Sendable {
    private let start = ContinuousClock.now

    /// Seconds since the clock was made.
    func now() -> TimeInterval {
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// Runs `body` on the main actor after `seconds` (at the next turn for 0) unless the returned
/// task is cancelled first.
@MainActor
@discardableResult
func schedule(after seconds: Double, _ body: @escaping @MainActor () -> Void) -> Task<Void, Never> {
    Task { @MainActor in
        if seconds > 0 {
            try? await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded())))
        } else {
            await Task.yield()
        }
        guard !Task.isCancelled else { return }
        body()
    }
}

/// A repeating timer on the main queue (a `DispatchSourceTimer`), for personality ticks and
/// advertising. Cancelled by ``cancel()`` or when released.
@MainActor
final class RepeatingTimer {
    private var source: (any DispatchSourceTimer)?

    /// Starts firing `handler` every `interval` seconds, the first time after `initialDelay`.
    init(interval: Double, initialDelay: Double? = nil, handler: @escaping @MainActor () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: .main)
        let nanoseconds = Int(max(interval, 0.001) * 1e9)
        let first = Int(max(initialDelay ?? interval, 0) * 1e9)
        source.schedule(
            deadline: .now() + .nanoseconds(first), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(2))
        source.setEventHandler {
            MainActor.assumeIsolated { handler() }
        }
        source.resume()
        self.source = source
    }

    /// Stops the timer. Idempotent.
    func cancel() {
        source?.cancel()
        source = nil
    }

    isolated deinit {
        cancel()
    }
}

/// A small deterministic random generator (SplitMix64) for RSSI jitter and move styles.
struct SimulatorRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension FakeBlueZ {
    /// `delay` plus up to `jitter` seconds drawn from the simulator's seeded generator.
    func jittered(_ delay: Double, by jitter: Double) -> Double {
        guard jitter > 0 else { return delay }
        return delay + Double.random(in: 0...jitter, using: &random)
    }
}
