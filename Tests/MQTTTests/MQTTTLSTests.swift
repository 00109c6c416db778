import Foundation
import TestSupport
import Testing

@testable import MQTT

/// TLS against a mosquitto TLS listener, with certificates made by `openssl` in the test.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto", "openssl")))
@MainActor
struct MQTTTLSTests {
    private func makeBroker(requireClientCertificate: Bool = false) async throws -> (MosquittoBroker, TestCertificates)
    {
        let certificates = try TestCertificates.generate(in: try TestTools.temporaryDirectory("mqtt-tls"))
        let broker = try MosquittoBroker(
            options: .init(
                tls: .init(
                    caFile: certificates.caFile, certificateFile: certificates.serverCertificateFile,
                    keyFile: certificates.serverKeyFile, requireClientCertificate: requireClientCertificate)))
        try await broker.start()
        return (broker, certificates)
    }

    private func tlsFailure(_ client: MQTTClient) -> String? {
        if case .disconnected(.tlsFailed(let text), _) = client.state { return text }
        return nil
    }

    @Test func connectsWithTheRightCAAndRoundTrips() async throws {
        let (broker, certificates) = try await makeBroker()
        defer { broker.stop() }
        let (client, received) = try makeClient(url: "mqtts://localhost:\(try #require(broker.tlsPort))") {
            $0.tls?.caFile = certificates.caFile
        }
        defer { client.stop() }
        try client.subscribe("tls/#")
        #expect(try await connectAndSync(client, received, probeTopic: "tls/probe"))
        try client.publish(topic: "tls/data", payload: Array(repeating: 0xA5, count: 100_000))
        #expect(await waitUntil { received.messages.contains { $0.topic == "tls/data" } })
        #expect(received.messages.first { $0.topic == "tls/data" }?.payload.count == 100_000)
    }

    @Test func clientCertificateIsPresentedWhenRequired() async throws {
        let (broker, certificates) = try await makeBroker(requireClientCertificate: true)
        defer { broker.stop() }
        let port = try #require(broker.tlsPort)
        let (client, _) = try makeClient(url: "mqtts://localhost:\(port)") {
            $0.tls = MQTTTLSConfiguration(
                caFile: certificates.caFile, certificateFile: certificates.clientCertificateFile,
                keyFile: certificates.clientKeyFile)
        }
        defer { client.stop() }
        client.start()
        #expect(await waitUntil { client.state.isConnected })

        let (anonymous, _) = try makeClient(url: "mqtts://localhost:\(port)") { $0.tls?.caFile = certificates.caFile }
        defer { anonymous.stop() }
        anonymous.start()
        #expect(await waitUntil { anonymous.statistics.connectAttempts >= 2 })
        #expect(anonymous.statistics.connections == 0)
    }

    @Test func hostNameMismatchFailsUnlessInsecure() async throws {
        let (broker, certificates) = try await makeBroker()
        defer { broker.stop() }
        let url = "mqtts://127.0.0.1:\(try #require(broker.tlsPort))"  // the certificate names only localhost
        let (strict, _) = try makeClient(url: url) { $0.tls?.caFile = certificates.caFile }
        defer { strict.stop() }
        strict.start()
        #expect(await waitUntil { tlsFailure(strict) != nil })
        #expect(tlsFailure(strict)?.contains("host name verification failed") == true)
        #expect(strict.statistics.connections == 0)

        let (insecure, _) = try makeClient(url: url) {
            $0.tls?.caFile = certificates.caFile
            $0.tls?.insecure = true
        }
        defer { insecure.stop() }
        insecure.start()
        #expect(await waitUntil { insecure.state.isConnected })
    }

    @Test func wrongCAGivesAClearError() async throws {
        let (broker, certificates) = try await makeBroker()
        defer { broker.stop() }
        let (client, recorder) = try makeClient(url: "mqtts://localhost:\(try #require(broker.tlsPort))") {
            $0.tls?.caFile = certificates.otherCAFile
        }
        defer { client.stop() }
        client.start()
        #expect(await waitUntil { tlsFailure(client) != nil })
        let text = try #require(tlsFailure(client))
        #expect(text.contains("certificate verify failed"))
        #expect(client.state.description.hasPrefix("disconnected: TLS handshake failed: certificate verify failed"))
        #expect(recorder.logs.contains { $0.hasPrefix("error:") && $0.contains("certificate verify failed") })
    }

    @Test func unreadableCAFileIsASetupFailure() async throws {
        let (client, _) = try makeClient(url: "mqtts://localhost:1") { $0.tls?.caFile = "/nonexistent/ca.pem" }
        defer { client.stop() }
        client.start()
        #expect(
            await waitUntil {
                if case .disconnected(.setupFailed(let text), _) = client.state {
                    return text.contains("/nonexistent/ca.pem")
                }
                return false
            })
    }

    /// Issue #16 (6): `insecure` accepts a certificate from a CA the client does not trust
    /// (and any host name); the same broker is refused without it.
    @Test func insecureAcceptsACertificateFromAnotherCA() async throws {
        let (broker, certificates) = try await makeBroker()
        defer { broker.stop() }
        let url = "mqtts://127.0.0.1:\(try #require(broker.tlsPort))"  // not the name in the certificate
        let (strict, _) = try makeClient(url: url) { $0.tls?.caFile = certificates.otherCAFile }
        defer { strict.stop() }
        strict.start()
        #expect(await waitUntil { tlsFailure(strict) != nil })
        #expect(tlsFailure(strict)?.contains("certificate verify failed") == true)
        #expect(strict.statistics.connections == 0)

        let (insecure, received) = try makeClient(url: url) {
            $0.tls?.caFile = certificates.otherCAFile
            $0.tls?.insecure = true
        }
        defer { insecure.stop() }
        try insecure.subscribe("tls/#")
        #expect(try await connectAndSync(insecure, received, probeTopic: "tls/probe"))
    }

    /// Issue #16 (6): with no CA configured (the system's store, which does not hold the test
    /// CA) `insecure` still connects; without it the broker is refused.
    @Test func insecureWithoutACAConnects() async throws {
        let (broker, _) = try await makeBroker()
        defer { broker.stop() }
        let url = "mqtts://localhost:\(try #require(broker.tlsPort))"
        let (strict, _) = try makeClient(url: url) { $0.tls = MQTTTLSConfiguration() }
        defer { strict.stop() }
        strict.start()
        #expect(await waitUntil { tlsFailure(strict) != nil })
        #expect(tlsFailure(strict)?.contains("certificate verify failed") == true)

        let (insecure, _) = try makeClient(url: url) { $0.tls = MQTTTLSConfiguration(insecure: true) }
        defer { insecure.stop() }
        insecure.start()
        #expect(await waitUntil { insecure.state.isConnected })
    }
}
