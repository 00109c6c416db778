import Kernel
import Testing

/// The health accumulator: counters, the frame rate, and the stall decision (probe at half
/// of `stall_after`, stalled at `stall_after`, once per silence, never while the link is down).
@Suite struct BoardHealthTests {
    @Test func silentLinkIsProbedThenStalledOnce() {
        var health = BoardHealth(stallAfter: 10)
        health.linkUp(at: 100)
        #expect(health.check(at: 104) == .none)
        #expect(health.check(at: 105) == .probe)
        #expect(health.check(at: 106) == .none)
        #expect(health.check(at: 110) == .stalled(silentFor: 10))
        #expect(health.isStalled)
        #expect(health.check(at: 200) == .none)
        #expect(health.stalls == 1)
    }

    @Test func aFrameAnswersTheProbe() {
        var health = BoardHealth(stallAfter: 10)
        health.linkUp(at: 0)
        #expect(health.check(at: 5) == .probe)
        health.frameReceived(at: 6)
        #expect(health.check(at: 10) == .none)
        #expect(health.check(at: 11) == .probe)
        #expect(health.check(at: 16) == .stalled(silentFor: 10))
        #expect(health.secondsSinceLastFrame(at: 16) == 10)
    }

    /// A board that reports only changes answers the probe with a report that changed
    /// nothing: no event, but bytes, and those end the silence without counting a frame.
    @Test func bytesThatMadeNoEventAnswerTheProbeToo() {
        var health = BoardHealth(stallAfter: 10)
        health.linkUp(at: 0)
        #expect(health.check(at: 5) == .probe)
        health.bytesArrived(at: 6)
        #expect(health.check(at: 10) == .none)
        #expect(health.check(at: 11) == .probe)
        #expect(health.frames == 0)
        #expect(health.secondsSinceLastFrame(at: 12) == 6)
        #expect(health.check(at: 16) == .stalled(silentFor: 10))
        health.bytesArrived(at: 17)
        #expect(!health.isStalled)
    }

    @Test func downLinkOrZeroStallAfterNeverStalls() {
        var down = BoardHealth(stallAfter: 10)
        #expect(down.check(at: 1000) == .none)
        down.linkUp(at: 0)
        down.linkDown()
        #expect(down.check(at: 1000) == .none)
        var off = BoardHealth(stallAfter: 0)
        off.linkUp(at: 0)
        #expect(off.check(at: 1_000_000) == .none)
    }

    @Test func aNewLinkStartsTheSilenceAfreshAndCountsAReconnect() {
        var health = BoardHealth(stallAfter: 10)
        health.linkUp(at: 0)
        #expect(health.reconnects == 0)
        #expect(health.check(at: 10) == .stalled(silentFor: 10))
        health.linkDown()
        health.linkUp(at: 30)
        #expect(health.reconnects == 1)
        #expect(!health.isStalled)
        #expect(health.check(at: 39) == .probe)
        #expect(health.check(at: 40) == .stalled(silentFor: 10))
        #expect(health.stalls == 2)
    }

    @Test func countsViolationsAndDroppedWritesPerLink() {
        var health = BoardHealth(stallAfter: 0)
        health.linkUp(at: 0)
        health.frameReceived(at: 1, malformed: true)
        health.frameReceived(at: 2)
        health.writesDropped(total: 2)
        health.writesDropped(total: 2)
        health.writesDropped(total: 3)
        health.missingAck()
        health.adapterReset()
        // The same outage again (the reconnect waiting for power flips the state): once.
        health.adapterReset()
        #expect(health.malformedFrames == 1)
        #expect(health.frames == 2)
        #expect(health.missingAcks == 4)
        #expect(health.adapterResets == 1)
        health.linkDown()
        health.linkUp(at: 5)
        // The writer of the new link counts from zero again.
        health.writesDropped(total: 1)
        #expect(health.missingAcks == 5)
        health.adapterReset()
        #expect(health.adapterResets == 2)
    }

    @Test func frameRateCoversThePeriodSinceTheLastReport() {
        var health = BoardHealth(stallAfter: 0)
        #expect(health.takeFrameRate(at: 0) == 0)
        for index in 0..<30 { health.frameReceived(at: Double(index) / 10) }
        #expect(health.takeFrameRate(at: 10) == 3)
        #expect(health.takeFrameRate(at: 20) == 0)
        #expect(health.takeFrameRate(at: 20) == 0)
    }

    /// Property: frames arriving more often than half of `stall_after` are never probed
    /// nor stalled; a silence of at least `stall_after` always ends in exactly one stall.
    @Test func stallDecisionOverRandomTraffic() {
        var seed: UInt64 = 0x5EED_2026
        func next(_ bound: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * bound
        }
        for _ in 0..<200 {
            let stallAfter = 2 + next(60)
            var health = BoardHealth(stallAfter: stallAfter)
            var now = next(1000)
            health.linkUp(at: now)
            for _ in 0..<50 {
                now += next(stallAfter / 2 * 0.99)
                #expect(health.check(at: now) == .none)
                health.frameReceived(at: now)
            }
            var stalled = 0
            var probes = 0
            let end = now + stallAfter + next(100)
            var time = now
            while time <= end {
                switch health.check(at: time) {
                case .stalled: stalled += 1
                case .probe: probes += 1
                case .none: break
                }
                time += 0.5
            }
            #expect(stalled == 1)
            #expect(probes == 1)
        }
    }
}
