import Contract
import Foundation
import JSON
import MQTT

/// One message the watching client received, in arrival order.
struct ReceivedMessage {
    /// Its position in the recording (0 = first).
    var index: Int
    /// The topic.
    var topic: String
    /// The payload as text (PGN and JSON are UTF-8).
    var text: String
    /// Whether the broker delivered it as retained.
    var retained: Bool
    /// When the client received it.
    var received: ContinuousClock.Instant = .now

    /// The payload parsed as JSON, or `nil`.
    var json: JSONValue? { try? JSONValue(parsing: text) }
}

/// A test's own MQTT client on the hall's broker: subscribed to everything under the base
/// topic, it records what the bridge publishes and publishes the test's commands.
@MainActor
final class MessageRecorder {
    let client: MQTTClient
    private(set) var messages: [ReceivedMessage] = []

    /// A client for `url` subscribed to `base/#`. With `persistentSession` the broker keeps its
    /// subscription and queues its messages while it is away (a broker restart, with the
    /// broker's own persistence on).
    init(url: String, base: String, persistentSession: Bool) throws {
        var configuration = try MQTTConfiguration(url: url, clientID: "e2e-watch-\(UUID().uuidString.prefix(8))")
        configuration.reconnect = MQTTReconnectPolicy(
            minimumDelay: .milliseconds(100), maximumDelay: .milliseconds(500))
        if persistentSession {
            configuration.cleanSession = false
            configuration.sessionExpiryInterval = 3600
        }
        client = try MQTTClient(configuration: configuration)
        client.onMessage = { [weak self] message in self?.record(message) }
        try client.subscribe("\(base)/#", qos: .atLeastOnce)
        try client.subscribe("homeassistant/#", qos: .atLeastOnce)
    }

    private func record(_ message: MQTTMessage) {
        let text = String(decoding: message.payload, as: UTF8.self)
        messages.append(
            ReceivedMessage(index: messages.count, topic: message.topic, text: text, retained: message.retain))
    }

    /// The index the next message will get: a mark to look only at what comes after.
    var mark: Int { messages.count }

    /// The messages on `topic`, from `mark` on.
    func messages(on topic: String, since mark: Int = 0) -> [ReceivedMessage] {
        messages.dropFirst(mark).filter { $0.topic == topic }
    }

    /// The JSON payloads on `topic`, from `mark` on (payloads that are not JSON are skipped).
    func json(on topic: String, since mark: Int = 0) -> [JSONValue] {
        messages(on: topic, since: mark).compactMap(\.json)
    }

    /// The last payload on `topic`, as text.
    func last(on topic: String) -> String? {
        messages.last { $0.topic == topic }?.text
    }

    /// Publishes `text` (QoS 1).
    func publish(_ topic: String, _ text: String) throws {
        try client.publish(topic: topic, string: text, qos: .atLeastOnce)
    }

    /// Publishes raw bytes (QoS 1).
    func publish(_ topic: String, bytes: [UInt8]) throws {
        try client.publish(topic: topic, payload: bytes, qos: .atLeastOnce)
    }

    /// Starts the client and waits until its subscription works (a probe comes back).
    func connect(base: String) async throws {
        client.start()
        let probe = "\(base)/e2e-probe"
        let marker = "probe-\(UUID().uuidString)"
        try await waitUntil("the test's MQTT client connects") { self.client.state.isConnected }
        // The probe goes out again every second until one comes back: one probe sent while
        // the client was reconnecting (or just before its subscription was in force) must
        // not cost the whole wait. A subscription that never works still times out.
        var sentAt = ContinuousClock.now
        try publish(probe, marker)
        try await waitUntil("the test's MQTT client receives its probe") {
            if self.messages.contains(where: { $0.topic == probe && $0.text == marker }) { return true }
            if ContinuousClock.now - sentAt > .seconds(1), self.client.state.isConnected {
                sentAt = ContinuousClock.now
                try? self.publish(probe, marker)
            }
            return false
        }
    }
}

/// A condition a test waited for did not hold in time.
struct WaitTimeout: Error, CustomStringConvertible {
    /// What was awaited.
    var what: String
    /// Context for the report (logs).
    var context: String

    var description: String { context.isEmpty ? "timed out: \(what)" : "timed out: \(what)\n\(context)" }
}

/// Polls `condition` on the main actor (which lets the MQTT client run) until it holds, or
/// throws after `timeout`. Timeouts are generous: they bound a hang, they assert nothing
/// about speed.
@MainActor
func waitUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(90), context: () -> String = { "" },
    _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { throw WaitTimeout(what: what(), context: context()) }
        try await Task.sleep(for: .milliseconds(20))
    }
}
