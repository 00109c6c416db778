import Contract
import MQTT

/// One concern of the bridge on the broker (board commands, bridge requests, Home Assistant
/// discovery, health, availability, the saved games, the subscription probe, boards found by
/// scanning), as zigbee2mqtt's extensions are: each is a type of its own with its own tests;
/// ``BridgeApp`` only wires them and hands every one the bridge's moments in turn.
///
/// Every requirement has a default that does nothing, so a handler states only what it
/// takes part in.
@MainActor
protocol BridgeHandler: AnyObject {
    /// The topic filters this handler reads, and on which connection.
    var subscriptions: [BridgeSubscription] { get }
    /// The bridge starts (before any connection): timers and scans begin.
    func start()
    /// The broker accepted the publishing connection (again): what is retained goes out anew
    /// (the broker may have lost it).
    func brokerConnected()
    /// A message from the broker; `true` when it was this handler's (no later handler sees it).
    func receive(_ message: MQTTMessage) -> Bool
    /// A board joined the bridge after the start (`bluetooth.discovery`).
    func boardAdded(_ id: String)
    /// A board reported its serial number or firmware version.
    func boardIdentityChanged(_ id: String)
    /// The bridge shuts down (the boards' sessions have stopped): timers end, last words
    /// are published.
    func stop()
}

extension BridgeHandler {
    var subscriptions: [BridgeSubscription] { [] }
    func start() {}
    func brokerConnected() {}
    func receive(_ message: MQTTMessage) -> Bool { false }
    func boardAdded(_ id: String) {}
    func boardIdentityChanged(_ id: String) {}
    func stop() {}
}

/// A topic filter a ``BridgeHandler`` reads.
struct BridgeSubscription: Equatable, Sendable {
    /// The two broker connections of a bridge.
    enum Connection: Sendable {
        /// The connection the bridge publishes on (its last will is `offline`).
        case publishing
        /// The connection that only reads commands and requests, so that a flood of them
        /// queues there and not ahead of the publishing connection's acknowledgements.
        case commands
    }

    /// The filter (`<base>/+/set`).
    var filter: String
    /// The connection that subscribes to it.
    var connection: Connection
}

extension ResponseTarget {
    /// Where the answer to `message` goes (its MQTT 5 response topic and correlation data).
    init(_ message: MQTTMessage) {
        self.init(
            responseTopic: message.properties.responseTopic, correlationData: message.properties.correlationData)
    }
}
