import Adapters
import BlueZ
import BoardKit
public import Config
import Contract
public import FoundationEssentials
import JSON
import Logging
import MQTT
import MainLoop
import SystemCalls

/// The `boardbridge run` process: the bridged boards (``BridgeBoards``, a ``BoardSession``
/// each over its transport), two broker connections, BlueZ, and one ``BridgeHandler`` per
/// concern — availability, health, Home Assistant discovery, the subscription probe, board
/// commands, bridge requests, the saved games, boards found by scanning. The app only wires
/// them: it subscribes to what they read, hands each incoming message to them in turn, and
/// tells every one when the broker connects, a board joins or reports who it is, and when the
/// bridge stops.
///
/// Everything runs on the main actor (the one event loop, ``MainLoop``). Shutdown
/// (SIGTERM/SIGINT) publishes `offline`, saves every game, closes the board links and
/// flushes MQTT within ``shutdownDeadline``; a second signal ends at once.
@MainActor
public final class BridgeApp {
    /// How long a graceful shutdown may take before the process exits anyway.
    public static let shutdownDeadline: TimeInterval = 10

    let logger: Logger
    /// This bridge's node name (`<base>/bridge/<node>`).
    let node: String
    let notifier: SystemdNotifier
    /// The broker connection the bridge publishes on (its last will is the bridge's
    /// `offline`); it also reads the other bridges' info and Home Assistant's status.
    let client: MQTTClient
    /// A second connection that only reads commands and requests (client id
    /// `<client_id>-commands`): the broker queues a flood of commands on it, not ahead of
    /// the acknowledgements the publishing connection waits for. On one connection, a flood
    /// of large commands on one board held every PUBACK behind it, the broker's in-flight
    /// window (20) filled, and every board's moves came out up to 40 s late (#29).
    let commandClient: MQTTClient
    let manager: BlueZManager
    let boards: BridgeBoards
    /// Every concern, in the order each is offered an incoming message (the probe before the
    /// command handler, whose topics its probes use).
    private(set) var handlers: [any BridgeHandler] = []
    var watchdog: LoopTimer?
    var isStopping = false

    /// Prepares the bridge for `configuration` (nothing connects until ``start()``).
    public init(
        configuration: BridgeConfiguration, environment: [String: String], busAddress: String? = nil
    ) throws {
        logger = Logger(
            label: "bridge", level: configuration.logging.level, format: configuration.logging.format)
        node = configuration.node ?? Self.hostName()
        let topics = try Topics(base: configuration.baseTopic, node: node)
        let builder = MessageBuilder(topics: topics)
        var bridge = BridgeDescriptor(
            topics: topics, version: BoardBridgeVersion.current, name: "BoardBridge \(node)")
        bridge.hallURL = configuration.hall.viewURL
        notifier = SystemdNotifier(environment: environment)
        let clientID = configuration.mqtt.clientID ?? "boardbridge-\(node)"
        let mqttLogger = logger.labelled("mqtt")
        let will = builder.bridgeState(online: false)
        client = try MQTTClient(
            configuration: configuration.mqtt.clientConfiguration(
                clientID: clientID,
                will: MQTTMessage(topic: will.topic, payload: will.payload, qos: .atLeastOnce, retain: will.retain)),
            logHandler: { level, message in mqttLogger.log(level, message) })
        let commandLogger = logger.labelled("mqtt-commands")
        commandClient = try MQTTClient(
            configuration: configuration.mqtt.clientConfiguration(clientID: clientID + "-commands", will: nil),
            logHandler: { level, message in commandLogger.log(level, message) })
        let publisher = MQTTPublisher(client: client, logger: mqttLogger)
        manager = BlueZManager(
            busAddress: busAddress,
            settings: BlueZManagerSettings(
                discoveryRSSI: configuration.bluetooth.scanFilter.rssi.map(Int16.init),
                discoveryUUIDs: configuration.bluetooth.scanFilter.serviceUUIDs,
                adapters: configuration.bluetooth.adapters),
            logger: logger.labelled("bluez"))
        let store = try StateStore(directory: configuration.stateDirectory)
        let (logger, client) = (logger, client)
        let health = HealthMonitor(
            settings: configuration.health, topics: topics, publisher: publisher,
            stateDirectory: configuration.stateDirectory, clock: .wall,
            logger: logger, broker: { client.healthFigures })
        let journal = StateWriter(
            store: store,
            onError: { name, reason in
                logger.error("saved game: failed", [("board", name), ("error", reason)])
                health.saveFailed(board: name, reason: reason)
            },
            onWarning: { name, reason in logger.warning("saved game: repaired", [("board", name), ("detail", reason)]) }
        )
        boards = BridgeBoards(
            factory: BoardTransportFactory(manager: manager, bluetooth: configuration.bluetooth),
            game: configuration.game, builder: builder, publisher: publisher, store: journal, logger: logger)
        client.onHandOff = { health.moveHandled(in: $0) }
        boards.onAdded = { health.add($0) }
        boards.onLinkState = { health.transportChanged(board: $0, to: $1) }
        let adapters = configuration.bluetooth.adapters
        for (index, var board) in configuration.boards.enumerated() {
            // Boards without an adapter of their own are spread over the configured ones.
            if board.adapter == nil, board.serial == nil, adapters.count > 1 {
                board.adapter = adapters[index % adapters.count]
            }
            try boards.add(board)
        }
        try makeHandlers(
            configuration, bridge: bridge, publisher: publisher, store: store, health: health, journal: journal)
    }

