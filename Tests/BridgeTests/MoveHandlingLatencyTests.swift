import Contract
import TestSupport
import Testing

@testable import Bridge

/// The health report's timing of moves (#33): the latest moves only, in a fixed ring.
struct MoveHandlingLatencyTests {
    @Test func nothingBeforeTheFirstMove() {
        #expect(MoveHandlingLatency().summary == nil)
    }

    @Test func medianP99AndMaximumOfTheKeptMoves() throws {
        var latency = MoveHandlingLatency()
        // 1…100 µs, shuffled: the median is the 50th, the 99th percentile the 99th.
        var generator = SeededGenerator(seed: 0x33)
        for micro in (1...100).shuffled(using: &generator) { latency.record(.microseconds(micro)) }
        let summary = try #require(latency.summary)
        #expect(abs(summary.median - 50e-6) < 1e-9)
        #expect(abs(summary.p99 - 99e-6) < 1e-9)
        #expect(abs(summary.maximum - 100e-6) < 1e-9)
        #expect(summary.moves == 100)
        #expect(summary.total == 100)
    }

    @Test func onlyTheLatestMovesAreKept() throws {
        var latency = MoveHandlingLatency()
        // A slow start (a cold cache), then a long fast run that pushes it out of the ring.
        for _ in 0..<10 { latency.record(.milliseconds(5)) }
        for _ in 0..<MoveHandlingLatency.capacity { latency.record(.microseconds(20)) }
        let summary = try #require(latency.summary)
        #expect(summary.moves == MoveHandlingLatency.capacity)
        #expect(summary.total == MoveHandlingLatency.capacity + 10)
        #expect(abs(summary.maximum - 20e-6) < 1e-9)
    }
}
