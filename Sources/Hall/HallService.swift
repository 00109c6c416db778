public import Config
import Contract
import FoundationEssentials
public import HTTP
import JSON
public import Logging
import MQTT
import MainLoop

/// `boardbridge hall`: subscribes to the whole base topic, keeps the ``HallModel`` and serves
/// the page, `/api/boards`, `/api/boards/<id>` and the `/api/events` stream (docs/hall.md).
@MainActor
public final class HallService {
    /// The web server (its ``HTTPServer/port`` is the one listened on).
    public let server: HTTPServer
    private let client: MQTTClient
    private let logger: Logger
    private let topics: Topics
    private var model: HallModel
    private var streams: [ObjectIdentifier: HTTPEventStream] = [:]
    private var heartbeat: LoopTimer?
    private var brokerState = "connecting"
    private let router: HallRouter
    private var transactions = 0
    private var rejectionsLogged = 0
    private var offlineAnswers = RefusalLimiter(
        burst: HallService.offlineAnswerLimit, perSecond: Double(HallService.offlineAnswerLimit))
    /// Answers for commands to boards of offline hosts, at most, per second.
    static let offlineAnswerLimit = 20
    private var broadcastService: HallBroadcastService?
    /// The hall device's Home Assistant discovery, published at every connection (empty
    /// unless `homeassistant.enabled` and rounds are broadcast).
    private var homeAssistantMessages: [OutgoingMessage] = []
    /// The alerts summary that says the hall is gone: its last will, and what ``shutdown(timeout:)``
    /// publishes (`nil` without rounds to alert about).
    private let offline: OutgoingMessage?
    private let auditLog: HallAuditLog
    /// SSE clients at most (each costs a connection and a bounded buffer).
    static let streamLimit = 128

    /// Connects to the broker and starts listening. Throws when the port or TLS files are unusable.
    public init(configuration: BridgeConfiguration, logger: Logger) throws {
        self.logger = logger
        topics = try Topics(base: configuration.baseTopic, node: "hall")
        model = HallModel(base: configuration.baseTopic)
        let hall = configuration.hall
        router = HallRouter(
            accounts: hall.arbiterAccounts.map { ($0.name, $0.password.reveal()) },
            sharedName: HallConfiguration.sharedArbiterName)
        auditLog = HallAuditLog(
            path: hall.auditFile ?? configuration.stateDirectory + "/hall-audit.jsonl", logger: logger.labelled("audit")
        )
        var tls: HTTPServerSettings.TLS?
        if let files = hall.tls {
            tls = HTTPServerSettings.TLS(
                certificatePEM: try String(contentsOfFile: files.certificateFile, encoding: .utf8),
                keyPEM: try String(contentsOfFile: files.keyFile, encoding: .utf8))
        }
        let settings = HTTPServerSettings(
            address: hall.address, port: UInt16(hall.port), connectionLimit: hall.connectionLimit,
            perClientLimit: max(4, hall.connectionLimit / 4), tls: tls)
        let mqttLogger = logger.labelled("mqtt")
        let id =
            configuration.mqtt.clientID.map { $0 + "-hall" }
            ?? "boardbridge-hall-\(ProcessInfo.processInfo.processIdentifier)"
        // With rounds to alert about, the alerts summary carries the hall's availability: the
        // last will says `offline` (Home Assistant's hall entities go unavailable).
        let alertsTopic = HallAlerts.topic(base: configuration.baseTopic)
        offline =
            hall.broadcast.rounds.isEmpty
            ? nil : OutgoingMessage(topic: alertsTopic, json: HallAlerts.offline, retain: true)
        let will = offline.map {
            MQTTMessage(topic: $0.topic, payload: $0.payload, qos: .atLeastOnce, retain: $0.retain)
        }
        var mqtt = configuration.mqtt.clientConfiguration(clientID: id, will: will)
        mqtt.maximumIncomingPacketSize = HallModel.payloadLimit + 65_536
        client = try MQTTClient(
            configuration: mqtt,
            logHandler: { level, message in
                mqttLogger.log(
                    level == .debug ? .debug : level == .info ? .info : level == .warning ? .warning : .error, message)
            })
        var handle: (@MainActor (HTTPRequest) -> HTTPReply)?
        server = try HTTPServer(settings: settings) { request in handle?(request) ?? .response(.plain(503, "starting"))
        }
        handle = { [weak self] request in self?.answer(request) ?? .response(.plain(503, "stopping")) }
        if configuration.homeAssistant.enabled, offline != nil {
            let discovery = try HomeAssistantDiscovery(
                prefix: configuration.homeAssistant.discoveryPrefix,
                mode: configuration.homeAssistant.deviceDiscovery ? .device : .perComponent, topics: topics)
            homeAssistantMessages = discovery.hallDiscoveryMessages(
                base: configuration.baseTopic, alertsTopic: alertsTopic, version: BoardBridgeVersion.current,
                hallURL: hall.viewURL)
        }
        broadcastService = HallBroadcastService(
            configuration: hall.broadcast, topics: topics, logger: logger,
            publish: { [weak self] topic, payload, retain in
                try self?.client.publish(MQTTMessage(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain))
            },
            notify: { [weak self] event, data in
                for stream in self?.streams.values ?? [:].values { stream.send(event: event, data: data) }
            },
            recordAction: { [weak self] board, action, detail, arbiter, transaction in
                guard let self else { return }
                auditLog.record(
                    action, detail: detail, id: board, board: model.boards[board], by: arbiter, transaction: transaction
                )
            })
    }

