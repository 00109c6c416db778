import Foundation
import TestSupport
import Testing

@testable import MQTT

/// Publish/subscribe against a real `mosquitto` on a loopback port.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto")))
@MainActor
struct MQTTRoundTripTests {
    @Test func publishAndSubscribeRoundTripKeepsQoSAndRetain() async throws {
        try await withBrokerAndTwoClients { broker, first, second in
            let (subscriber, received) = first
            let (publisher, _) = second
            try subscriber.subscribe("rt/#", qos: .exactlyOnce)
            #expect(try await connectAndSync(subscriber, received, probeTopic: "rt/probe"))
            publisher.start()

            try publisher.publish(topic: "rt/q0", string: "zero", qos: .atMostOnce)
            try publisher.publish(topic: "rt/q1", string: "one", qos: .atLeastOnce)
            try publisher.publish(topic: "rt/q2", string: "two", qos: .exactlyOnce)
            try publisher.publish(topic: "rt/kept", payload: [0, 1, 2, 255], qos: .atLeastOnce, retain: true)
            #expect(await waitUntil { received.messages.count >= 5 })

            let live = received.messages.filter { $0.topic != "rt/probe" }
            // libmosquitto hands an incoming QoS 2 message over at PUBREL, so it may come after
            // later QoS 0/1 messages; MQTT orders messages per QoS level, not across levels.
            #expect(live.filter { $0.qos != .exactlyOnce }.map(\.topic) == ["rt/q0", "rt/q1", "rt/kept"])
            let byTopic = Dictionary(live.map { ($0.topic, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(live.count == 4)
            #expect(byTopic["rt/q0"]?.qos == .atMostOnce)
            #expect(byTopic["rt/q1"]?.qos == .atLeastOnce)
            #expect(byTopic["rt/q2"]?.qos == .exactlyOnce)
            #expect(byTopic["rt/kept"]?.qos == .atLeastOnce)
            #expect(byTopic["rt/q0"]?.payloadString == "zero")
            #expect(byTopic["rt/q1"]?.payloadString == "one")
            #expect(byTopic["rt/q2"]?.payloadString == "two")
            #expect(byTopic["rt/kept"]?.payload == [0, 1, 2, 255])
            // A live message is delivered with retain = 0 even when it was published retained.
            #expect(live.allSatisfy { !$0.retain })
            #expect(await publisher.flush(timeout: .seconds(20)))
            #expect(publisher.statistics.messagesPublished == 4)

            // A later subscriber gets the retained message, flagged as retained; QoS is the
            // lower of publish and subscribe QoS.
            let (late, lateReceived) = try makeClient(url: broker.url)
            defer { late.stop() }
            try late.subscribe("rt/kept", qos: .atMostOnce)
            late.start()
            #expect(await waitUntil { !lateReceived.messages.isEmpty })
            let retained = try #require(lateReceived.messages.first)
            #expect(retained.topic == "rt/kept")
            #expect(retained.retain)
            #expect(retained.qos == .atMostOnce)
            #expect(retained.payload == [0, 1, 2, 255])
        }
    }

    @Test func mqtt5RequestResponseCarriesResponseTopicAndCorrelationData() async throws {
        try await withBrokerAndTwoClients { broker, first, second in
            let (responder, requests) = first
            let (requester, responses) = second
            try responder.subscribe("svc/request/#")
            responder.onMessage = { [weak responder] request in
                requests.messages.append(request)
                try? responder?.reply(to: request, payload: Array("pong".utf8))
            }
            try requester.subscribe("svc/response/me")
            #expect(try await connectAndSync(responder, requests))
            #expect(try await connectAndSync(requester, responses))
            // Subscriptions are sent right after CONNACK; prove both are active with a probe.
            try requester.publish(topic: "svc/response/me", string: "probe")
            #expect(await waitUntil { !responses.messages.isEmpty })
            responses.messages.removeAll()

            let properties = MQTTProperties(
                responseTopic: "svc/response/me", correlationData: [0xCA, 0xFE, 0x00, 0x01], messageExpiryInterval: 60,
                contentType: "application/json", payloadIsUTF8: true,
                userProperties: [MQTTUserProperty(name: "schema", value: "1"), MQTTUserProperty(name: "a", value: "b")])
            try requester.publish(topic: "svc/request/ping", string: "{\"transaction\":7}", properties: properties)
            #expect(await waitUntil { !responses.messages.isEmpty })

            let request = try #require(requests.messages.first)
            #expect(request.properties.responseTopic == "svc/response/me")
            #expect(request.properties.correlationData == [0xCA, 0xFE, 0x00, 0x01])
            #expect(request.properties.contentType == "application/json")
            #expect(request.properties.payloadIsUTF8 == true)
            #expect(request.properties.userProperties.map(\.name) == ["schema", "a"])
            #expect(request.properties.userProperties.map(\.value) == ["1", "b"])
            // The broker forwards the remaining expiry, at most what was sent.
            #expect((request.properties.messageExpiryInterval ?? 0) > 0)
            #expect((request.properties.messageExpiryInterval ?? 0) <= 60)

            let response = try #require(responses.messages.first)
            #expect(response.topic == "svc/response/me")
            #expect(response.payloadString == "pong")
            #expect(response.properties.correlationData == [0xCA, 0xFE, 0x00, 0x01])
            #expect(throws: MQTTPublishError.noResponseTopic("plain")) {
                try responder.reply(to: MQTTMessage(topic: "plain", string: "x"), payload: [])
            }
        }
    }

    @Test func fullQueueDropsOldestAndReportsTheCount() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (watcher, seen) = try makeClient(url: broker.url)
        defer { watcher.stop() }
        try watcher.subscribe("q/#")
        #expect(try await connectAndSync(watcher, seen, probeTopic: "q/probe"))
        seen.messages.removeAll()

        let (publisher, publisherLog) = try makeClient(url: broker.url) { $0.outgoingQueueLimit = 5 }
        defer { publisher.stop() }
        var reported: [Int] = []
        publisher.onMessagesDropped = { reported.append($0) }
        for index in 0..<8 { try publisher.publish(topic: "q/n", string: "\(index)") }
        #expect(publisher.droppedMessageCount == 3)
        #expect(publisher.statistics.messagesDropped == 3)
        #expect(reported == [1, 2, 3])
        #expect(publisher.queuedMessageCount == 5)
        #expect(publisherLog.logs.contains { $0.hasPrefix("warning:") && $0.contains("queue full") })

        publisher.start()
        #expect(await waitUntil { seen.messages.count >= 5 })
        #expect(await publisher.flush(timeout: .seconds(20)))
        #expect(seen.messages.map(\.payloadString) == ["3", "4", "5", "6", "7"])
    }

    /// `onHandOff` (#33): a message published with an origin is reported once, when it is
    /// handed over for sending, with the time since its origin (a message queued before the
    /// connection is reported when the connection takes it); a message without an origin is
    /// not reported.
    @Test func messagesWithAnOriginAreReportedWhenHandedToTheSocket() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (publisher, publisherLog) = try makeClient(url: broker.url)
        defer { publisher.stop() }
        var reported: [Duration] = []
        publisher.onHandOff = { reported.append($0) }

        let queuedAt = ContinuousClock.now
        try publisher.publish(MQTTMessage(topic: "h/queued", string: "q"), origin: queuedAt)
        try publisher.publish(MQTTMessage(topic: "h/plain", string: "p"))
        #expect(reported.isEmpty)
        #expect(try await connectAndSync(publisher, publisherLog))
        #expect(await waitUntil { reported.count == 1 })
        #expect(reported[0] > .zero)

        let origin = ContinuousClock.now - .milliseconds(5)
        try publisher.publish(MQTTMessage(topic: "h/live", string: "l"), origin: origin)
        // Connected with room in the window: handed over inside the call.
        #expect(reported.count == 2)
        #expect(reported[1] >= .milliseconds(5))
        #expect(await publisher.flush(timeout: .seconds(20)))
        #expect(reported.count == 2)
    }

