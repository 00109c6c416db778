import Contract
import MainLoop

/// The bridge's own time over the moves it publishes: from the loop's wake-up for the frame
/// that completed a move to the move's PUBLISH handed over for sending (#33; libmosquitto
/// writes it to the broker's socket in the same call, and that write is not counted). The
/// last ``capacity`` moves are kept (a fixed ring, whatever the hall's size or uptime); the
/// health report gives their median, 99th percentile and maximum.
///
/// Only moves played on a board whose events the transport delivers from the loop (every
/// Bluetooth board) are timed, and only those published in reply to a frame: a move won
/// back after a gap or resolved by the arbiter is not.
struct MoveHandlingLatency {
    /// How many of the latest moves the figures cover.
    static let capacity = 1_024

    private var samples: [Duration] = []
    private var next = 0
    /// Moves timed since the start.
    private(set) var total = 0

    /// Records one move's handling time.
    mutating func record(_ duration: Duration) {
        total += 1
        if samples.count < Self.capacity {
            samples.append(duration)
        } else {
            samples[next] = duration
        }
        next = (next + 1) % Self.capacity
    }

    /// The figures over the kept moves, `nil` before the first.
    var summary: HealthPayload.MoveHandling? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func quantile(_ q: Double) -> Double {
            let index = min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)
            return sorted[max(0, index)].inSeconds
        }
        return HealthPayload.MoveHandling(
            median: quantile(0.5), p99: quantile(0.99), maximum: sorted[sorted.count - 1].inSeconds,
            moves: sorted.count, total: total)
    }
}
