import BoardLink
import Foundation
import Logging
import TestSupport
import Testing

/// A sink that records writes and lets the test complete them.
@MainActor
final class RecordingSink {
    var writes: [(time: Double, data: Data)] = []
    var completions: [@MainActor (LinkWriteResult) -> Void] = []
    var autoComplete: LinkWriteResult? = .success
    let scheduler: ManualScheduler

    init(scheduler: ManualScheduler) {
        self.scheduler = scheduler
    }

    func write(_ data: Data, _ completion: @escaping @MainActor (LinkWriteResult) -> Void) {
        writes.append((scheduler.now, data))
        if let autoComplete {
            completion(autoComplete)
        } else {
            completions.append(completion)
        }
    }

    func completeNext(_ result: LinkWriteResult = .success) {
        guard !completions.isEmpty else { return }
        completions.removeFirst()(result)
    }
}

@MainActor
@Suite struct BlueZPacedWriterTests {
    let scheduler = ManualScheduler()

    func makeWriter(
        interval: Double, chunk: Int? = nil, capacity: Int = 256, sink: RecordingSink
    ) -> PacedWriter {
        PacedWriter(
            minimumInterval: interval, maximumChunkLength: chunk, capacity: capacity, retryDelay: 0.05,
            maximumRetries: 3, scheduler: scheduler, sink: { data, done in sink.write(data, done) })
    }

    @Test func tenCommandsAtOnceAreSpacedByTheFloor() {
        let sink = RecordingSink(scheduler: scheduler)
        let writer = makeWriter(interval: 0.2, sink: sink)
        for index in 0..<10 { writer.enqueue(Data([UInt8(index)])) }
        #expect(sink.writes.count == 1)
        scheduler.advance(by: 5)
        #expect(sink.writes.map(\.data) == (0..<10).map { Data([UInt8($0)]) })
        let times = sink.writes.map(\.time)
        for (previous, next) in zip(times, times.dropFirst()) {
            #expect(next - previous >= 0.2 - 1e-9)
        }
        #expect(writer.isIdle)
    }

