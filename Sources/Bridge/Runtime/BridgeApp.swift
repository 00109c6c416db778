import Adapters
import BlueZ
import BoardKit
import Config
import Dispatch
import JSON
import Logging
import MQTT
import SystemCalls

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    private let configuration: BridgeConfiguration
    private let logger: Logger
    private let topics: Topics
    private let builder: MessageBuilder
    private let bridge: BridgeDescriptor
    private let discovery: HomeAssistantDiscovery?
    private let parser: CommandParser
    private let notifier: SystemdNotifier
    private let client: MQTTClient
    private let publisher: MQTTPublisher
    private let manager: BlueZManager
    private var sessions: [String: BoardSession] = [:]
    private var boards: [BoardConfiguration] = []
    private var discoveryScan: BlueZDiscoverySession?
    private var discoveryTimer: DispatchSourceTimer?
    /// Armed while a re-announcement to Home Assistant waits for its random delay.
    private var reannounceTimer: DispatchSourceTimer?
    private var transports: [String: BlueZBoardTransport] = [:]
    private var signalSources: [any DispatchSourceSignal] = []
    private var watchdog: DispatchSourceTimer?
    private let store: StateStore
    private let stateWriter: StateWriter
    private var isStopping = false
    private var announcedReady = false
    /// Rate-limits the answers to and log lines about refused commands, per board.
    private let refusals: RefusalReporter

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
        bridge = BridgeDescriptor(topics: topics, version: BoardBridgeVersion.current, name: "BoardBridge \(node)")
        if configuration.homeAssistant.enabled {
            discovery = try HomeAssistantDiscovery(
                prefix: configuration.homeAssistant.discoveryPrefix,
                mode: configuration.homeAssistant.deviceDiscovery ? .device : .perComponent, topics: topics)
        } else {
            discovery = nil
        }
        parser = CommandParser(maximumPayloadSize: configuration.mqtt.maxCommandBytes)
        notifier = SystemdNotifier(environment: environment)
        let clientID = configuration.mqtt.clientID ?? "boardbridge-\(node)"
        let mqttLogger = logger.labelled("mqtt")
        client = try MQTTClient(
            configuration: configuration.mqtt.clientConfiguration(
                clientID: clientID, will: builder.bridgeState(online: false)),
            logHandler: { level, message in mqttLogger.log(level, message) })
        publisher = MQTTPublisher(client: client, logger: mqttLogger)
        refusals = RefusalReporter(logger: logger, publisher: publisher, builder: builder)
        manager = BlueZManager(
            busAddress: busAddress,
            settings: BlueZManagerSettings(
                discoveryRSSI: configuration.bluetooth.scanFilter.rssi.map(Int16.init),
                discoveryUUIDs: configuration.bluetooth.scanFilter.serviceUUIDs,
                adapters: configuration.bluetooth.adapters),
            logger: logger.labelled("bluez"))
        store = try StateStore(directory: configuration.stateDirectory)
        let stateLogger = logger
        stateWriter = StateWriter(
            store: store,
            onError: { name, reason in
                stateLogger.error("saved game: failed", [("board", name), ("error", reason)])
            },
            onWarning: { name, reason in
                stateLogger.warning("saved game: repaired", [("board", name), ("detail", reason)])
            })
        let adapters = configuration.bluetooth.adapters
        for (index, var board) in configuration.boards.enumerated() {
            // Boards without an adapter of their own are spread over the configured ones.
            if board.adapter == nil, adapters.count > 1 { board.adapter = adapters[index % adapters.count] }
            try addSession(for: board)
        }
    }

    @discardableResult
    private func addSession(for board: BoardConfiguration) throws -> BoardSession {
        let transport = try makeTransport(for: board)
        let session = BoardSession(
            board: board, transport: transport, game: configuration.game, builder: builder,
            publisher: publisher, store: stateWriter,
            clock: SessionClock(now: { Date().timeIntervalSince1970 }), logger: logger)
        // A restarted bridge continues the game a ChessUp keeps itself instead of starting it afresh.
        transport.resumesBoardSession = session.resumesBoardGame
        transports[board.id] = transport
        sessions[board.id] = session
        boards.append(board)
        return session
    }

    private func makeTransport(for board: BoardConfiguration) throws -> BlueZBoardTransport {
        let key = board.developerKeyBytes().map { Data($0) }
        return try BlueZBoardTransport(
            manager: manager, family: board.family, match: board.match, adapter: board.adapter,
            policy: board.reconnect, options: AdapterOptions(developerKey: key),
            settings: BlueZTransportSettings(
                connectTimeout: configuration.bluetooth.connectTimeout,
                notifyMethod: configuration.bluetooth.notifyMethod == .startNotify ? .startNotify : .acquireNotify),
            label: board.id)
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
        do {
            for filter in topics.subscriptions { try client.subscribe(filter, qos: .atLeastOnce) }
            if discovery != nil {
                try client.subscribe(configuration.homeAssistant.statusTopic, qos: .atLeastOnce)
            }
        } catch {
            logger.error("cannot subscribe", [("error", "\(error)")])
        }
        // The bridge state, info and every board's retained topics are published once the
        // broker accepts the connection (`brokerConnected`), ahead of the queue; published
        // here as well, they went out twice.
        removeDepartedBoards()
        client.start()
        manager.start()
        for id in sessions.keys.sorted() { startSession(id, publishingRetained: false) }
        if configuration.bluetooth.discovery { startDiscoveryMode() }
        startWatchdog()
        logger.notice(
            "started",
            [("version", BoardBridgeVersion.current), ("boards", String(sessions.count)), ("node", topics.node)])
        notifier.notify("READY=1\nSTATUS=bridging \(sessions.count) boards")
        announcedReady = true
    }

    private func startSession(_ id: String, publishingRetained: Bool = true) {
        guard let session = sessions[id], let transport = transports[id] else { return }
        transport.onStatusChange = { [weak session] status in
            guard let session else { return }
            session.connectionDetail = .init(
                maxAttempts: status.maxAttempts, nextDelay: status.nextDelay, lastError: status.lastError,
                adapter: status.adapter, address: status.deviceAddress)
            session.transportStateChanged()
        }
        session.start()
        if publishingRetained { session.publishRetained() }
        transport.start()
    }

    // MARK: Discovery mode

    /// `bluetooth.discovery`: keeps scanning and bridges every board of a known family
    /// that no configured board claims, with an id derived from its address
    /// (`chessnut-aabbcc000001`).
    private func startDiscoveryMode() {
        discoveryScan = manager.startDiscovery()
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + 2, repeating: 5)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.adoptDiscoveredBoards() }
        }
        source.resume()
        discoveryTimer = source
    }

    private func adoptDiscoveredBoards() {
        let claimed = Set(boards.compactMap(\.address).map { $0.uppercased() })
        for found in manager.discoveredBoards {
            guard let family = found.family, !claimed.contains(found.address.uppercased()) else { continue }
            let id = family.rawValue + "-" + found.address.lowercased().filter { $0 != ":" }
            guard sessions[id] == nil else { continue }
            let board = BoardConfiguration(
                id: id, name: found.device.name, match: .address(found.address.uppercased()), family: family,
                adapter: found.adapter, orientation: .auto, reconnect: configuration.reconnect)
            do {
                try addSession(for: board)
                logger.notice("bridging a discovered board", [("board", id), ("name", found.device.name)])
                startSession(id)
                publishInfo()
                if let discovery {
                    for message in discovery.discoveryMessages(for: descriptor(board), bridge: bridge) {
                        publisher.publish(message)
                    }
                }
            } catch {
                logger.warning("cannot bridge a discovered board", [("board", id), ("error", "\(error)")])
            }
        }
    }

    // MARK: MQTT

    private func brokerConnected() {
        logger.info("connected to the broker")
        // Retained state is re-published on every connection (the broker may have lost it).
        publisher.publish(builder.bridgeState(online: true))
        publishInfo()
        for session in sessions.values { session.publishRetained() }
        publishDiscovery()
    }

    private func publishInfo() {
        let descriptors = boards.map(descriptor)
        publisher.publish(
            builder.bridgeInfo(bridge: bridge, boards: descriptors, config: configuration.redactedValue))
    }

    private func descriptor(_ board: BoardConfiguration) -> BoardDescriptor {
        BoardDescriptor(
            id: board.id, name: board.name, family: board.family, model: board.model, address: board.address,
            suggestedArea: board.area, capabilities: sessions[board.id]?.capabilities)
    }

    private func publishDiscovery() {
        guard let discovery else { return }
        for message in discovery.bridgeDiscoveryMessages(bridge) { publisher.publish(message) }
        for board in boards {
            for message in discovery.discoveryMessages(for: descriptor(board), bridge: bridge) {
                publisher.publish(message)
            }
        }
    }

    /// Clears the retained topics and discovery of boards announced by an earlier run
    /// that are no longer configured, then remembers the boards announced now.
    private func removeDepartedBoards() {
        let fileName = "announced"
        let current = configuration.boards.map(\.id)
        var previous: [String] = []
        if let data = try? store.read(fileName), let ids = try? JSONDecoder().decode([String].self, from: data) {
            previous = ids
        }
        for id in previous where !current.contains(id) {
            logger.notice("board left the configuration: clearing its topics", [("board", id)])
            for message in builder.boardRemoval(board: id) { publisher.publish(message) }
            if let discovery {
                let gone = BoardDescriptor(id: id, family: .chessnut)
                for message in discovery.removalMessages(for: gone, bridge: bridge) { publisher.publish(message) }
            }
        }
        do {
            try store.write(try JSONEncoder().encode(current), as: fileName)
        } catch {
            logger.warning("cannot remember the announced boards", [("error", "\(error)")])
        }
    }

    /// Sends discovery and every board's retained state again after a random delay; further
    /// `online` messages meanwhile are covered by the one pending.
    private func scheduleReannouncement() {
        guard reannounceTimer == nil else { return }
        let delay = Double.random(in: HomeAssistantDiscovery.reannounceDelay)
        logger.info(
            "Home Assistant is online: announcing the boards again",
            [("in_seconds", String((delay * 10).rounded() / 10))])
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + delay)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.reannounceTimer?.cancel()
                self.reannounceTimer = nil
                self.publishDiscovery()
                for session in self.sessions.values { session.publishRetained() }
            }
        }
        source.resume()
        reannounceTimer = source
    }

    private func received(_ message: MQTTMessage) {
        if discovery != nil, message.topic == configuration.homeAssistant.statusTopic {
            if HomeAssistantDiscovery.isOnline(statusPayload: message.payload) { scheduleReannouncement() }
            return
        }
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
        let parsed = parser.parseRequest(payload)
        let response: ResponsePayload
        switch (parsed.result, op) {
        case (.failure(let error), _):
            response = .error(error, transaction: parsed.transaction)
        case (.success, "info"):
            response = .ok(
                data: [
                    "version": .string(BoardBridgeVersion.current), "node": .string(topics.node),
                    "boards": .array(sessions.keys.sorted().map { .string($0) }),
                ], transaction: parsed.transaction)
        case (.success, "boards"):
            let boards = sessions.keys.sorted().compactMap { sessions[$0]?.statePayload.json }
            response = .ok(data: .array(boards), transaction: parsed.transaction)
        case (.success(let members), "reconnect"):
            guard let id = members["board"]?.stringValue, let transport = transports[id] else {
                response = .error(message: "reconnect needs an existing \"board\"", transaction: parsed.transaction)
                break
            }
            transport.disconnect()
            transport.start()
            response = .ok(data: ["board": .string(id)], transaction: parsed.transaction)
        case (.success, _):
            response = .error(
                message: "unknown request \"\(op)\", expected one of info, boards, reconnect",
                transaction: parsed.transaction)
        }
        if response.status == .error,
            !refusals.admit(RefusalReporter.bridgeRequestKey, board: nil, error: response.error ?? "")
        {
            return
        }
        publisher.publish(builder.bridgeResponse(op: op, response, target: target))
    }

    // MARK: Signals, watchdog, shutdown

    private func installSignalHandlers() {
        for signalNumber in [ProcessControl.terminateSignal, ProcessControl.interruptSignal] {
            ProcessControl.ignore(signal: signalNumber)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in
                MainActor.assumeIsolated { self?.signalled(signalNumber) }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    private func signalled(_ signalNumber: Int32) {
        guard !isStopping else {
            logger.warning("second signal: exiting now")
            ProcessControl.exit(1)
        }
        logger.notice("shutting down", [("signal", String(signalNumber))])
        Task { await shutdown() }
    }

    private func startWatchdog() {
        guard let interval = notifier.watchdogInterval else { return }
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + interval / 2, repeating: interval / 2)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { _ = self?.notifier.notify("WATCHDOG=1") }
        }
        source.resume()
        watchdog = source
    }

    /// Publishes `offline`, saves the games, closes the links and flushes MQTT, then exits.
    public func shutdown() async {
        guard !isStopping else { return }
        isStopping = true
        notifier.notify("STOPPING=1")
        let deadline = DispatchSource.makeTimerSource(queue: .main)
        deadline.schedule(deadline: .now() + Self.shutdownDeadline)
        let logger = logger
        deadline.setEventHandler {
            logger.error("shutdown deadline passed, exiting")
            ProcessControl.exit(1)
        }
        deadline.resume()
        for (id, session) in sessions {
            session.stop()
            publisher.publish(builder.availability(board: id, online: false))
        }
        publisher.publish(builder.bridgeState(online: false))
        discoveryTimer?.cancel()
        reannounceTimer?.cancel()
        reannounceTimer = nil
        discoveryScan?.stop()
        for transport in transports.values { await transport.close() }
        manager.stop()
        _ = await client.flush(timeout: .seconds(3))
        client.stop()
        stateWriter.flush()
        logger.notice("stopped")
        ProcessControl.exit(0)
    }

    private static func hostName() -> String {
        guard let name = try? Host.name() else { return "boardbridge" }
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return safe.isEmpty ? "boardbridge" : String(safe)
    }
}
