import Foundation
import TestSupport

@testable import MQTT

/// Polls `condition` on the main actor (letting the main queue run between polls) until it
/// holds or `timeout` passes. Timeouts are generous: they bound a hang, they assert nothing.
@MainActor
func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Records what a client receives and logs.
@MainActor
final class ClientRecorder {
    var messages: [MQTTMessage] = []
    var logs: [String] = []
    var states: [MQTTConnectionState] = []

    func attach(to client: MQTTClient) {
        client.onMessage = { [weak self] message in self?.messages.append(message) }
        client.logHandler = { [weak self] level, text in self?.logs.append("\(level): \(text)") }
        client.onStateChange = { [weak self] state in self?.states.append(state) }
    }

    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
}

/// A client for `broker` with quick reconnects; `configure` adjusts the configuration.
@MainActor
func makeClient(
    url: String, id: String = "test-\(UUID().uuidString.prefix(8))",
    configure: (inout MQTTConfiguration) -> Void = { _ in }
) throws -> (MQTTClient, ClientRecorder) {
    var configuration = try MQTTConfiguration(url: url, clientID: id)
    configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(100), maximumDelay: .milliseconds(500))
    configure(&configuration)
    let client = try MQTTClient(configuration: configuration)
    let recorder = ClientRecorder()
    recorder.attach(to: client)
    return (client, recorder)
}

/// Starts `client`, waits for its connection, and proves its subscriptions are active by
/// publishing to `probeTopic` (which they must cover) and receiving it back.
@MainActor
func connectAndSync(
    _ client: MQTTClient, _ recorder: ClientRecorder, probeTopic: String? = nil
) async throws
    -> Bool
{
    client.start()
    guard await waitUntil({ client.state.isConnected }) else { return false }
    guard let probeTopic else { return true }
    let marker = "probe-\(UUID().uuidString)"
    try client.publish(topic: probeTopic, string: marker, qos: .atLeastOnce)
    return await waitUntil { recorder.messages.contains { $0.payloadString == marker } }
}

/// Runs `body` with a started private broker and two clients of it (not started yet); stops
/// all three when `body` returns or throws.
@MainActor
func withBrokerAndTwoClients(
    _ body: (MosquittoBroker, (MQTTClient, ClientRecorder), (MQTTClient, ClientRecorder)) async throws -> Void
) async throws {
    let broker = try MosquittoBroker()
    try await broker.start()
    defer { broker.stop() }
    let first = try makeClient(url: broker.url)
    let second = try makeClient(url: broker.url)
    defer {
        first.0.stop()
        second.0.stop()
    }
    try await body(broker, first, second)
}
