import Contract
import Logging
import MQTT
import MainLoop

/// Home Assistant discovery: the bridge's and every board's entities are announced on each
/// connection, for a board added or newly identified at once, and all of them again (with
/// every board's retained state) a random moment after Home Assistant says it is `online`
/// (further `online` messages meanwhile are covered by the one pending), so that a restarted
/// Home Assistant does not start every bridge's announcement in the same instant.
@MainActor
final class HomeAssistantHandler: BridgeHandler {
    private let discovery: HomeAssistantDiscovery
    private let bridge: BridgeDescriptor
    /// Home Assistant's birth and last-will topic (`homeassistant/status`).
    private let statusTopic: String
    private let boards: any BoardDirectory
    private let publisher: any MessagePublishing
    private let logger: Logger
    /// The range the re-announcement's delay is drawn from, in seconds.
    private let reannounceDelay: ClosedRange<Double>
    /// Armed while a re-announcement waits for its delay.
    private var reannounceTimer: LoopTimer?

    init(
        discovery: HomeAssistantDiscovery, bridge: BridgeDescriptor, statusTopic: String,
        boards: any BoardDirectory, publisher: any MessagePublishing, logger: Logger,
        reannounceDelay: ClosedRange<Double> = HomeAssistantDiscovery.reannounceDelay
    ) {
        self.discovery = discovery
        self.bridge = bridge
        self.statusTopic = statusTopic
        self.boards = boards
        self.publisher = publisher
        self.logger = logger
        self.reannounceDelay = reannounceDelay
    }

    var subscriptions: [BridgeSubscription] { [BridgeSubscription(filter: statusTopic, connection: .publishing)] }

    /// Whether a re-announcement is pending.
    var isReannouncing: Bool { reannounceTimer != nil }

    func brokerConnected() { announce() }

    func receive(_ message: MQTTMessage) -> Bool {
        guard message.topic == statusTopic else { return false }
        if HomeAssistantDiscovery.isOnline(statusPayload: message.payload) { scheduleReannouncement() }
        return true
    }

    func boardAdded(_ id: String) { announce(board: id) }

    func boardIdentityChanged(_ id: String) { announce(board: id) }

    func stop() {
        reannounceTimer?.cancel()
        reannounceTimer = nil
    }

    /// The bridge's entities and every board's.
    private func announce() {
        for message in discovery.bridgeDiscoveryMessages(bridge) { publisher.publish(message) }
        for board in boards.descriptors {
            for message in discovery.discoveryMessages(for: board, bridge: bridge) { publisher.publish(message) }
        }
    }

    /// One board's entities (its device card shows a serial number or version it reported).
    private func announce(board id: String) {
        guard let board = boards.descriptor(id) else { return }
        for message in discovery.discoveryMessages(for: board, bridge: bridge) { publisher.publish(message) }
    }

    private func scheduleReannouncement() {
        guard reannounceTimer == nil else { return }
        let delay = Double.random(in: reannounceDelay)
        logger.info(
            "Home Assistant is online: announcing the boards again",
            [("in_seconds", String((delay * 10).rounded() / 10))])
        reannounceTimer = MainLoop.after(delay) { [weak self] in
            guard let self else { return }
            self.reannounceTimer = nil
            self.announce()
            self.boards.publishRetained()
        }
    }
}
