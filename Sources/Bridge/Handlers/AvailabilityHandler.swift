import Contract
import FoundationEssentials
import JSON
import Logging
import MQTT
import MainLoop

/// What this bridge is on the broker: its `online`/`offline` state (the publishing
/// connection's last will says `offline`), its retained info (version, boards, redacted
/// configuration, conflicts with other bridges), every board's retained topics on each
/// connection, and at the first connection the clean-up of what an earlier run left
/// (``StartupCleanup``). Other bridges' info is read to find boards or a node bridged twice
/// (``BridgePeerWatch``); a bridge that has just appeared is sent this one's info again.
@MainActor
final class AvailabilityHandler: BridgeHandler {
    private let builder: MessageBuilder
    private let bridge: BridgeDescriptor
    /// The configuration as info shows it (secrets redacted).
    private let configuration: JSONValue
    private let discovery: HomeAssistantDiscovery?
    private let boards: any BoardDirectory
    private let publisher: any MessagePublishing
    private let store: StateStore
    private let logger: Logger
    /// Other bridges' info, compared with this one's (duplicate boards or node).
    private(set) var peers: BridgePeerWatch
    /// What an earlier run left on the broker, cleaned up on the first connection.
    private var startupCleanup: StartupCleanup?
    /// Seconds between the clean-up's withdrawals and its clears (``StartupCleanup/delay``).
    private let cleanupDelay: Double

    init(
        bridge: BridgeDescriptor, configuration: JSONValue, discovery: HomeAssistantDiscovery?,
        boards: any BoardDirectory, publisher: any MessagePublishing, store: StateStore, logger: Logger,
        cleanupDelay: Double = StartupCleanup.delay
    ) {
        self.cleanupDelay = cleanupDelay
        builder = MessageBuilder(topics: bridge.topics)
        self.bridge = bridge
        self.configuration = configuration
        self.discovery = discovery
        self.boards = boards
        self.publisher = publisher
        self.store = store
        self.logger = logger
        peers = BridgePeerWatch(
            topics: bridge.topics, instance: BridgePeerWatch.newInstanceID(),
            started: ISO8601Timestamp.string(from: Date()), boards: boards.ids)
    }

    var subscriptions: [BridgeSubscription] {
        peers.subscriptions.map { BridgeSubscription(filter: $0, connection: .publishing) }
    }

    /// Reads what an earlier run announced and prepares its clean-up.
    func start() {
        let data: Data?
        do {
            data = try store.read(AnnouncedRecord.fileName)
        } catch {
            logger.warning("cannot read the announced boards", [("error", "\(error)")])
            data = nil
        }
        let cleanup = StartupCleanup(
            previous: data.flatMap(AnnouncedRecord.decode), boards: boards.descriptors, bridge: bridge,
            discovery: discovery, builder: builder)
        for id in cleanup.departed {
            logger.notice("board left the configuration: clearing its topics", [("board", id)])
        }
        startupCleanup = cleanup
    }

    func brokerConnected() {
        publisher.publish(builder.bridgeState(online: true))
        publishInfo()
        boards.publishRetained()
        runStartupCleanup()
    }

    func receive(_ message: MQTTMessage) -> Bool {
        guard peers.isInfoTopic(message.topic) else { return false }
        peerInfo(message)
        return true
    }

    func boardAdded(_ id: String) {
        report(peers.setOwnBoards(boards.ids))
        publishInfo()
    }

    func boardIdentityChanged(_ id: String) { publishInfo() }

    /// Every board and the bridge go `offline`.
    func stop() {
        for id in boards.ids { publisher.publish(builder.availability(board: id, online: false)) }
        publisher.publish(builder.bridgeState(online: false))
    }

    private func publishInfo() {
        publisher.publish(
            builder.bridgeInfo(bridge: bridge, boards: boards.descriptors, config: configuration, peers: peers))
    }

    /// Another node's (or this node's) retained info: a new or resolved conflict is
    /// logged and published in this bridge's info.
    ///
    /// A bridge that has just started (its info arrives live, not as a retained message,
    /// from a node this bridge had no list of) may never have been given this bridge's
    /// retained info: an ejabberd cluster hands a late subscriber only the retained
    /// messages published through its own node. This bridge's info is published again, so
    /// the newcomer learns this bridge's boards live (and stays silent on their commands).
    private func peerInfo(_ message: MQTTMessage) {
        let before = peers.conflicts
        let newcomer = !message.retain && peers.isUnknownPeer(message.topic)
        report(peers.receive(topic: message.topic, payload: message.payload))
        for resolved in before where !peers.conflicts.contains(resolved) {
            logger.notice("conflict with another bridge resolved", [("problem", resolved.description)])
        }
        if peers.conflicts != before || (newcomer && !peers.isUnknownPeer(message.topic)) { publishInfo() }
    }

    private func report(_ conflicts: [BridgeConflict]) {
        for conflict in conflicts {
            logger.error("conflict with another bridge", [("problem", conflict.description)])
        }
    }

    /// On the first connection: withdraws stale discovery at once, clears the departed
    /// boards' retained topics a moment later, then remembers what this run announces.
    private func runStartupCleanup() {
        guard let cleanup = startupCleanup else { return }
        startupCleanup = nil
        for message in cleanup.withdrawals { publisher.publish(message) }
        let finish = { [weak self] in
            guard let self else { return }
            for message in cleanup.clears { self.publisher.publish(message) }
            do {
                try self.store.write(try JSONEncoder().encode(cleanup.record), as: AnnouncedRecord.fileName)
            } catch {
                self.logger.warning("cannot remember the announced boards", [("error", "\(error)")])
            }
        }
        guard !cleanup.clears.isEmpty else { return finish() }
        MainLoop.after(cleanupDelay) { finish() }
    }
}
