import Testing

@testable import MQTT

@Suite struct MQTTOutgoingQueueTests {
    private let now = ContinuousClock.now

    private func message(_ topic: String, _ payload: String, retain: Bool = false) -> MQTTMessage {
        MQTTMessage(topic: topic, string: payload, retain: retain)
    }

    private func drain(_ queue: inout MQTTOutgoingQueue) -> [String] {
        var payloads: [String] = []
        while let entry = queue.popFirst() { payloads.append(entry.message.payloadString ?? "") }
        return payloads
    }

    @Test func keepsPublishOrder() {
        var queue = MQTTOutgoingQueue(limit: 100)
        for index in 0..<50 { #expect(queue.enqueue(message("t", "\(index)"), at: now).isEmpty) }
        #expect(queue.count == 50)
        #expect(drain(&queue) == (0..<50).map(String.init))
        #expect(queue.isEmpty)
    }

    @Test func unacknowledgedMessagesGoBackToTheFrontInOrder() throws {
        var queue = MQTTOutgoingQueue(limit: 100)
        for index in 0..<6 { _ = queue.enqueue(message("t", "\(index)"), at: now) }
        for mid in 1...4 {
            let entry = queue.popFirst()
            queue.markInFlight(try #require(entry), mid: Int32(mid))
        }
        #expect(queue.inFlightCount == 4)
        #expect(queue.acknowledge(mid: 2)?.message.payloadString == "1")
        #expect(queue.acknowledge(mid: 2) == nil)
        queue.requeueInFlight()
        #expect(queue.inFlightCount == 0)
        _ = queue.enqueue(message("t", "6"), at: now)
        #expect(drain(&queue) == ["0", "2", "3", "4", "5", "6"])
    }

    @Test func pushFrontRestoresAnEntryAfterItWasTaken() throws {
        var queue = MQTTOutgoingQueue(limit: 10)
        for index in 0..<3 { _ = queue.enqueue(message("t", "\(index)"), at: now) }
        let first = queue.popFirst()
        queue.pushFront(try #require(first))
        #expect(drain(&queue) == ["0", "1", "2"])
    }

    @Test func fullQueueDropsTheOldestNonRetainedMessage() {
        var queue = MQTTOutgoingQueue(limit: 3)
        _ = queue.enqueue(message("state", "s0", retain: true), at: now)
        _ = queue.enqueue(message("move", "m1"), at: now)
        _ = queue.enqueue(message("move", "m2"), at: now)
        let dropped = queue.enqueue(message("move", "m3"), at: now)
        #expect(dropped.map(\.message.payloadString) == ["m1"])
        #expect(drain(&queue) == ["s0", "m2", "m3"])
    }

    @Test func supersededRetainedMessagesAreDroppedFirst() {
        var queue = MQTTOutgoingQueue(limit: 4)
        _ = queue.enqueue(message("move", "m1"), at: now)
        _ = queue.enqueue(message("state", "s1", retain: true), at: now)
        _ = queue.enqueue(message("move", "m2"), at: now)
        _ = queue.enqueue(message("state", "s2", retain: true), at: now)
        #expect(queue.enqueue(message("move", "m3"), at: now).map(\.message.payloadString) == ["s1"])
        // s2 is no longer superseded: the oldest non-retained goes next.
        #expect(queue.enqueue(message("move", "m4"), at: now).map(\.message.payloadString) == ["m1"])
        #expect(drain(&queue) == ["m2", "s2", "m3", "m4"])
    }

    @Test func onlyRetainedDistinctTopicsDropTheOldest() {
        var queue = MQTTOutgoingQueue(limit: 2)
        _ = queue.enqueue(message("a", "a", retain: true), at: now)
        _ = queue.enqueue(message("b", "b", retain: true), at: now)
        #expect(queue.enqueue(message("c", "c", retain: true), at: now).map(\.message.payloadString) == ["a"])
        #expect(drain(&queue) == ["b", "c"])
    }

    @Test func inFlightMessagesAreNeverDropped() throws {
        var queue = MQTTOutgoingQueue(limit: 2)
        _ = queue.enqueue(message("t", "0"), at: now)
        _ = queue.enqueue(message("t", "1"), at: now)
        let first = queue.popFirst()
        let second = queue.popFirst()
        queue.markInFlight(try #require(first), mid: 1)
        queue.markInFlight(try #require(second), mid: 2)
        #expect(queue.enqueue(message("t", "2"), at: now).isEmpty)
        #expect(queue.count == 3)
        #expect(queue.enqueue(message("t", "3"), at: now).map(\.message.payloadString) == ["2"])
        queue.requeueInFlight()
        #expect(drain(&queue) == ["0", "1", "3"])
    }

    @Test func largeQueuesStayOrderedThroughCompaction() {
        var queue = MQTTOutgoingQueue(limit: 10_000)
        var expected: [String] = []
        var next = 0
        for round in 0..<20 {
            for _ in 0..<700 {
                _ = queue.enqueue(message("t", "\(next)"), at: now)
                next += 1
            }
            for _ in 0..<(round % 2 == 0 ? 500 : 800) {
                if let entry = queue.popFirst() { expected.append(entry.message.payloadString ?? "") }
            }
        }
        expected += drain(&queue)
        #expect(expected == (0..<next).map(String.init))
    }

    @Test func sustainedOverflowKeepsTheNewestMessages() {
        var queue = MQTTOutgoingQueue(limit: 1_000)
        var dropped = 0
        for index in 0..<5_000 { dropped += queue.enqueue(message("t", "\(index)"), at: now).count }
        #expect(dropped == 4_000)
        #expect(drain(&queue) == (4_000..<5_000).map(String.init))
    }
}