    /// Subscribes, connects and starts the heartbeat.
    public func start() {
        client.onMessage = { [weak self] message in self?.received(message) }
        client.onStateChange = { [weak self] state in
            switch state {
            case .connected:
                self?.brokerChanged("connected")
                self?.announce()
            case .connecting: self?.brokerChanged("connecting")
            case .disconnected: self?.brokerChanged("disconnected")
            case .stopped: self?.brokerChanged("stopped")
            }
        }
        do {
            try client.subscribe(topics.base + "/#", qos: .atLeastOnce)
        } catch {
            logger.error("cannot subscribe", [("error", "\(error)")])
        }
        client.start()
        heartbeat = MainLoop.every(15) { [weak self] in self?.beat() }
        broadcastService?.start()
        logger.info("hall listening", [("address", server.settings.address), ("port", "\(server.port)")])
    }

    /// Publishes the Home Assistant discovery and the alerts summary (a new connection).
    private func announce() {
        for message in homeAssistantMessages { publish(message) }
        broadcastService?.publishAlerts(force: true)
    }

    /// Publishes one of the hall's own messages (QoS 1), logging a refusal.
    private func publish(_ message: OutgoingMessage) {
        do {
            try client.publish(
                MQTTMessage(topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain))
        } catch {
            logger.error("cannot publish", [("topic", message.topic), ("error", "\(error)")])
        }
    }

    /// Says `offline` in the alerts summary (what the last will says when the hall dies),
    /// waits up to `timeout` for the broker to take what is queued, then ``stop()``s.
    public func shutdown(timeout: Duration = .seconds(2)) async {
        if let offline { publish(offline) }
        _ = await client.flush(timeout: timeout)
        stop()
    }

    /// Closes the streams, the server and the broker connection.
    public func stop() {
        heartbeat?.cancel()
        broadcastService?.stop()
        for stream in streams.values { stream.close() }
        streams = [:]
        server.stop()
        client.stop()
    }

    // MARK: MQTT

    private func received(_ message: MQTTMessage) {
        answerIfOffline(message)
        auditLog.observe(message, board: { [model] in model.boards[$0] }, base: model.base)
        switch model.apply(topic: message.topic, payload: message.payload, now: Self.now()) {
        case .success(let changes):
            broadcast(changes)
            for case .board(let id) in changes {
                if let board = model.boards[id] { broadcastService?.boardChanged(board) }
            }
        case .failure(let rejection):
            rejectionsLogged += 1
            if rejectionsLogged <= 20 || rejectionsLogged % 100 == 0 {
                logger.warning(
                    "message ignored",
                    [("topic", rejection.topic), ("reason", rejection.reason), ("ignored", "\(model.rejectedCount)")])
            }
        }
    }

    /// Answers a command for a board of an offline host (``HallModel/offlineAnswer(topic:payload:topics:)``),
    /// at most ``offlineAnswerLimit`` a second: a flood of commands is not echoed in full.
    private func answerIfOffline(_ message: MQTTMessage) {
        guard let (topic, json) = model.offlineAnswer(topic: message.topic, payload: message.payload, topics: topics)
        else { return }
        guard case .answer = offlineAnswers.admit("offline", at: Self.now() / 1000) else { return }
        do {
            try client.publish(MQTTMessage(topic: topic, payload: json.encoded(), qos: .atLeastOnce, retain: false))
        } catch {
            logger.warning("cannot answer a command for an offline host", [("topic", topic), ("error", "\(error)")])
        }
    }

    private func brokerChanged(_ state: String) {
        brokerState = state
        let bytes = HTTPEventStream.encode(
            event: "hall", data: JSONValue.object(["broker": .string(state)]).encodedString())
        for stream in streams.values { stream.write(bytes) }
    }

    private func broadcast(_ changes: [HallChange]) {
        guard !changes.isEmpty, !streams.isEmpty else { return }
        for change in changes {
            let event: String
            let data: JSONValue
            switch change {
            case .board(let id):
                guard let board = model.boards[id] else { continue }
                (event, data) = ("board", HallJSON.board(board, model: model))
            case .removed(let id):
                (event, data) = ("removed", ["id": .string(id)])
            case .node(let name):
                guard let node = model.nodes[name] else { continue }
                (event, data) = ("node", HallJSON.node(node))
            }
            let bytes = HTTPEventStream.encode(event: event, id: "\(model.sequence)", data: data.encodedString())
            for stream in streams.values { stream.write(bytes) }
        }
    }

