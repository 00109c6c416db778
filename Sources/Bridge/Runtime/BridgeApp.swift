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

/// The `boardbridge run` process: one ``BoardSession`` per configured board over a
/// BlueZ transport, one MQTT client, Home Assistant discovery, signals and systemd.
///
/// Everything runs on the main actor (the one event loop, driven by `dispatchMain()`).
/// Shutdown (SIGTERM/SIGINT) publishes `offline`, saves every game, closes the board
/// links and flushes MQTT within ``shutdownDeadline``; a second signal ends at once.
@MainActor
public final class BridgeApp {
    /// How long a graceful shutdown may take before the process exits anyway.
    public static let shutdownDeadline: TimeInterval = 10

    let configuration: BridgeConfiguration
    let logger: Logger
    let topics: Topics
    let builder: MessageBuilder
    let bridge: BridgeDescriptor
    let discovery: HomeAssistantDiscovery?
    private let parser: CommandParser
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
    let publisher: MQTTPublisher
    let manager: BlueZManager
    var sessions: [String: BoardSession] = [:]
    var boards: [ConfiguredBoard] = []
    var discoveryScan: BlueZDiscoverySession?
    var discoveryTimer: LoopTimer?
    /// Armed while a re-announcement to Home Assistant waits for its random delay.
    var reannounceTimer: LoopTimer?
    var transports: [String: any BridgedBoardTransport] = [:]
    private let transportFactory: BoardTransportFactory
    var watchdog: LoopTimer?
    let store: StateStore
    let stateWriter: StateWriter
    /// The health report and stall detection (`<base>/bridge/<node>/health`).
    let health: HealthMonitor
    var isStopping = false
    private var announcedReady = false
    /// What an earlier run left on the broker, cleaned up on the first connection.
    var startupCleanup: StartupCleanup?
    /// Rate-limits the answers to and log lines about refused commands, per board.
    private let refusals: RefusalReporter
    /// Other bridges' info, compared with this one's (duplicate boards or node).
    var peers: BridgePeerWatch
    /// Proves at every connection that the broker delivers the command topics.
    let probe: SubscriptionProbe

    /// Prepares the bridge for `configuration` (nothing connects until ``start()``).
    public init(
        configuration: BridgeConfiguration, environment: [String: String], busAddress: String? = nil
    ) throws {
        self.configuration = configuration
        logger = Logger(
            label: "bridge", level: configuration.logging.level, format: configuration.logging.format)
        let node = configuration.node ?? Self.hostName()
        topics = try Topics(base: configuration.baseTopic, node: node)
        builder = MessageBuilder(topics: topics)
        var descriptor = BridgeDescriptor(
            topics: topics, version: BoardBridgeVersion.current, name: "BoardBridge \(node)")
        descriptor.hallURL = configuration.hall.viewURL
        bridge = descriptor
        if configuration.homeAssistant.enabled {
            var announced = try HomeAssistantDiscovery(
                prefix: configuration.homeAssistant.discoveryPrefix,
                mode: configuration.homeAssistant.deviceDiscovery ? .device : .perComponent, topics: topics)
            announced.includesHealth = true
            discovery = announced
        } else {
            discovery = nil
        }
        parser = CommandParser(maximumPayloadSize: configuration.mqtt.maxCommandBytes)
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
        publisher = MQTTPublisher(client: client, logger: mqttLogger)
        refusals = RefusalReporter(logger: logger, publisher: publisher, builder: builder)
        peers = BridgePeerWatch(
            topics: topics, instance: BridgePeerWatch.newInstanceID(),
            started: ISO8601Timestamp.string(from: Date()), boards: configuration.boards.map(\.id))
        probe = SubscriptionProbe(topics: topics)
        let probeLogger = logger
        probe.onUndelivered = { missing in
            for lost in missing {
                probeLogger.error(
                    "the broker does not deliver a command topic to the bridge: commands on it go unanswered "
                        + "(check the broker's ACL: the bridge needs to read and write it)",
                    [("filter", lost.filter), ("probe_topic", lost.topic)])
            }
        }
        probe.onDelivered = {
            probeLogger.info("the broker delivers every command topic to the bridge")
        }
        probe.onLate = { late in
            probeLogger.notice("a command topic is delivered after all (late)", [("filter", late.filter)])
        }
        probe.isConnected = { [client, commandClient] in client.state.isConnected && commandClient.isSubscribed }
        manager = BlueZManager(
            busAddress: busAddress,
            settings: BlueZManagerSettings(
                discoveryRSSI: configuration.bluetooth.scanFilter.rssi.map(Int16.init),
                discoveryUUIDs: configuration.bluetooth.scanFilter.serviceUUIDs,
                adapters: configuration.bluetooth.adapters),
            logger: logger.labelled("bluez"))
        transportFactory = BoardTransportFactory(manager: manager, bluetooth: configuration.bluetooth)
        store = try StateStore(directory: configuration.stateDirectory)
        let client = client
        let health = HealthMonitor(
            settings: configuration.health, topics: topics, publisher: publisher,
            stateDirectory: configuration.stateDirectory, clock: SessionClock(now: { Date().timeIntervalSince1970 }),
            logger: logger, broker: { client.healthFigures })
        self.health = health
        let stateLogger = logger
        stateWriter = StateWriter(
            store: store,
            onError: { name, reason in
                stateLogger.error("saved game: failed", [("board", name), ("error", reason)])
                health.saveFailed(board: name, reason: reason)
            },
            onWarning: { name, reason in
                stateLogger.warning("saved game: repaired", [("board", name), ("detail", reason)])
            })
        let adapters = configuration.bluetooth.adapters
        for (index, var board) in configuration.boards.enumerated() {
            // Boards without an adapter of their own are spread over the configured ones.
            if board.adapter == nil, board.serial == nil, adapters.count > 1 {
                board.adapter = adapters[index % adapters.count]
            }
            try addSession(for: board)
        }
    }

