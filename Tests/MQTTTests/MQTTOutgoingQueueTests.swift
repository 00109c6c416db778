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

    // MARK: Priorities and the byte limit (issue #16, 3)

    private func answer(_ index: Int) -> MQTTMessage { message("b02/response", "r\(index)") }

    @Test func answersNeverEvictMovesOrState() {
        var queue = MQTTOutgoingQueue(limit: 20)
        _ = queue.enqueue(message("b01/state", "s0", retain: true), at: now)
        for index in 1...8 { _ = queue.enqueue(message("b01/move", "m\(index)"), at: now) }
        var dropped: [String] = []
        for index in 0..<100_000 {
            dropped += queue.enqueue(answer(index), priority: .low, at: now).map { $0.message.payloadString ?? "" }
        }
        #expect(!dropped.contains { $0.hasPrefix("m") || $0.hasPrefix("s") })
        #expect(dropped.count == 100_000 - queue.lowLimit)
        let pending = drain(&queue)
        #expect(Array(pending.prefix(9)) == ["s0"] + (1...8).map { "m\($0)" })
        #expect(pending.count == 9 + queue.lowLimit)
    }

    @Test func anAnswerFindingTheQueueFullOfMovesIsDroppedItself() {
        var queue = MQTTOutgoingQueue(limit: 3)
        for index in 1...3 { _ = queue.enqueue(message("move", "m\(index)"), at: now) }
        #expect(queue.enqueue(answer(0), priority: .low, at: now).map(\.message.payloadString) == ["r0"])
        #expect(drain(&queue) == ["m1", "m2", "m3"])
    }

    @Test func movesEvictAnswersFirst() {
        var queue = MQTTOutgoingQueue(limit: 10)
        for index in 1...5 { _ = queue.enqueue(message("move", "m\(index)"), at: now) }
        _ = queue.enqueue(answer(0), priority: .low, at: now)
        for index in 6...10 { _ = queue.enqueue(message("move", "m\(index)"), at: now) }
        #expect(queue.count == 10)
        #expect(queue.enqueue(message("move", "m11"), at: now).map(\.message.payloadString) == ["m1"])
        // The answer went when m10 came: the full queue gave up the low-priority message first.
        #expect(drain(&queue) == (2...11).map { "m\($0)" })
    }

    @Test func pendingMovesAreSentBeforePendingAnswers() {
        var queue = MQTTOutgoingQueue(limit: 100)
        _ = queue.enqueue(answer(0), priority: .low, at: now)
        _ = queue.enqueue(message("move", "m1"), at: now)
        _ = queue.enqueue(answer(1), priority: .low, at: now)
        _ = queue.enqueue(message("move", "m2"), at: now)
        #expect(drain(&queue) == ["m1", "m2", "r0", "r1"])
    }

    @Test func inFlightAnswersGoBackBehindTheMoves() throws {
        var queue = MQTTOutgoingQueue(limit: 100)
        _ = queue.enqueue(answer(0), priority: .low, at: now)
        let popped = queue.popFirst()
        queue.markInFlight(try #require(popped), mid: 1)
        _ = queue.enqueue(message("move", "m1"), at: now)
        queue.requeueInFlight()
        #expect(drain(&queue) == ["m1", "r0"])
    }

    @Test func theByteLimitBoundsTheQueue() {
        var queue = MQTTOutgoingQueue(limit: 10_000, byteLimit: 1_000)
        let payload = String(repeating: "x", count: 96)  // 100 bytes with the topic "move"
        var dropped = 0
        for _ in 0..<50 { dropped += queue.enqueue(message("move", payload), at: now).count }
        #expect(queue.count == 10)
        #expect(queue.bytes == 1_000)
        #expect(dropped == 40)
    }

    @Test func answersHoldAtMostATenthOfTheBytes() {
        var queue = MQTTOutgoingQueue(limit: 10_000, byteLimit: 10_000)
        let large = String(repeating: "x", count: 60_000 - "b02/response".utf8.count)
        var dropped = 0
        for _ in 0..<100 {
            dropped += queue.enqueue(message("b02/response", large), priority: .low, at: now).count
        }
        // An answer larger than the low-priority share evicts every earlier one.
        #expect(queue.count == 1)
        #expect(dropped == 99)
        _ = queue.enqueue(message("move", "m1"), at: now)
        // The move needs room: the large answer goes.
        #expect(drain(&queue) == ["m1"])
    }

    @Test func bytesFollowPopsAcknowledgementsAndRequeues() throws {
        var queue = MQTTOutgoingQueue(limit: 100, byteLimit: 10_000)
        _ = queue.enqueue(message("move", "1234"), at: now)  // 8 bytes
        _ = queue.enqueue(answer(0), priority: .low, at: now)  // 14 bytes
        #expect(queue.bytes == 22)
        let entry = queue.popFirst()
        queue.markInFlight(try #require(entry), mid: 7)
        #expect(queue.bytes == 22)
        queue.requeueInFlight()
        #expect(queue.bytes == 22)
        let again = queue.popFirst()
        queue.markInFlight(try #require(again), mid: 8)
        #expect(queue.acknowledge(mid: 8) != nil)
        #expect(queue.bytes == 14)
        _ = queue.popFirst()
        #expect(queue.bytes == 0)
    }
}
