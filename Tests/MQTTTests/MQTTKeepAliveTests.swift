import Foundation
import TestSupport
import Testing

@testable import MQTT

/// A broker that stops answering (frozen with SIGSTOP) is detected by the keep-alive,
/// a connect attempt that gets no CONNACK times out, and the client recovers when the
/// broker answers again.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto")))
@MainActor
struct MQTTKeepAliveTests {
    @Test func silentBrokerIsDetectedByKeepAliveAndConnectTimeout() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let (client, recorder) = try makeClient(url: broker.url) {
            $0.keepAlive = 5
            $0.connectTimeout = .seconds(3)
        }
        defer { client.stop() }
        try client.subscribe("ka/#")
        #expect(try await connectAndSync(client, recorder, probeTopic: "ka/probe"))

        broker.suspend()
        try client.publish(topic: "ka/while-frozen", string: "kept")
        func sawState(_ matches: (MQTTConnectionState) -> Bool) -> Bool { recorder.states.contains(where: matches) }
        #expect(
            await waitUntil(timeout: .seconds(40)) {
                sawState {
                    if case .disconnected(.connectionLost(let text), _) = $0 {
                        text.contains("keep-alive")
                    } else {
                        false
                    }
                }
            })
        #expect(
            await waitUntil(timeout: .seconds(40)) {
                sawState { if case .disconnected(.timedOut, _) = $0 { true } else { false } }
            })
        broker.resume()
        #expect(await waitUntil { client.state.isConnected && client.statistics.connections >= 2 })
        #expect(await waitUntil { recorder.messages.contains { $0.topic == "ka/while-frozen" } })
    }
}
