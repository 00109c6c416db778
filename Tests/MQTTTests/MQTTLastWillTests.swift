import Foundation
import TestSupport
import Testing

@testable import MQTT

#if canImport(Glibc)
    import Glibc
#endif

/// Last will: the broker publishes it when a client vanishes without DISCONNECT.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto", "mosquitto_sub")))
@MainActor
struct MQTTLastWillTests {
    @Test func willOfAKilledChildProcessIsPublishedAndRetained() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (watcher, seen) = try makeClient(url: broker.url)
        defer { watcher.stop() }
        try watcher.subscribe("will/#")
        #expect(try await connectAndSync(watcher, seen, probeTopic: "will/probe"))

        let child = ManagedProcess(
            executable: try TestTools.require("mosquitto_sub"),
            arguments: [
                "-h", "127.0.0.1", "-p", "\(broker.port)", "-i", "will-child", "-t", "will/ignored",
                "--will-topic", "will/child", "--will-payload", "{\"state\":\"offline\"}", "--will-qos", "1",
                "--will-retain",
            ])
        try child.start()
        defer { child.stop(grace: 1) }
        #expect(await waitUntil { broker.log.contains("as will-child") })
        child.send(signal: SIGKILL)
        #expect(await child.exitStatus(within: .seconds(10)) != nil)

        #expect(await waitUntil { !seen.messages(on: "will/child").isEmpty })
        let will = try #require(seen.messages(on: "will/child").first)
        #expect(will.payloadString == "{\"state\":\"offline\"}")
        #expect(will.qos == .atLeastOnce)

        let (late, lateSeen) = try makeClient(url: broker.url)
        defer { late.stop() }
        try late.subscribe("will/child")
        late.start()
        #expect(await waitUntil { !lateSeen.messages.isEmpty })
        #expect(lateSeen.messages.first?.retain == true)
        #expect(lateSeen.messages.first?.payloadString == "{\"state\":\"offline\"}")
    }

    @Test func ownWillIsPublishedOnAbruptDisconnectAndAvailabilityIsRestored() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (watcher, seen) = try makeClient(url: broker.url)
        defer { watcher.stop() }
        try watcher.subscribe("bridge/#")
        #expect(try await connectAndSync(watcher, seen, probeTopic: "bridge/probe"))

        let offline: [UInt8] = Array("{\"state\":\"offline\"}".utf8) + [0x00, 0xFF]
        let (bridge, bridgeLog) = try makeClient(url: broker.url) {
            $0.lastWill = MQTTLastWill(
                message: MQTTMessage(topic: "bridge/state", payload: offline, qos: .atLeastOnce, retain: true))
        }
        defer { bridge.stop() }
        bridge.onConnected = { _ in
            try? bridge.publish(topic: "bridge/state", string: "{\"state\":\"online\"}", retain: true)
        }
        bridge.start()
        #expect(await waitUntil { seen.messages(on: "bridge/state").count == 1 })

        bridge.severConnectionForTesting()
        #expect(await waitUntil { seen.messages(on: "bridge/state").count == 3 })
        let states = seen.messages(on: "bridge/state").map(\.payload)
        #expect(states == [Array("{\"state\":\"online\"}".utf8), offline, Array("{\"state\":\"online\"}".utf8)])
        #expect(seen.messages(on: "bridge/state")[1].qos == .atLeastOnce)
        #expect(bridge.statistics.connections == 2)
        #expect(bridgeLog.states.contains { if case .disconnected(.connectionLost, _) = $0 { true } else { false } })
    }

    @Test func willWorksOverMQTT311Too() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (watcher, seen) = try makeClient(url: broker.url)
        defer { watcher.stop() }
        try watcher.subscribe("old/#")
        #expect(try await connectAndSync(watcher, seen, probeTopic: "old/probe"))

        let (client, _) = try makeClient(url: broker.url) {
            $0.protocolVersion = .v311
            $0.lastWill = MQTTLastWill(topic: "old/state", payload: "gone", qos: .atLeastOnce, retain: false)
        }
        defer { client.stop() }
        client.start()
        #expect(await waitUntil { client.state.isConnected })
        #expect(
            client.state
                == .connected(MQTTConnectionInfo(protocolVersion: .v311, sessionPresent: false, connectionCount: 1)))
        client.severConnectionForTesting()
        #expect(await waitUntil { !seen.messages(on: "old/state").isEmpty })
        #expect(seen.messages(on: "old/state").first?.payloadString == "gone")
    }
}
