import Foundation
import TestSupport
import Testing

@testable import MQTT

/// Issue #16 (4): a client with ``MQTTConfiguration/maximumIncomingPacketSize`` against a
/// real `mosquitto` that accepts 1 MiB messages (a client without the limit receives them).
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto")))
@MainActor
struct MQTTPacketLimitTests {
    private static let limit = 100_000
    private static let big = [UInt8](repeating: 0x61, count: 1 << 20)

    /// Subscribes a limited client (speaking `version`) and an unlimited one, publishes a
    /// 1 MiB and then a small message, and returns the limited client and its recorder
    /// once both messages reached the unlimited client and the small one the limited client.
    private func exchange(
        _ broker: MosquittoBroker, version: MQTTProtocolVersion
    ) async throws -> (MQTTClient, ClientRecorder, [MQTTClient]) {
        let (limited, received) = try makeClient(url: broker.url) {
            $0.protocolVersion = version
            $0.maximumIncomingPacketSize = Self.limit
        }
        let (unlimited, everything) = try makeClient(url: broker.url)
        let (publisher, _) = try makeClient(url: broker.url)
        try limited.subscribe("limit/#")
        try unlimited.subscribe("limit/#")
        #expect(try await connectAndSync(limited, received, probeTopic: "limit/probe"))
        #expect(try await connectAndSync(unlimited, everything, probeTopic: "limit/probe"))
        #expect(limited.protocolVersion == version)
        publisher.start()
        try publisher.publish(topic: "limit/big", payload: Self.big)
        try publisher.publish(topic: "limit/small", string: "after")
        #expect(await waitUntil { everything.messages(on: "limit/small").count == 1 })
        #expect(everything.messages(on: "limit/big").first?.payload.count == Self.big.count)
        #expect(await waitUntil { received.messages(on: "limit/small").count == 1 })
        return (limited, received, [unlimited, publisher])
    }

    @Test func mqtt5BrokersAreToldNotToSendLargerPackets() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (limited, received, others) = try await exchange(broker, version: .v5)
        defer { for client in [limited] + others { client.stop() } }
        #expect(received.messages(on: "limit/big").count == 0)
        // The broker never sent it: nothing had to be discarded here.
        #expect(limited.statistics.messagesOversized == 0)
        #expect(limited.state.isConnected)
    }

    @Test func mqtt311PacketsOverTheLimitAreDiscardedUndelivered() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (limited, received, others) = try await exchange(broker, version: .v311)
        defer { for client in [limited] + others { client.stop() } }
        #expect(received.messages(on: "limit/big").count == 0)
        #expect(limited.statistics.messagesOversized == 1)
        #expect(
            received.logs.contains { $0.contains("discarded an incoming message of 1048576 bytes on \"limit/big\"") })
        #expect(limited.state.isConnected)
    }

    @Test func theLimitIsValidated() throws {
        var configuration = try MQTTConfiguration(url: "mqtt://localhost", clientID: "c")
        configuration.maximumIncomingPacketSize = 0
        #expect(throws: MQTTConfigurationError.invalidMaximumPacketSize(0)) { try configuration.validate() }
        configuration.maximumIncomingPacketSize = MQTTConfiguration.largestPacket
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.outgoingQueueByteLimit = 0
        #expect(throws: MQTTConfigurationError.invalidQueueByteLimit(0)) { try configuration.validate() }
    }
}
