import Foundation
import TestSupport
import Testing

@testable import MQTT

/// "Nothing lost": a stream of sequenced QoS 1 messages survives a broker restart.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto")))
@MainActor
struct MQTTBrokerRestartTests {
    /// The broker (persistent, so it keeps the subscriber's session and queued messages) is
    /// stopped by PID a third of the way through 1 000 messages and restarted on the same
    /// port two thirds of the way through; messages published meanwhile wait in the
    /// publisher's queue. The subscriber has a persistent session (clean session off,
    /// QoS 1). QoS 1 is "at least once": around the outage a message may arrive twice,
    /// so the check is that the first copies arrive complete and in order and that every
    /// repeat is of a message already seen.
    @Test func brokerRestartMidStreamLosesNothingAndKeepsOrder() async throws {
        let broker = try MosquittoBroker(
            options: .init(persistence: true, extraLines: ["max_queued_messages 5000"]))
        try await broker.start()
        defer { broker.stop() }

        let (subscriber, received) = try makeClient(url: broker.url, id: "sequence-subscriber") {
            $0.cleanSession = false
        }
        defer { subscriber.stop() }
        try subscriber.subscribe("seq/#", qos: .atLeastOnce)
        #expect(try await connectAndSync(subscriber, received, probeTopic: "seq/probe"))
        received.messages.removeAll()

        let (publisher, publisherLog) = try makeClient(url: broker.url, id: "sequence-publisher")
        defer { publisher.stop() }
        #expect(try await connectAndSync(publisher, publisherLog))

        let total = 1_000
        // Every message carries an origin: each is reported handed over once, though the
        // window in flight at the stop is sent again after the restart.
        var handOffs = 0
        publisher.onHandOff = { _ in handOffs += 1 }
        var sawOutage = false
        var queuedAtRestart = 0
        var inFlightAtStop = 0
        // The 30 messages before the stop are published without yielding to the main loop,
        // so the stop catches a full in-flight window (unacknowledged) plus pending ones.
        let burst = (total / 3 - 30)...(total / 3)
        for index in 0..<total {
            try publisher.publish(MQTTMessage(topic: "seq/n", string: "\(index)", qos: .atLeastOnce), origin: .now)
            if index == total / 3 {
                inFlightAtStop = publisher.queue.inFlightCount
                await broker.terminate()
                sawOutage = await waitUntil { !publisher.state.isConnected }
            }
            if index == 2 * total / 3 {
                // Let at least one reconnect attempt fail against the stopped broker.
                let failedWhileDown = await waitUntil {
                    publisherLog.states.contains {
                        if case .disconnected(.connectFailed, _) = $0 { true } else { false }
                    }
                }
                #expect(failedWhileDown)
                #expect(!publisher.state.isConnected)
                queuedAtRestart = publisher.queuedMessageCount
                try await broker.start()
            }
            if index % 10 == 0 && !burst.contains(index) { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(sawOutage)
        #expect(inFlightAtStop == publisher.configuration.maximumInFlight)
        #expect(queuedAtRestart >= total / 3)

        #expect(await waitUntil(timeout: .seconds(60)) { Set(received.messages.map(\.payload)).count >= total })
        #expect(await publisher.flush(timeout: .seconds(30)))

        let numbers = received.messages.compactMap { $0.payloadString.flatMap(Int.init) }
        var seen = Set<Int>()
        var firstCopies: [Int] = []
        var repeats = 0
        for number in numbers {
            if seen.insert(number).inserted {
                firstCopies.append(number)
            } else {
                repeats += 1
            }
        }
        let missing = Set(0..<total).subtracting(seen).sorted()
        let outOfOrder = zip(firstCopies, firstCopies.dropFirst()).first { $0 >= $1 }
        #expect(missing.isEmpty, "missing: \(missing.prefix(20))")
        #expect(outOfOrder == nil, "first copies out of order at \(String(describing: outOfOrder))")
        #expect(firstCopies.count == total)
        #expect(publisher.statistics.messagesDropped == 0)
        #expect(handOffs == total)
        #expect(publisher.statistics.connections >= 2)
        #expect(subscriber.statistics.connections >= 2)
        #expect(repeats < 100, "\(repeats) repeated deliveries")
        print(
            "broker restart: \(total) messages, \(inFlightAtStop) in flight at stop, \(queuedAtRestart) queued at restart, \(repeats) repeated "
                + "deliveries, \(publisher.statistics.connectAttempts) publisher connect attempts")
    }
}