    /// A message another connection publishes once `onSubscribed` has fired is delivered:
    /// the broker has the subscriptions (their SUBACKs came). The bridge starts its
    /// subscription probe there; on `onConnected` the probe could overtake the SUBSCRIBE on
    /// the other connection and be reported lost (#28, `BrokerACLTests`).
    @Test func onSubscribedFiresOnceTheBrokerHasEverySubscription() async throws {
        try await withBrokerAndTwoClients { broker, first, second in
            let (subscriber, received) = first
            let (publisher, _) = second
            try subscriber.subscribe("sub/a/#")
            try subscriber.subscribe("sub/b/#")
            #expect(try await connectAndSync(publisher, ClientRecorder()))
            var fired = 0
            subscriber.onSubscribed = {
                fired += 1
                // At once, from the other connection: both filters deliver.
                try? publisher.publish(topic: "sub/a/1", string: "a")
                try? publisher.publish(topic: "sub/b/1", string: "b")
            }
            #expect(!subscriber.isSubscribed)
            subscriber.start()
            #expect(await waitUntil { received.messages.count == 2 })
            #expect(Set(received.messages.map(\.topic)) == ["sub/a/1", "sub/b/1"])
            #expect(fired == 1)
            #expect(subscriber.isSubscribed)
            // A subscription added while connected: acknowledged, it fires again.
            try subscriber.subscribe("sub/c/#")
            #expect(await waitUntil { fired == 2 })
            subscriber.stop()
            #expect(!subscriber.isSubscribed)
        }
    }

    @Test func subscriptionsAreRenewedAfterReconnect() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (client, received) = try makeClient(url: broker.url)
        defer { client.stop() }
        var hookCalls: [MQTTConnectionInfo] = []
        client.onConnected = { info in
            hookCalls.append(info)
            try? client.publish(topic: "re/availability", string: "online", retain: true)
        }
        try client.subscribe("re/#")
        #expect(try await connectAndSync(client, received, probeTopic: "re/probe"))

        try await broker.restart()  // not persistent: the broker forgets the subscription
        #expect(await waitUntil { client.statistics.connections == 2 && client.state.isConnected })
        received.messages.removeAll()
        try client.publish(topic: "re/after", string: "again")
        #expect(await waitUntil { received.messages.contains { $0.topic == "re/after" } })
        #expect(hookCalls.map(\.connectionCount) == [1, 2])
        #expect(hookCalls.allSatisfy { $0.protocolVersion == .v5 })
    }

    @Test func unreachableBrokerIsReportedAndRetriedWhileMessagesWait() async throws {
        let port = TestTools.freeLoopbackPort()  // nothing listens there
        let (client, recorder) = try makeClient(url: "mqtt://127.0.0.1:\(port)")
        defer { client.stop() }
        try client.publish(topic: "wait/here", string: "queued while unreachable")
        client.start()
        #expect(await waitUntil { client.statistics.connectAttempts >= 3 })
        #expect(recorder.states.contains { $0 == .connecting(attempt: 1) })
        #expect(
            recorder.states.contains {
                if case .disconnected(.connectFailed("connection refused"), _) = $0 { true } else { false }
            })
        #expect(client.queuedMessageCount == 1)
        #expect(client.statistics.connections == 0)
        client.stop()
        #expect(client.state == .stopped)
        #expect(client.queuedMessageCount == 1)
    }
}
