import Testing

@testable import MQTT

@Suite struct MQTTReconnectPolicyTests {
    @Test func delayDoublesUpToTheMaximumWithoutJitter() {
        let policy = MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(30), jitter: 0)
        let delays = (1...8).map { policy.delay(afterFailures: $0, random: 0.9) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        #expect(policy.delay(afterFailures: 0, random: 0) == .seconds(1))
        #expect(policy.delay(afterFailures: 10_000, random: 0) == .seconds(30))
    }

    @Test func jitterSpreadsTheDelayWithinBounds() {
        let policy = MQTTReconnectPolicy(minimumDelay: .seconds(2), maximumDelay: .seconds(60), jitter: 0.25)
        #expect(policy.delay(afterFailures: 1, random: 0) == .milliseconds(1_500))
        #expect(policy.delay(afterFailures: 1, random: 0.5) == .seconds(2))
        #expect(policy.delay(afterFailures: 1, random: 1) == .milliseconds(2_500))
        #expect(policy.delay(afterFailures: 10, random: 1) == .seconds(60))
        var generator = SystemRandomNumberGenerator()
        for failures in 1...12 {
            let delay = policy.delay(afterFailures: failures, random: Double.random(in: 0..<1, using: &generator))
            #expect(delay >= .milliseconds(1_500))
            #expect(delay <= .seconds(60))
        }
    }

    @Test func neverBelowTheFloorWhateverTheConfiguration() {
        let silly = MQTTReconnectPolicy(minimumDelay: .zero, maximumDelay: .zero, jitter: 5)
        for failures in 1...5 {
            #expect(silly.delay(afterFailures: failures, random: 0) >= MQTTReconnectPolicy.floor)
        }
        let inverted = MQTTReconnectPolicy(minimumDelay: .seconds(5), maximumDelay: .seconds(1), jitter: 0)
        #expect(inverted.delay(afterFailures: 3, random: 0) == .seconds(5))
        let nan = MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(4), jitter: .nan)
        #expect(nan.delay(afterFailures: 2, random: .nan) == .seconds(2))
    }

    @Test func stateDescriptionsAreReadable() {
        #expect(
            MQTTConnectionState.disconnected(.refused(.notAuthorized), retryIn: .milliseconds(2_150)).description
                == "disconnected: connection refused by the broker: not authorised (check the user name and password); "
                + "retrying in 2.1 s")
        #expect(MQTTConnectionState.connecting(attempt: 3).description == "connecting (attempt 3)")
        #expect(
            MQTTDisconnectReason.tlsFailed("certificate verify failed").description
                == "TLS handshake failed: certificate verify failed")
    }
}

@Suite struct MQTTTopicTests {
    @Test(arguments: [
        ("a/b", true), ("a", true), ("/", true), ("", false), ("a/+", false), ("a/#", false), ("a\u{0}b", false),
    ])
    func topicNames(topic: String, valid: Bool) {
        #expect(MQTTTopic.isValidTopicName(topic) == valid)
    }

    @Test(arguments: [
        ("a/b", true), ("a/+/c", true), ("+", true), ("#", true), ("a/#", true), ("+/+/#", true),
        ("", false), ("a/#/b", false), ("a/b#", false), ("a+/b", false), ("a/+b", false),
    ])
    func topicFilters(filter: String, valid: Bool) {
        #expect(MQTTTopic.isValidTopicFilter(filter) == valid)
    }

    @Test(arguments: [
        ("a/b", "a/b", true), ("a/+", "a/b", true), ("a/+", "a/b/c", false), ("a/#", "a/b/c", true),
        ("a/#", "a", true), ("#", "a/b", true), ("+/b", "a/b", true), ("+", "$SYS", false), ("#", "$SYS/x", false),
        ("$SYS/#", "$SYS/x", true), ("a/b", "a/c", false), ("a/+/c", "a//c", true), ("a", "a/b", false),
    ])
    func filterMatching(filter: String, topic: String, matches: Bool) {
        #expect(MQTTTopic.matches(filter: filter, topic: topic) == matches)
    }

    @Test func publishValidation() {
        #expect(throws: MQTTPublishError.invalidTopic("a/#")) {
            try MQTTTopic.validate(MQTTMessage(topic: "a/#", string: ""))
        }
        #expect(throws: MQTTPublishError.self) {
            try MQTTTopic.validate(
                MQTTMessage(
                    topic: "a", string: "",
                    properties: MQTTProperties(correlationData: Array(repeating: 0, count: 70_000))))
        }
        #expect(throws: MQTTPublishError.self) {
            try MQTTTopic.validate(
                MQTTMessage(topic: "a", string: "", properties: MQTTProperties(responseTopic: "r/+")))
        }
        #expect(throws: Never.self) {
            try MQTTTopic.validate(
                MQTTMessage(topic: "a", string: "", properties: MQTTProperties(responseTopic: "r/x")))
        }
    }
}
