import Contract
import JSON
import Logging
import MQTT
import MainLoop

/// Proves, after every connection to the broker, that the broker delivers what the bridge
/// subscribed to: one message on a topic of each command filter (`<base>/bridge/set`,
/// `<base>/bridge/set/probe`, `<base>/bridge/<node>/request/probe`, payload
/// `{"probe":"<node>/<n>"}`) must come back within ``timeout``.
///
/// A broker grants a subscription that its ACL will never feed (mosquitto answers the
/// SUBACK with the QoS asked for, then drops every message the client may not read), and
/// denies a publish without a word under MQTT 3.1.1: commands then went unanswered and
/// nothing said why. A probe that does not come back is logged as an error naming the
/// filter. `bridge` is no board id, so these topics command no board; every bridge on the
/// broker takes any probe on them for one and stays silent.
///
/// As a ``BridgeHandler`` it probes at every connection once ``isConnected`` says both
/// connections are up and the command connection's subscriptions are acknowledged (across
/// two connections a probe sent before the SUBACK could overtake the SUBSCRIBE and be
/// reported lost), and takes every probe before the command handler could answer it.
@MainActor
final class SubscriptionProbe: BridgeHandler {
    /// A command filter and the topic its probe goes to.
    struct Probe: Equatable {
        /// The subscription (`<base>/+/set`).
        var filter: String
        /// A topic it matches (`<base>/bridge/set`).
        var topic: String
    }

    /// How long a probe may take to come back.
    let timeout: Double
    /// The probes, one per command filter.
    let probes: [Probe]
    /// Called with the probes that did not come back in time (logged as an error).
    var onUndelivered: ([Probe]) -> Void
    /// Called with a probe that came back after it was reported missing (a slow broker).
    var onLate: (Probe) -> Void
    /// Called once every probe of a connection came back in time.
    var onDelivered: () -> Void
    /// Whether both broker connections are up and the command connection's subscriptions
    /// acknowledged (a probe lost with its connection is no finding).
    var isConnected: (() -> Bool)?

    private let publisher: any MessagePublishing
    private let node: String
    private var round = 0
    private var outstanding: [Probe] = []
    private var overdue: [Probe] = []
    private var timer: LoopTimer?

    /// The probes of `topics`' command subscriptions, published through `publisher`; what
    /// they find is logged to `logger`.
    init(topics: Topics, publisher: any MessagePublishing, logger: Logger, timeout: Double = 10) {
        self.timeout = timeout
        self.publisher = publisher
        node = topics.node
        probes = topics.subscriptions.map { Probe(filter: $0, topic: Self.topic(matching: $0)) }
        onUndelivered = { missing in
            for lost in missing {
                logger.error(
                    "the broker does not deliver a command topic to the bridge: commands on it go unanswered "
                        + "(check the broker's ACL: the bridge needs to read and write it)",
                    [("filter", lost.filter), ("probe_topic", lost.topic)])
            }
        }
        onDelivered = { logger.info("the broker delivers every command topic to the bridge") }
        onLate = { late in logger.notice("a command topic is delivered after all (late)", [("filter", late.filter)]) }
    }

    /// Probes once both connections are up (again): called at each connection of either.
    func brokerConnected() {
        guard isConnected?() ?? true else { return }
        send()
    }

    func receive(_ message: MQTTMessage) -> Bool { consume(topic: message.topic, payload: message.payload) }

    func stop() { cancel() }

    /// A topic `filter` matches that commands no board: its first `+` is `bridge`, any
    /// other wildcard `probe`.
    static func topic(matching filter: String) -> String {
        var seenWildcard = false
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false).map { level -> String in
            guard level == "+" || level == "#" else { return String(level) }
            defer { seenWildcard = true }
            return level == "+" && !seenWildcard ? Topics.bridgeLevel : "probe"
        }
        return levels.joined(separator: "/")
    }

    /// Sends a fresh probe on every topic and waits for them; a probe of an earlier
    /// connection no longer counts.
    func send() {
        round += 1
        outstanding = probes
        overdue = []
        let payload = Array((["probe": .string(token)] as JSONValue).encodedString().utf8)
        for probe in probes { publisher.publish(OutgoingMessage(topic: probe.topic, payload: payload, retain: false)) }
        timer?.cancel()
        timer = MainLoop.after(timeout) { [weak self] in self?.expired() }
    }

    /// Stops waiting (the bridge stops).
    func cancel() {
        timer?.cancel()
        timer = nil
        outstanding = []
        overdue = []
    }

    /// Whether `payload` on `topic` is a probe (this bridge's or another's): the caller
    /// handles it no further.
    func consume(topic: String, payload: [UInt8]) -> Bool {
        guard probes.contains(where: { $0.topic == topic }),
            let object = (try? JSONValue(parsing: payload))?.objectValue, object.count == 1,
            let value = object["probe"]?.stringValue
        else { return false }
        if value == token {
            outstanding.removeAll { $0.topic == topic }
            if let index = overdue.firstIndex(where: { $0.topic == topic }) { onLate(overdue.remove(at: index)) }
        }
        if outstanding.isEmpty, timer != nil {
            timer?.cancel()
            timer = nil
            if overdue.isEmpty { onDelivered() }
        }
        return true
    }

    /// Whether a round of probes is waiting for its probes.
    var isWaiting: Bool { timer != nil }

    private var token: String { "\(node)/\(round)" }

    private func expired() {
        timer = nil
        // A connection that ended meanwhile says nothing: the next one probes again.
        guard !outstanding.isEmpty, isConnected?() ?? true else { return }
        overdue = outstanding
        outstanding = []
        onUndelivered(overdue)
    }
}
