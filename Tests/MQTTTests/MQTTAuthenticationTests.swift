import Foundation
import TestSupport
import Testing

@testable import MQTT

/// User name and password against a mosquitto password file.
@Suite(.serialized, .enabled(if: TestTools.available("mosquitto", "mosquitto_passwd")))
@MainActor
struct MQTTAuthenticationTests {
    private static let secret = "s3cret-Pa55word"
    private static let wrong = "wr0ng-Pa55word"

    private func makeBroker() async throws -> MosquittoBroker {
        let broker = try MosquittoBroker(
            options: .init(allowAnonymous: false, users: ["alice": Self.secret, "bob": "other"]))
        try await broker.start()
        return broker
    }

    @Test func correctPasswordConnects() async throws {
        let broker = try await makeBroker()
        defer { broker.stop() }
        let (client, received) = try makeClient(url: broker.url) {
            $0.username = "alice"
            $0.password = MQTTPassword(Self.secret)
        }
        defer { client.stop() }
        try client.subscribe("auth/#")
        #expect(try await connectAndSync(client, received, probeTopic: "auth/probe"))
        #expect(!received.logs.joined().contains(Self.secret))
    }

    /// A wrong password is refused with "not authorised", retried with backoff (five
    /// attempts take at least the growing delays between them: no busy loop), and never shown.
    @Test func wrongPasswordIsNotAuthorisedAndRetriedWithBackoff() async throws {
        let broker = try await makeBroker()
        defer { broker.stop() }
        let (client, recorder) = try makeClient(url: broker.url) {
            $0.username = "alice"
            $0.password = MQTTPassword(Self.wrong)
            $0.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(200), maximumDelay: .seconds(1))
        }
        defer { client.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        client.start()
        #expect(
            await waitUntil {
                if case .disconnected(.refused(.notAuthorized), _) = client.state { return true }
                return false
            })
        // The wait ends on the count: the first attempt and four retries, after delays of
        // about 0.2, 0.4, 0.8 and 1 s (±25 %: 1.8 s at least). A busy loop gets there within
        // milliseconds, retries without growing delays within about 1 s; load only makes it
        // later, so the bound is from below.
        #expect(await waitUntil { client.statistics.connectAttempts >= 5 })
        let elapsed = clock.now - started
        #expect(elapsed >= .milliseconds(1500), "five attempts within \(elapsed)")
        #expect(client.statistics.connectAttempts <= 15)
        #expect(client.statistics.connections == 0)
        // Between attempts the state is "connecting"; the refusal shows again after the next one.
        #expect(await waitUntil { client.state.description.contains("not authorised") })
        let refusal = MQTTDisconnectReason.refused(.notAuthorized)
        #expect(
            refusal.description == "connection refused by the broker: not authorised (check the user name and password)"
        )
        #expect(recorder.logs.contains { $0.hasPrefix("error:") && $0.contains("not authorised") })

        let everything =
            recorder.logs.joined(separator: "\n") + recorder.states.map(\.description).joined()
            + client.configuration.description + String(reflecting: client.configuration)
            + String(describing: client.configuration)
        #expect(!everything.contains(Self.wrong))
        var dumped = ""
        dump(client.configuration, to: &dumped)
        #expect(!dumped.contains(Self.wrong))
        #expect(dumped.contains("alice"))
    }

    @Test func anonymousClientIsRefusedWhenAPasswordIsRequired() async throws {
        let broker = try await makeBroker()
        defer { broker.stop() }
        let (client, _) = try makeClient(url: broker.url) { $0.protocolVersion = .v311 }
        defer { client.stop() }
        client.start()
        #expect(
            await waitUntil {
                if case .disconnected(.refused(let refusal), _) = client.state {
                    return refusal.isAuthenticationFailure
                }
                return false
            })
    }
}