    @Test func theFloorCountsFromTheCompletionOfThePreviousWrite() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0.2, sink: sink)
        writer.enqueue(Data([1]))
        writer.enqueue(Data([2]))
        scheduler.advance(by: 0.5)
        #expect(sink.writes.count == 1, "nothing while the first write is in flight")
        sink.completeNext()
        scheduler.advance(by: 0.19)
        #expect(sink.writes.count == 1)
        scheduler.advance(by: 0.02)
        #expect(sink.writes.count == 2)
        #expect(abs(sink.writes[1].time - 0.7) < 1e-9)
    }

    @Test func handshakeDelaysWaitAfterThePreviousMessage() {
        let sink = RecordingSink(scheduler: scheduler)
        let writer = makeWriter(interval: 0.1, sink: sink)
        writer.enqueue(Data([1]), delayBefore: 0.25)
        writer.enqueue(Data([2]), delayBefore: 0.15)
        writer.enqueue(Data([3]), delayBefore: 0)
        scheduler.advance(by: 1)
        let times = sink.writes.map(\.time)
        #expect(times.count == 3)
        #expect(abs(times[0] - 0.25) < 1e-9)
        #expect(abs(times[1] - 0.40) < 1e-9)
        #expect(abs(times[2] - 0.50) < 1e-9, "the floor still applies to a step without delay")
    }

    @Test func longPayloadsAreWrittenInChunksEachAfterTheFloor() {
        let sink = RecordingSink(scheduler: scheduler)
        let writer = makeWriter(interval: 0.1, chunk: 20, sink: sink)
        let payload = Data((0..<167).map { UInt8(truncatingIfNeeded: $0) })
        writer.enqueue(payload)
        writer.enqueue(Data([0xAA]))
        scheduler.advance(by: 0)
        #expect(sink.writes.count == 1, "one chunk at once")
        scheduler.advance(by: 0.8)
        #expect(sink.writes.count == 9, "the 167-byte message in 20-byte chunks, 0.1 s apart")
        #expect(sink.writes.prefix(9).map(\.data.count) == [20, 20, 20, 20, 20, 20, 20, 20, 7])
        #expect(Data(sink.writes.prefix(9).flatMap(\.data)) == payload)
        for (index, write) in sink.writes.prefix(9).enumerated() {
            #expect(abs(write.time - 0.1 * Double(index)) < 1e-9)
        }
        scheduler.advance(by: 0.1)
        #expect(sink.writes.count == 10, "the next message only after the whole first one")
        #expect(sink.writes[9].data == Data([0xAA]))
        #expect(abs(sink.writes[9].time - 0.9) < 1e-9)
    }

    @Test func busyWritesAreRetriedThenDropped() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = .retry("InProgress")
        let writer = makeWriter(interval: 0, sink: sink)
        writer.enqueue(Data([1]))
        writer.enqueue(Data([2]))
        scheduler.advance(by: 1)
        // 1 try + 3 retries of the first, then the second likewise.
        #expect(sink.writes.count == 8)
        #expect(sink.writes.prefix(4).allSatisfy { $0.data == Data([1]) })
        #expect(writer.isIdle)
    }

    @Test func aFailedWriteDropsOnlyItsPayload() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = .failed("NotSupported")
        let writer = makeWriter(interval: 0, sink: sink)
        writer.enqueue(Data([1]))
        sink.autoComplete = .success
        writer.enqueue(Data([2]))
        scheduler.advance(by: 1)
        #expect(sink.writes.map(\.data) == [Data([1]), Data([2])])
    }

    @Test func aLostLinkEmptiesTheQueueAndTellsTheOwnerOnce() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0, sink: sink)
        var reasons: [String] = []
        writer.onLinkLost = { reasons.append($0) }
        for index in 0..<5 { writer.enqueue(Data([UInt8(index)])) }
        sink.completeNext(.linkLost("Not connected"))
        scheduler.advance(by: 1)
        #expect(reasons == ["Not connected"])
        #expect(sink.writes.count == 1)
        #expect(writer.pendingCount == 0)
    }

    @Test func stoppingIgnoresALateCompletionAndNewPayloads() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0, sink: sink)
        writer.enqueue(Data([1]))
        writer.enqueue(Data([2]))
        writer.stop()
        sink.completeNext()
        writer.enqueue(Data([3]))
        scheduler.advance(by: 1)
        #expect(sink.writes.count == 1)
        #expect(writer.isIdle)
    }

    @Test func aFullQueueDropsNewPayloads() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0, capacity: 3, sink: sink)
        for index in 0..<5 { writer.enqueue(Data([UInt8(index)])) }
        #expect(writer.pendingCount == 3)
        #expect(writer.droppedCount == 2)
    }

    @Test func emptyPayloadsAreIgnored() {
        let sink = RecordingSink(scheduler: scheduler)
        let writer = makeWriter(interval: 0.2, sink: sink)
        writer.enqueue(Data())
        scheduler.advance(by: 1)
        #expect(sink.writes.isEmpty)
        #expect(writer.isIdle)
        // Nothing was stuck behind it.
        writer.enqueue(Data([1]))
        scheduler.advance(by: 0)
        #expect(sink.writes.map(\.data) == [Data([1])])
    }

    /// Issue #15 (8): a ChessUp reporting faster than one write's round trip gets its acks
    /// in time: the acks waiting when a write starts go out together, and a handshake step
    /// waiting for its delay does not hold them up.
    @Test func responsesWaitingGoOutTogetherAheadOfTheQueue() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0, chunk: 20, sink: sink)
        writer.enqueue(Data([0xB9]))
        writer.enqueue(Data([0x67]), delayBefore: 0.25)
        for _ in 0..<30 { writer.enqueueResponse(Data([0x21])) }
        #expect(sink.writes.map(\.data) == [Data([0xB9])])
        sink.completeNext()
        // Twenty acks fill one write; the other ten the next; the delayed `67` after them.
        #expect(sink.writes.last?.data == Data(repeating: 0x21, count: 20))
        sink.completeNext()
        #expect(sink.writes.last?.data == Data(repeating: 0x21, count: 10))
        sink.completeNext()
        #expect(sink.writes.count == 3)
        scheduler.advance(by: 0.3)
        #expect(sink.writes.last?.data == Data([0x67]))
        // An ack while the `67` waits out its delay goes out at once.
        writer.enqueue(Data([0x50]), delayBefore: 1)
        sink.completeNext()
        writer.enqueueResponse(Data([0x23]))
        #expect(sink.writes.last?.data == Data([0x23]))
        sink.completeNext()
        scheduler.advance(by: 1.1)
        #expect(sink.writes.last?.data == Data([0x50]))
        sink.completeNext()
        #expect(writer.isIdle)
    }

    @Test func aResponseNeverComesBetweenTheChunksOfAMessage() {
        let sink = RecordingSink(scheduler: scheduler)
        sink.autoComplete = nil
        let writer = makeWriter(interval: 0, chunk: 2, sink: sink)
        writer.enqueue(Data([1, 2, 3, 4]))
        writer.enqueueResponse(Data([0x21]))
        #expect(sink.writes.map(\.data) == [Data([1, 2])])
        sink.completeNext()
        #expect(sink.writes.last?.data == Data([3, 4]))
        sink.completeNext()
        #expect(sink.writes.last?.data == Data([0x21]))
        sink.completeNext()
        #expect(writer.isIdle)
    }

    /// A handshake step's delay counts from the previous message, not from the acks written
    /// since: a board reporting faster than the delay (acks every 20 ms) starved the step and
    /// every message behind it (a ChessUp's `50` and the state requests after it) until it
    /// stopped.
    @Test func acksDoNotPushAHandshakeStepsDelayBack() {
        let sink = RecordingSink(scheduler: scheduler)
        let writer = makeWriter(interval: 0, sink: sink)
        writer.enqueue(Data([0x67]))
        writer.enqueue(Data([0x50]), delayBefore: 0.05)
        writer.enqueue(Data([0x67]))
        for _ in 0..<50 {
            writer.enqueueResponse(Data([0x21]))
            scheduler.advance(by: 0.02)
        }
        let times = sink.writes.filter { $0.data == Data([0x50]) }.map(\.time)
        #expect(times.count == 1)
        #expect((times.first ?? .infinity) <= 0.06 + 1e-9, "written at \(times)")
        #expect(sink.writes.filter { $0.data == Data([0x67]) }.count == 2)
    }
}