    @discardableResult
    func addSession(for board: ConfiguredBoard) throws -> BoardSession {
        let transport = try transportFactory.makeTransport(for: board)
        let session = BoardSession(
            board: board, transport: transport, game: configuration.game, builder: builder,
            publisher: publisher, store: stateWriter,
            clock: SessionClock(now: { Date().timeIntervalSince1970 }), logger: logger)
        // A restarted bridge continues the game a ChessUp keeps itself instead of starting it afresh.
        transport.resumeBoardSession(session.resumesBoardGame)
        transports[board.id] = transport
        sessions[board.id] = session
        health.add(session)
        boards.append(board)
        return session
    }

    /// Connects to the broker and to BlueZ, starts every board, installs signal handlers
    /// and the systemd watchdog. Returns at once; the main queue does the rest.
    public func start() {
        installSignalHandlers()
        client.onConnected = { [weak self] _ in self?.brokerConnected() }
        client.onMessage = { [weak self] message in self?.received(message) }
        client.onMessagesDropped = { [weak self] count in
            self?.logger.warning("outgoing queue full: dropped messages", [("count", String(count))])
        }
        commandClient.onConnected = { [weak self] _ in self?.logger.info("the command connection is up") }
        commandClient.onSubscribed = { [weak self] in self?.startProbe() }
        commandClient.onMessage = { [weak self] message in self?.received(message) }
        do {
            for filter in topics.subscriptions {
                try commandClient.subscribe(filter, qos: .atLeastOnce)
            }
            for filter in peers.subscriptions {
                try client.subscribe(filter, qos: .atLeastOnce)
            }
            if discovery != nil {
                try client.subscribe(configuration.homeAssistant.statusTopic, qos: .atLeastOnce)
            }
        } catch {
            logger.error("cannot subscribe", [("error", "\(error)")])
        }
        // The bridge state, info and every board's retained topics are published once the
        // broker accepts the connection (`brokerConnected`), ahead of the queue; published
        // here as well, they went out twice.
        prepareStartupCleanup()
        client.start()
        commandClient.start()
        manager.start()
        for id in sessions.keys.sorted() { startSession(id, publishingRetained: false) }
        if configuration.bluetooth.discovery { startDiscoveryMode() }
        startWatchdog()
        health.start()
        logger.notice(
            "started",
            [("version", BoardBridgeVersion.current), ("boards", String(sessions.count)), ("node", topics.node)])
        notifier.notify("READY=1\nSTATUS=bridging \(sessions.count) boards")
        announcedReady = true
    }

    func startSession(_ id: String, publishingRetained: Bool = true) {
        guard let session = sessions[id], let transport = transports[id] else { return }
        transport.observeStatus { [weak session, weak self] status in
            guard let session else { return }
            session.connectionDetail = .init(
                maxAttempts: status.maxAttempts, nextDelay: status.nextDelay, lastError: status.lastError,
                adapter: status.adapter, address: status.deviceAddress)
            self?.health.transportChanged(board: id, to: status.state)
            session.transportStateChanged()
        }
        session.identityObserver = { [weak self] in self?.boardIdentityChanged(id) }
        session.start()
        if publishingRetained { session.publishRetained() }
        transport.start()
    }

    // MARK: MQTT

    private func brokerConnected() {
        logger.info("connected to the broker")
        // Retained state is re-published on every connection (the broker may have lost it).
        publisher.publish(builder.bridgeState(online: true))
        publishInfo()
        for session in sessions.values { session.publishRetained() }
        runStartupCleanup()
        health.publishReport()
        publishDiscovery()
        startProbe()
    }

    /// Probes the command filters once both connections are up (again) and the broker has
    /// acknowledged the command connection's subscriptions: the probes go out on the
    /// publishing connection and come back on the command connection. Across two connections
    /// a probe sent before the SUBACK could overtake the SUBSCRIBE and be reported lost.
    private func startProbe() {
        guard client.state.isConnected, commandClient.isSubscribed else { return }
        probe.start { [publisher] topic, payload in
            publisher.publish(OutgoingMessage(topic: topic, payload: payload, retain: false))
        }
    }

