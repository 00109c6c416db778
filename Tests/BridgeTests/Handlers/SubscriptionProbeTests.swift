import JSON
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// The subscription probe: a probe per command filter at each connection, its own probes
/// taken before any command handler sees them, and a filter the broker does not deliver
/// reported by name.
@Suite @MainActor struct SubscriptionProbeTests {
    let publisher = RecordingPublisher()
    let probe: SubscriptionProbe
    @MainActor final class Findings {
        var undelivered: [SubscriptionProbe.Probe] = []
        var delivered = 0
        var late: [SubscriptionProbe.Probe] = []
    }
    let findings = Findings()

    init() {
        probe = SubscriptionProbe(
            topics: HandlerFixture.topics, publisher: publisher, logger: HandlerFixture.logger, timeout: 0.05)
        let findings = findings
        probe.onUndelivered = { findings.undelivered += $0 }
        probe.onDelivered = { findings.delivered += 1 }
        probe.onLate = { findings.late.append($0) }
    }

    /// What the publisher sent, as the broker would deliver it back.
    private var echoes: [MQTTMessageEcho] {
        publisher.messages.map { MQTTMessageEcho(topic: $0.topic, payload: $0.payload) }
    }
    struct MQTTMessageEcho {
        var topic: String
        var payload: [UInt8]
    }

    @Test func probesEveryCommandFilterOnTopicsThatCommandNoBoard() {
        probe.brokerConnected()
        #expect(
            publisher.messages.map(\.topic) == [
                "boardbridge/bridge/set", "boardbridge/bridge/set/probe", "boardbridge/bridge/hall-a/request/probe",
            ])
        #expect(publisher.messages.allSatisfy { !$0.retain })
        for topic in publisher.messages.map(\.topic) {
            #expect(HandlerFixture.topics.parse(topic) != nil, "each probe matches a command subscription")
        }
    }

    @Test func waitsUntilBothConnectionsAreUp() {
        var up = false
        probe.isConnected = { up }
        probe.brokerConnected()
        #expect(publisher.messages.isEmpty)
        up = true
        probe.brokerConnected()
        #expect(publisher.messages.count == 3)
    }

    @Test func everyProbeBackIsDeliveredAndNoProbeReachesAnotherHandler() async {
        probe.brokerConnected()
        for echo in echoes {
            #expect(probe.receive(HandlerFixture.message(echo.topic, String(decoding: echo.payload, as: UTF8.self))))
        }
        #expect(findings.delivered == 1)
        // Another bridge's probe is taken too (and says nothing of this one's).
        #expect(probe.receive(HandlerFixture.message("boardbridge/bridge/set", #"{"probe":"hall-b/1"}"#)))
        // A real command on a probe topic is not a probe.
        #expect(!probe.receive(HandlerFixture.message("boardbridge/bridge/set", #"{"new_game":{}}"#)))
        #expect(!probe.receive(HandlerFixture.message("boardbridge/b1/set", #"{"probe":"hall-a/1"}"#)))
    }

    /// A filter the broker never delivers is named; its probe coming back later is late.
    @Test func aFilterTheBrokerDoesNotDeliverIsReportedByName() async {
        probe.brokerConnected()
        let back = echoes.filter { !$0.topic.hasSuffix("/request/probe") }
        for echo in back {
            _ = probe.receive(HandlerFixture.message(echo.topic, String(decoding: echo.payload, as: UTF8.self)))
        }
        #expect(await eventually { !findings.undelivered.isEmpty })
        #expect(findings.undelivered.map(\.filter) == [HandlerFixture.topics.requestFilter])
        #expect(findings.delivered == 0)
        let missing = echoes.last!
        _ = probe.receive(HandlerFixture.message(missing.topic, String(decoding: missing.payload, as: UTF8.self)))
        #expect(findings.late.map(\.filter) == [HandlerFixture.topics.requestFilter])
    }

    /// A round whose connection ended before its time was up says nothing; a stopped probe
    /// waits no more.
    @Test func aProbeLostWithItsConnectionIsNoFinding() async {
        var up = true
        probe.isConnected = { up }
        probe.brokerConnected()
        #expect(probe.isWaiting)
        up = false
        #expect(await eventually { !probe.isWaiting })
        #expect(findings.undelivered.isEmpty)
        up = true
        probe.brokerConnected()
        probe.stop()
        #expect(!probe.isWaiting)
    }
}