    private func beat() {
        // A health report that went stale turns its node down (and its boards with it).
        broadcast(model.refreshHealth(now: Self.now()))
        for stream in streams.values { stream.sendComment("\(model.sequence)") }
    }

    // MARK: HTTP

    private func answer(_ request: HTTPRequest) -> HTTPReply {
        if let reply = broadcastService?.answer(request, router: router) { return reply }
        switch router.route(request) {
        case .page:
            return .response(HallPage.response)
        case .boards:
            return .response(
                .json(
                    HallJSON.snapshot(
                        model, now: Self.now(), broker: brokerState, actions: router.actionsEnabled,
                        namedArbiters: router.namedAccounts)))
        case .board(let id):
            guard let board = model.boards[id] else { return .response(.plain(404, "no board \"\(id)\"")) }
            guard case .object(var detail) = HallJSON.detail(board, model: model) else {
                return .response(.plain(500, "no detail"))
            }
            detail["audit"] = auditLog.entries(board: id)
            return .response(.json(.object(detail)))
        case .audit(let format, let round, let board):
            return .response(auditLog.download(format, round: round, board: board))
        case .events:
            guard streams.count < Self.streamLimit else { return .response(.plain(503, "too many event streams")) }
            let stream = HTTPEventStream(pendingLimit: 4 << 20)
            let key = ObjectIdentifier(stream)
            stream.onClose = { [weak self] in self?.streams[key] = nil }
            streams[key] = stream
            // A (re)connecting client always starts from the whole model: a full resync.
            stream.write(Array("retry: 2000\n\n".utf8))
            let snapshot = HallJSON.snapshot(
                model, now: Self.now(), broker: brokerState, actions: router.actionsEnabled,
                namedArbiters: router.namedAccounts)
            stream.send(event: "snapshot", id: "\(model.sequence)", data: snapshot.encodedString())
            if let status = broadcastService?.statusText { stream.send(event: "broadcast", data: status) }
            return .eventStream(stream)
        case .acknowledge(let id, let arbiter):
            guard let board = model.boards[id] else { return .response(.plain(404, "no board \"\(id)\"")) }
            auditLog.record(
                "acknowledge", detail: board.alert ?? .null, id: id, board: board, by: arbiter, transaction: nil)
            broadcast(model.acknowledge(board: id))
            logger.notice(
                "alert acknowledged", [("board", id), ("arbiter", arbiter), ("client", request.clientAddress)])
            return .response(.json(["status": "ok"]))
        case .command(let id, let command, let arbiter):
            guard let board = model.boards[id] else { return .response(.plain(404, "no board \"\(id)\"")) }
            if let node = model.offlineNode(of: id) { return refuseOffline(board: id, node: node, command, request) }
            transactions += 1
            let transaction = "hall-\(transactions)"
            var object = command
            object["transaction"] = .string(transaction)
            do {
                try client.publish(
                    MQTTMessage(
                        topic: topics.set(id), payload: JSONValue.object(object).encoded(), qos: .atLeastOnce,
                        retain: false))
            } catch {
                return .response(.plain(503, "cannot send: \(error)"))
            }
            if let name = command.keys.first, let value = command[name] {
                auditLog.record(name, detail: value, id: id, board: board, by: arbiter, transaction: transaction)
            }
            logger.notice(
                "arbiter command",
                [("board", id), ("arbiter", arbiter), ("command", JSONValue.object(command).encodedString())])
            broadcast(
                model.note(
                    board: id,
                    [
                        "event_type": "arbiter_command", "command": .object(command), "arbiter": .string(arbiter),
                        "transaction": .string(transaction),
                        "timestamp": .string(ISO8601Timestamp.string(from: Date())),
                    ]))
            return .response(.json(["status": "sent", "transaction": .string(transaction)], status: 202))
        case .metrics:
            return .response(
                HTTPResponse(
                    status: 200, contentType: HallMetrics.contentType,
                    text: HallMetrics.render(model, now: Self.now()), headers: [("Cache-Control", "no-store")]))
        case .refused(let response):
            return .response(response)
        }
    }

    /// A command for a board whose host is offline would wait in the void: refused, and said so
    /// in the board's history.
    private func refuseOffline(
        board id: String, node: String, _ command: JSONObject, _ request: HTTPRequest
    )
        -> HTTPReply
    {
        logger.warning(
            "arbiter command refused: node offline",
            [("board", id), ("node", node), ("client", request.clientAddress)])
        broadcast(
            model.note(
                board: id,
                [
                    "event_type": "arbiter_command_refused", "command": .object(command),
                    "reason": .string("node \(node) offline"),
                    "timestamp": .string(ISO8601Timestamp.string(from: Date())),
                ]))
        return .response(.plain(503, "node \(node) offline: the command for board \(id) was not sent"))
    }

    static func now() -> Double { Date().timeIntervalSince1970 * 1000 }
}
