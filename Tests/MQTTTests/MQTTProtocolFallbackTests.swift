import Foundation
import TestSupport
import Testing

@testable import MQTT

/// MQTT 5 preferred, MQTT 3.1.1 when the broker refuses 5.
@Suite(.serialized)
@MainActor
struct MQTTProtocolFallbackTests {
    @Test func fallsBackToMQTT311WhenTheBrokerRefusesMQTT5() async throws {
        let broker = try FakeMQTT311Broker()
        defer { broker.stop() }
        let (client, recorder) = try makeClient(url: "mqtt://127.0.0.1:\(broker.port)")
        defer { client.stop() }
        client.start()
        #expect(await waitUntil { client.state.isConnected })
        #expect(client.protocolVersion == .v311)
        #expect(client.state == .connected(.init(protocolVersion: .v311, sessionPresent: false, connectionCount: 1)))
        #expect(broker.protocolLevels == [5, 4])
        #expect(client.statistics.connectAttempts == 2)
        #expect(recorder.states.contains(.disconnected(.refused(.unsupportedProtocolVersion), retryIn: .zero)))
        #expect(recorder.logs.contains { $0.contains("retrying with MQTT 3.1.1") })
        // MQTT 5 properties are left off on a 3.1.1 connection instead of failing the message.
        try client.publish(
            topic: "x/y", string: "z", properties: MQTTProperties(responseTopic: "r", correlationData: [1]))
        #expect(await client.flush(timeout: .seconds(20)))
        #expect(client.statistics.messagesPublished == 1)
        #expect(broker.publications.map(\.topic) == ["x/y"])
        #expect(broker.publications.map(\.payload) == [Array("z".utf8)])
    }

    @Test func staysOnMQTT5WhenFallbackIsDisabled() async throws {
        let broker = try FakeMQTT311Broker()
        defer { broker.stop() }
        let (client, recorder) = try makeClient(url: "mqtt://127.0.0.1:\(broker.port)") {
            $0.allowsProtocolFallback = false
        }
        defer { client.stop() }
        client.start()
        func refused() -> Bool {
            recorder.states.contains {
                if case .disconnected(.refused(.unsupportedProtocolVersion), _) = $0 { true } else { false }
            }
        }
        #expect(await waitUntil { client.statistics.connectAttempts >= 2 && refused() }, "\(recorder.states)")
        #expect(client.protocolVersion == .v5)
        #expect(!broker.protocolLevels.isEmpty)
        #expect(broker.protocolLevels.allSatisfy { $0 == 5 })
    }

    @Test func fallbackDecision() {
        #expect(
            MQTTProtocolNegotiation.fallback(after: .unsupportedProtocolVersion, current: .v5, allowsFallback: true)
                == .v311)
        #expect(
            MQTTProtocolNegotiation.fallback(after: .unsupportedProtocolVersion, current: .v5, allowsFallback: false)
                == nil)
        #expect(
            MQTTProtocolNegotiation.fallback(after: .unsupportedProtocolVersion, current: .v311, allowsFallback: true)
                == nil)
        #expect(MQTTProtocolNegotiation.fallback(after: .notAuthorized, current: .v5, allowsFallback: true) == nil)
    }

    @Test(arguments: [
        (MQTTProtocolVersion.v311, 1, MQTTConnectRefusal.unsupportedProtocolVersion),
        (.v311, 2, .identifierRejected), (.v311, 3, .serverUnavailable), (.v311, 4, .badUserNameOrPassword),
        (.v311, 5, .notAuthorized), (.v5, 0x84, .unsupportedProtocolVersion), (.v5, 0x85, .identifierRejected),
        (.v5, 0x86, .badUserNameOrPassword), (.v5, 0x87, .notAuthorized), (.v5, 0x88, .serverUnavailable),
        (.v5, 0x8A, .banned), (.v5, 0x9C, .other(code: 0x9C, "text")),
    ])
    func connackCodesMapToRefusals(version: MQTTProtocolVersion, code: Int, expected: MQTTConnectRefusal) {
        #expect(MQTTConnectRefusal.from(connackCode: code, protocolVersion: version, text: "text") == expected)
    }
}
