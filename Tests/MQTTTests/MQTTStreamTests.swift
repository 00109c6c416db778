import Foundation
import TestSupport
import Testing

@testable import MQTT

/// Async streams, unsubscribe and message expiry against a real broker.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto")))
@MainActor
struct MQTTStreamTests {
    @Test func streamsDeliverMessagesAndStatesInOrder() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (client, _) = try makeClient(url: broker.url)
        defer { client.stop() }
        let states = client.stateChanges()
        let messages = client.messages()
        try client.subscribe("stream/#")

        let stateTask = Task { @MainActor in
            var seen: [MQTTConnectionState] = []
            for await state in states {
                seen.append(state)
                if state.isConnected { break }
            }
            return seen
        }
        let messageTask = Task { @MainActor in
            var payloads: [String] = []
            for await message in messages where message.topic == "stream/n" {
                payloads.append(message.payloadString ?? "")
                if payloads.count == 20 { break }
            }
            return payloads
        }
        client.start()
        let seenStates = await stateTask.value
        #expect(seenStates.first == .stopped)
        #expect(seenStates.contains(.connecting(attempt: 1)))
        #expect(seenStates.last?.isConnected == true)
        // The subscription was sent before this publish on the same connection.
        for index in 0..<20 { try client.publish(topic: "stream/n", string: "\(index)") }
        #expect(await messageTask.value == (0..<20).map(String.init))
    }

    @Test func unsubscribeStopsDelivery() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (client, received) = try makeClient(url: broker.url)
        defer { client.stop() }
        try client.subscribe("gone/#")
        try client.subscribe("kept/#")
        #expect(try await connectAndSync(client, received, probeTopic: "kept/probe"))
        client.unsubscribe("gone/#")
        #expect(client.subscriptions.map(\.filter) == ["kept/#"])
        try client.publish(topic: "gone/x", string: "not for us")
        try client.publish(topic: "kept/y", string: "for us")
        // The broker handles one connection's packets in order: once kept/y is back, gone/x
        // has been routed (to nobody).
        #expect(await waitUntil { received.messages.contains { $0.topic == "kept/y" } })
        #expect(!received.messages.contains { $0.topic == "gone/x" })
    }

    @Test func messageThatExpiresWhileQueuedIsNotSent() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (watcher, seen) = try makeClient(url: broker.url)
        defer { watcher.stop() }
        try watcher.subscribe("exp/#")
        #expect(try await connectAndSync(watcher, seen, probeTopic: "exp/probe"))

        let (client, _) = try makeClient(url: broker.url)
        defer { client.stop() }
        try client.publish(
            topic: "exp/stale", string: "old LED command", properties: MQTTProperties(messageExpiryInterval: 1))
        try client.publish(
            topic: "exp/fresh", string: "still valid", properties: MQTTProperties(messageExpiryInterval: 60))
        try await Task.sleep(for: .milliseconds(1_200))  // queued while not started
        client.start()
        #expect(await waitUntil { seen.messages.contains { $0.topic == "exp/fresh" } })
        #expect(!seen.messages.contains { $0.topic == "exp/stale" })
        #expect(client.statistics.messagesExpired == 1)
        let fresh = try #require(seen.messages.first { $0.topic == "exp/fresh" })
        #expect((fresh.properties.messageExpiryInterval ?? 0) <= 59)
    }
}
