public import FoundationEssentials
public import JSON

/// Builds every outgoing message of the contract with its topic, retain flag and QoS
/// (DESIGN.md §5). State-like topics are retained; event-like ones (`move`, `event`,
/// `clock`, responses) never are. Everything is QoS 1.
public struct MessageBuilder: Equatable, Sendable {
    /// The topics.
    public let topics: Topics

    /// Creates a builder.
    public init(topics: Topics) {
        self.topics = topics
    }

    // MARK: Bridge

    /// `<base>/bridge/<node>/state`, retained: `{"state":"online"}` or `{"state":"offline"}`.
    /// Register the offline message as the MQTT last will before connecting, publish the
    /// online one after every (re)connect, and the offline one on a clean shutdown.
    public func bridgeState(online: Bool) -> OutgoingMessage {
        OutgoingMessage(topic: topics.bridgeState, json: Self.onlineState(online), retain: true)
    }

    /// `<base>/bridge/<node>/info`, retained:
    /// `{"version","node","base_topic","boards":[{"id","name","family","model","address"}],"config"}`;
    /// a board that reported them adds `serial_number` and `firmware_version`.
    /// `config` should arrive without secrets; as a second line of defence, values whose
    /// key contains `password`, `secret` or `token` are replaced with `"<redacted>"`.
    ///
    /// `peers` adds this run's `instance` and `started` time and the `problems` its
    /// ``BridgePeerWatch`` found (duplicate boards or nodes).
    public func bridgeInfo(
        bridge: BridgeDescriptor, boards: [BoardDescriptor], config: JSONValue, peers: BridgePeerWatch? = nil
    ) -> OutgoingMessage {
        let boardList = boards.map { board -> JSONValue in
            var entry: JSONObject = [
                "id": .string(board.id), "name": .string(board.name), "family": .string(board.family.rawValue),
                "model": .string(board.modelName), "address": JSONValue(board.address),
            ]
            // What the board reported about itself (a DGT e-Board), once it did.
            if let serial = board.serialNumber { entry["serial_number"] = .string(serial) }
            if let version = board.firmwareVersion { entry["firmware_version"] = .string(version) }
            return .object(entry)
        }
        var members: [(String, JSONValue)] = [
            ("version", .string(bridge.version)), ("node", .string(topics.node)), ("base_topic", .string(topics.base)),
        ]
        if let peers {
            members += [
                ("instance", .string(peers.instance)), ("started", .string(peers.started)),
                ("problems", .array(peers.conflicts.map(\.json))),
            ]
        }
        members += [("boards", .array(boardList)), ("config", Self.redactingSecrets(config))]
        let info = JSONValue.object(JSONObject(uniqueKeysWithValues: members))
        return OutgoingMessage(topic: topics.bridgeInfo, json: info, retain: true)
    }

    /// `<base>/bridge/<node>/response/<op>`, not retained (or the MQTT 5 response topic).
    public func bridgeResponse(
        op: String, _ response: ResponsePayload, target: ResponseTarget = ResponseTarget()
    )
        -> OutgoingMessage
    {
        var message = OutgoingMessage(
            topic: target.topic(default: topics.bridgeResponse(op)), json: response.json, retain: false,
            correlationData: target.correlationData)
        message.isAnswer = true
        return message
    }

    // MARK: Board

    /// `<base>/<board>/availability`, retained: `{"state":"online"}` / `{"state":"offline"}`.
    public func availability(board: String, online: Bool) -> OutgoingMessage {
        OutgoingMessage(topic: topics.availability(board), json: Self.onlineState(online), retain: true)
    }

    /// `<base>/<board>`, retained: the full state.
    public func boardState(_ state: BoardStatePayload) -> OutgoingMessage {
        OutgoingMessage(topic: topics.boardState(state.board), json: state.json, retain: true)
    }

    /// `<base>/<board>/connection`, retained.
    public func connection(board: String, _ connection: ConnectionPayload) -> OutgoingMessage {
        OutgoingMessage(topic: topics.connection(board), json: connection.json, retain: true)
    }

    /// `<base>/<board>/move`, not retained.
    public func move(board: String, _ move: MovePayload) -> OutgoingMessage {
        OutgoingMessage(topic: topics.move(board), json: move.json, retain: false)
    }

    /// `<base>/<board>/event`, not retained (Home Assistant discards retained events).
    public func event(board: String, _ event: BoardEventPayload, timestamp: Date) -> OutgoingMessage {
        OutgoingMessage(topic: topics.event(board), json: event.json(timestamp: timestamp), retain: false)
    }

    /// `<base>/<board>/clock`, not retained.
    public func clock(board: String, _ clock: ClockPayload) -> OutgoingMessage {
        OutgoingMessage(topic: topics.clock(board), json: clock.json, retain: false)
    }

    /// `<base>/<board>/pgn`, retained: the PGN text as it is (not JSON).
    public func pgn(board: String, text: String) -> OutgoingMessage {
        OutgoingMessage(topic: topics.pgn(board), payload: Array(text.utf8), retain: true)
    }

    /// `<base>/<board>/corrections`, retained: the corrections the bridge made
    /// (``BoardCorrections``), with this host's `node` (who made them).
    public func corrections(_ corrections: BoardCorrections) -> OutgoingMessage {
        var json = corrections.json.objectValue ?? [:]
        json["node"] = .string(topics.node)
        return OutgoingMessage(topic: topics.corrections(corrections.board), json: .object(json), retain: true)
    }

    /// `<base>/<board>/response`, not retained (or the MQTT 5 response topic).
    public func boardResponse(
        board: String, _ response: ResponsePayload, target: ResponseTarget = ResponseTarget()
    )
        -> OutgoingMessage
    {
        var message = OutgoingMessage(
            topic: target.topic(default: topics.response(board)), json: response.json, retain: false,
            correlationData: target.correlationData)
        message.isAnswer = true
        return message
    }

    /// Empty retained payloads on every retained topic of a board that left the
    /// configuration (state, availability, connection, PGN, corrections), so no ghost stays behind.
    public func boardRemoval(board: String) -> [OutgoingMessage] {
        topics.retainedBoardTopics(board).map(OutgoingMessage.clearRetained)
    }

    // MARK: Helpers

    static func onlineState(_ online: Bool) -> JSONValue {
        ["state": .string(online ? "online" : "offline")]
    }

    /// Key fragments whose values never leave the bridge.
    static let secretKeyFragments = ["password", "secret", "token"]

    /// `value` with every member whose key contains a secret fragment replaced.
    static func redactingSecrets(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(redactingSecrets))
        case .object(let object):
            var result = JSONObject()
            for member in object {
                let key = member.key.lowercased()
                let secret = secretKeyFragments.contains { key.contains($0) }
                result[member.key] = secret && !member.value.isNull ? "<redacted>" : redactingSecrets(member.value)
            }
            return .object(result)
        default:
            return value
        }
    }
}