    private func makeHandlers(
        _ configuration: BridgeConfiguration, bridge: BridgeDescriptor, publisher: MQTTPublisher, store: StateStore,
        health: HealthMonitor, journal: StateWriter
    ) throws {
        let topics = bridge.topics
        var discovery: HomeAssistantDiscovery?
        if configuration.homeAssistant.enabled {
            discovery = try HomeAssistantDiscovery(
                prefix: configuration.homeAssistant.discoveryPrefix,
                mode: configuration.homeAssistant.deviceDiscovery ? .device : .perComponent, topics: topics)
            discovery?.includesHealth = true
        }
        let availability = AvailabilityHandler(
            bridge: bridge, configuration: configuration.redactedValue, discovery: discovery, boards: boards,
            publisher: publisher, store: store, logger: logger)
        let probe = SubscriptionProbe(topics: topics, publisher: publisher, logger: logger)
        probe.isConnected = { [client, commandClient] in client.state.isConnected && commandClient.isSubscribed }
        // The probe waits for the command connection's subscriptions as well.
        commandClient.onSubscribed = { [weak probe] in probe?.brokerConnected() }
        let inbox = Inbox(
            topics: topics, parser: CommandParser(maximumPayloadSize: configuration.mqtt.maxCommandBytes),
            boards: boards,
            refusals: RefusalReporter(logger: logger, publisher: publisher, builder: MessageBuilder(topics: topics)),
            publisher: publisher)
        handlers = [availability, health]
        if let discovery {
            handlers.append(
                HomeAssistantHandler(
                    discovery: discovery, bridge: bridge, statusTopic: configuration.homeAssistant.statusTopic,
                    boards: boards, publisher: publisher, logger: logger))
        }
        handlers += [
            probe,
            CommandHandler(inbox: inbox, logger: logger, otherNode: { availability.peers.owner(of: $0) }),
            RequestHandler(
                inbox: inbox, healthReport: { health.publishReport().json },
                restart: { [weak self] in
                    self?.logger.notice("restart requested")
                    // After this request's answer is published (the task runs after it).
                    Task { await self?.shutdown(restarting: true) }
                }),
            journal,
        ]
        if configuration.bluetooth.discovery {
            let adoption = BoardAdoption(
                manager: manager, boards: boards, reconnect: configuration.reconnect, logger: logger)
            adoption.onAdopted = { [weak self] id in self?.handlers.forEach { $0.boardAdded(id) } }
            handlers.append(adoption)
        }
        boards.onIdentityChanged = { [weak self] id in self?.handlers.forEach { $0.boardIdentityChanged(id) } }
    }

    /// Connects to the broker and to BlueZ, starts every board, installs signal handlers
    /// and the systemd watchdog. Returns at once; the main loop does the rest.
    public func start() {
        installSignalHandlers()
        client.onConnected = { [weak self] _ in self?.brokerConnected() }
        client.onMessage = { [weak self] message in self?.received(message) }
        client.onMessagesDropped = { [weak self] count in
            self?.logger.warning("outgoing queue full: dropped messages", [("count", String(count))])
        }
        commandClient.onConnected = { [weak self] _ in self?.logger.info("the command connection is up") }
        commandClient.onMessage = { [weak self] message in self?.received(message) }
        do {
            for subscription in handlers.flatMap(\.subscriptions) {
                let connection = subscription.connection == .commands ? commandClient : client
                try connection.subscribe(subscription.filter, qos: .atLeastOnce)
            }
        } catch {
            logger.error("cannot subscribe", [("error", "\(error)")])
        }
        for handler in handlers { handler.start() }
        // The bridge state, info and every board's retained topics are published once the
        // broker accepts the connection (`brokerConnected`), ahead of the queue; published
        // here as well, they went out twice.
        client.start()
        commandClient.start()
        manager.start()
        for id in boards.ids { boards.start(id, publishingRetained: false) }
        startWatchdog()
        logger.notice(
            "started",
            [("version", BoardBridgeVersion.current), ("boards", String(boards.count)), ("node", node)])
        notifier.notify("READY=1\nSTATUS=bridging \(boards.count) boards")
    }

    /// Every handler re-publishes what it keeps retained (the broker may have lost it).
    private func brokerConnected() {
        logger.info("connected to the broker")
        for handler in handlers { handler.brokerConnected() }
    }

    /// An incoming message goes to the first handler that takes it.
    private func received(_ message: MQTTMessage) {
        for handler in handlers where handler.receive(message) { return }
        logger.debug("ignored message", [("topic", message.topic)])
    }

    static func hostName() -> String {
        guard let name = try? Host.name() else { return "boardbridge" }
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return safe.isEmpty ? "boardbridge" : String(safe)
    }
}