    func publishInfo() {
        let descriptors = boards.map(descriptor)
        publisher.publish(
            builder.bridgeInfo(bridge: bridge, boards: descriptors, config: configuration.redactedValue, peers: peers))
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
        reportConflicts(peers.receive(topic: message.topic, payload: message.payload))
        for resolved in before where !peers.conflicts.contains(resolved) {
            logger.notice("conflict with another bridge resolved", [("problem", resolved.description)])
        }
        if peers.conflicts != before || (newcomer && !peers.isUnknownPeer(message.topic)) { publishInfo() }
    }

    func reportConflicts(_ conflicts: [BridgeConflict]) {
        for conflict in conflicts {
            logger.error("conflict with another bridge", [("problem", conflict.description)])
        }
    }

    func descriptor(_ board: ConfiguredBoard) -> BoardDescriptor {
        var descriptor = BoardDescriptor(
            id: board.id, name: board.name, family: board.family, model: board.model, address: board.address,
            suggestedArea: board.area, capabilities: sessions[board.id]?.capabilities)
        descriptor.serialNumber = sessions[board.id]?.identity.serialNumber
        descriptor.firmwareVersion = sessions[board.id]?.identity.version
        return descriptor
    }

    /// A board reported its serial number or version: info and its device card show it.
    private func boardIdentityChanged(_ id: String) {
        publishInfo()
        guard let discovery, let board = boards.first(where: { $0.id == id }) else { return }
        for message in discovery.discoveryMessages(for: descriptor(board), bridge: bridge) {
            publisher.publish(message)
        }
    }

    private func received(_ message: MQTTMessage) {
        if probe.consume(topic: message.topic, payload: message.payload) { return }
        if discovery != nil, message.topic == configuration.homeAssistant.statusTopic {
            if HomeAssistantDiscovery.isOnline(statusPayload: message.payload) { scheduleReannouncement() }
            return
        }
        if peers.isInfoTopic(message.topic) { return peerInfo(message) }
        let target = ResponseTarget(
            responseTopic: message.properties.responseTopic, correlationData: message.properties.correlationData)
        switch topics.parse(message.topic) {
        case .boardCommand(let board, let name):
            handleCommand(board: board, name: name, payload: message.payload, target: target)
        case .bridgeRequest(let op):
            handleRequest(op: op, payload: message.payload, target: target)
        case nil:
            logger.debug("ignored message", [("topic", message.topic)])
        }
    }

    private func handleCommand(board id: String, name: String?, payload: [UInt8], target: ResponseTarget) {
        guard let session = sessions[id] else {
            if let owner = peers.owner(of: id) {
                // Another host's board on a shared broker: its bridge (or, while that host
                // is offline, the hall) answers; an "unknown board" from here would be wrong.
                logger.debug("command for another node's board", [("board", id), ("node", owner)])
                return
            }
            let parsed = parser.parse(payload, name: name)
            let error = CommandError.unknownBoard(id)
            guard refusals.admit(RefusalReporter.unknownBoardKey, board: id, error: error.description) else { return }
            publisher.publish(
                builder.boardResponse(board: id, .error(error, transaction: parsed.transaction), target: target))
            return
        }
        let parsed = parser.parse(payload, name: name, rawAllowed: session.board.allowRawCommands)
        let response: ResponsePayload
        switch parsed.result {
        case .failure(let error):
            guard refusals.admit(id, board: id, error: error.description) else { return }
            response = .error(error, transaction: parsed.transaction)
        case .success(let command):
            switch session.execute(command) {
            case .success(let data):
                // Successes are answered only to those who asked for an answer.
                guard parsed.transaction != nil || target.responseTopic != nil else { return }
                response = .ok(data: data, transaction: parsed.transaction)
            case .failure(let failure):
                guard refusals.admit(id, board: id, error: failure.description) else { return }
                response = .error(message: failure.description, transaction: parsed.transaction)
            }
        }
        publisher.publish(builder.boardResponse(board: id, response, target: target))
    }

    private func handleRequest(op: String, payload: [UInt8], target: ResponseTarget) {
        let response = requests.answer(op: op, parser.parseRequest(payload))
        if response.status == .error,
            !refusals.admit(RefusalReporter.bridgeRequestKey, board: nil, error: response.error ?? "")
        {
            return
        }
        publisher.publish(builder.bridgeResponse(op: op, response, target: target))
    }

    /// The bridge requests' answers over this bridge's sessions, transports and health.
    var requests: BridgeRequests {
        BridgeRequests(
            node: topics.node, boardIDs: { self.sessions.keys.sorted() },
            boardState: { self.sessions[$0]?.statePayload.json }, healthReport: { self.health.publishReport().json },
            reconnect: { id in
                guard let transport = self.transports[id] else { return false }
                transport.disconnect()
                transport.start()
                return true
            },
            restart: {
                self.logger.notice("restart requested")
                // After this request's answer is published (the task runs after it).
                Task { await self.shutdown(restarting: true) }
            })
    }

    static func hostName() -> String {
        guard let name = try? Host.name() else { return "boardbridge" }
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return safe.isEmpty ? "boardbridge" : String(safe)
    }
}
