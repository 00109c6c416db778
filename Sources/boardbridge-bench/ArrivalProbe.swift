import Dispatch
import MQTT

/// The subscriber side of a latency or throughput measurement: timestamps every message
/// in the client's callback (before anything else touches it) and wakes the waiting
/// benchmark. Messages are told apart by a key (by default the sequence number in the
/// first 8 payload bytes; section 3 can key the bridge's messages by topic or ply).
///
/// Waits are bounded by a watchdog on the main queue (every 20 ms), so a lost message
/// ends a wait with `nil`/`false` instead of hanging the run.
@MainActor
final class ArrivalProbe {
    /// Messages received since creation.
    private(set) var received = 0
    /// When the last message arrived.
    private(set) var lastArrival: ContinuousClock.Instant?
    private var expectedSequence: UInt64?
    private var nextProbeSequence: UInt64 = 1 << 40
    private var arrival: CheckedContinuation<ContinuousClock.Instant?, Never>?
    private var countTarget: Int?
    private var countWaiter: CheckedContinuation<Bool, Never>?
    private var stall: Duration = .seconds(5)
    private var deadline: ContinuousClock.Instant?
    private var watchdog: (any DispatchSourceTimer)?

    /// Listens to `client`'s messages (it takes over `onMessage`); `key` numbers a message
    /// for ``awaitArrival(of:timeout:publish:)``.
    init(
        subscriber client: MQTTClient,
        key: @escaping @MainActor (MQTTMessage) -> UInt64? = { ArrivalProbe.sequence(in: $0.payload) }
    ) {
        client.onMessage = { [weak self] message in
            let now = ContinuousClock.now
            self?.arrived(sequence: key(message), at: now)
        }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.checkDeadline() } }
        timer.schedule(deadline: .now(), repeating: .milliseconds(20))
        timer.resume()
        watchdog = timer
    }

    /// Stops the watchdog.
    func close() {
        watchdog?.cancel()
        watchdog = nil
    }

    /// A payload of `size` bytes (at least 8) starting with `sequence`, little-endian.
    static func payload(sequence: UInt64, size: Int) -> [UInt8] {
        var bytes = withUnsafeBytes(of: sequence.littleEndian) { Array($0) }
        bytes += [UInt8](repeating: 0x2E, count: max(0, size - bytes.count))
        return bytes
    }

    /// The sequence number at the start of `payload`, or `nil`.
    static func sequence(in payload: [UInt8]) -> UInt64? {
        guard payload.count >= 8 else { return nil }
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(payload[index]) }
        return value
    }

    /// A sequence number never used before (for synchronisation probes).
    func freshSequence() -> UInt64 {
        nextProbeSequence += 1
        return nextProbeSequence
    }

    /// Runs `publish` (which makes the message keyed `sequence` happen) and waits for that
    /// message to arrive; returns its arrival time, or `nil` after `timeout`.
    func awaitArrival(
        of sequence: UInt64, timeout: Duration, publish: () throws -> Void
    ) async rethrows -> ContinuousClock.Instant? {
        expectedSequence = sequence
        deadline = .now + timeout
        try publish()
        return await withCheckedContinuation { continuation in
            arrival = continuation
        }
    }

    /// Waits until at least `count` messages have arrived (`true`), or until no message
    /// has arrived for `stall` (`false`).
    func awaitReceived(atLeast count: Int, stall: Duration) async -> Bool {
        guard received < count else { return true }
        countTarget = count
        self.stall = stall
        deadline = .now + stall
        return await withCheckedContinuation { continuation in
            countWaiter = continuation
        }
    }

    private func arrived(sequence: UInt64?, at time: ContinuousClock.Instant) {
        received += 1
        lastArrival = time
        if let expected = expectedSequence, sequence == expected, let waiter = arrival {
            expectedSequence = nil
            arrival = nil
            deadline = nil
            waiter.resume(returning: time)
        }
        if let target = countTarget, let waiter = countWaiter {
            if received >= target {
                countTarget = nil
                countWaiter = nil
                deadline = nil
                waiter.resume(returning: true)
            } else {
                deadline = time + stall
            }
        }
    }

    private func checkDeadline() {
        guard let deadline, ContinuousClock.now >= deadline else { return }
        self.deadline = nil
        if let waiter = arrival {
            arrival = nil
            expectedSequence = nil
            waiter.resume(returning: nil)
        }
        if let waiter = countWaiter {
            countWaiter = nil
            countTarget = nil
            waiter.resume(returning: false)
        }
    }
}
