import JSON

/// Home Assistant MQTT discovery for the bridge and its boards.
///
/// One HA device per board, linked to one device per bridge host (`via_device`). Per
/// board (``HomeAssistantEntity/boardEntities(board:family:topics:)``): status binary sensors
/// and an `event` entity; game sensors (position, moves, clocks, players, PGN); the
/// commands as buttons and selects; diagnostics; device triggers for clock paused, clock
/// resumed and out of sync. The bridge device: connectivity, version, number of boards.
/// All messages are retained at QoS 1.
///
/// Per-component topics (`<prefix>/<component>/<device_id>/<key>/config`) are the
/// default because every Home Assistant version reads them; `.device` publishes one
/// `<prefix>/device/<device_id>/config` message per device instead (Home Assistant
/// 2024.11 and later). To switch modes, publish the old mode's `removalMessages` first
/// (``switched(to:)``; ``StartupCleanup`` does it when the configured mode changed).
/// Device triggers use `value_template`, which needs a Home Assistant from 2022 or later.
public struct HomeAssistantDiscovery: Equatable, Sendable {
    /// How the configuration is published.
    public enum Mode: String, CaseIterable, Codable, Equatable, Sendable {
        /// One retained message per entity (every Home Assistant version).
        case perComponent = "per_component"
        /// One retained message per device (Home Assistant 2024.11+).
        case device
    }

    /// The default discovery prefix.
    public static let defaultPrefix = "homeassistant"

    /// The discovery prefix.
    public let prefix: String
    /// How the configuration is published.
    public let mode: Mode
    /// Whether the health report's diagnostic entities are announced too
    /// (`HomeAssistantEntity+Health.swift`).
    public var includesHealth = false

    /// Checks the prefix (a valid topic, different from the bridge's base topic).
    public init(
        prefix: String = HomeAssistantDiscovery.defaultPrefix, mode: Mode = .perComponent, topics: Topics
    )
        throws(TopicError)
    {
        try Topics.validateBase(prefix, role: "discovery prefix")
        guard prefix != topics.base else { throw .discoveryPrefixIsBase(prefix) }
        self.prefix = prefix
        self.mode = mode
    }

    private init(checkedPrefix prefix: String, mode: Mode) {
        self.prefix = prefix
        self.mode = mode
    }

    /// The same prefix published the other way: its ``removalMessages(for:bridge:)`` clear
    /// what an earlier run in `mode` left on the broker.
    public func switched(to mode: Mode) -> HomeAssistantDiscovery {
        var switched = HomeAssistantDiscovery(checkedPrefix: prefix, mode: mode)
        switched.includesHealth = includesHealth
        return switched
    }

    /// Home Assistant's birth and last-will topic: re-send discovery (after a random
    /// delay) and current states when `online` arrives here.
    public var statusTopic: String { prefix + "/status" }

    /// The random wait, in seconds, before discovery is sent again after Home Assistant came
    /// online (its documentation asks for a random delay: several bridge hosts, or a
    /// restarting Home Assistant that says `online` twice, then do not answer at once).
    public static let reannounceDelay: ClosedRange<Double> = 0.5...3

    /// Whether a payload on `statusTopic` announces Home Assistant coming online.
    public static func isOnline(statusPayload payload: some Collection<UInt8>) -> Bool {
        String(decoding: Array(payload), as: UTF8.self).trimmingASCIIWhitespace() == "online"
    }

    // MARK: Identifiers

    /// The HA device identifier of a board: `<base>_board_<id>` (base with `/` → `_`).
    /// Board ids are unique per deployment, so this is unique across bridge hosts.
    public static func deviceID(board: BoardDescriptor, bridge: BridgeDescriptor) -> String {
        objectIDPrefix(bridge.topics.base) + "_board_" + board.id
    }

    /// The HA device identifier of a bridge host: `<base>_bridge_<node>`.
    public static func bridgeDeviceID(_ bridge: BridgeDescriptor) -> String {
        objectIDPrefix(bridge.topics.base) + "_bridge_" + bridge.topics.node
    }

    /// The base topic made safe for HA object ids (`[A-Za-z0-9_-]`; others become `_`).
    static func objectIDPrefix(_ base: String) -> String {
        String(base.map { Topics.isNameCharacter($0) ? $0 : "_" })
    }

    // MARK: Messages

    /// The discovery messages of one board (retained, QoS 1). With per-component topics,
    /// the entities the board cannot use (``BoardDescriptor/capabilities``, a wired board's
    /// radio) get empty
    /// payloads instead, so that an earlier announcement of them is withdrawn.
    public func discoveryMessages(for board: BoardDescriptor, bridge: BridgeDescriptor) -> [OutgoingMessage] {
        let deviceID = Self.deviceID(board: board, bridge: bridge)
        let all =
            HomeAssistantEntity.boardEntities(board: board.id, family: board.family, topics: bridge.topics)
            + (includesHealth ? HomeAssistantEntity.boardHealthEntities(board: board.id, topics: bridge.topics) : [])
        let announced = messages(
            deviceID: deviceID, device: boardDevice(board, bridge: bridge),
            entities: all.filter { $0.isUsable(by: board) },
            availability: availability(board: board.id, bridge: bridge), origin: origin(bridge))
        guard mode == .perComponent else { return announced }
        let withdrawn = all.filter { !$0.isUsable(by: board) }.map {
            OutgoingMessage.clearRetained(perComponentTopic($0, deviceID: deviceID))
        }
        return announced + withdrawn
    }

    /// Empty retained payloads on every discovery topic of a board removed from the
    /// configuration: Home Assistant deletes its entities and the broker its copies.
    public func removalMessages(for board: BoardDescriptor, bridge: BridgeDescriptor) -> [OutgoingMessage] {
        discoveryMessages(for: board, bridge: bridge).map { OutgoingMessage.clearRetained($0.topic) }
    }

    private func perComponentTopic(_ entity: HomeAssistantEntity, deviceID: String) -> String {
        "\(prefix)/\(entity.component)/\(deviceID)/\(entity.key)/config"
    }

    /// The discovery messages of the bridge device (connectivity, version, boards).
    public func bridgeDiscoveryMessages(_ bridge: BridgeDescriptor) -> [OutgoingMessage] {
        messages(
            deviceID: Self.bridgeDeviceID(bridge), device: bridgeDevice(bridge),
            entities: HomeAssistantEntity.bridgeEntities(topics: bridge.topics)
                + (includesHealth ? HomeAssistantEntity.bridgeHealthEntities(topics: bridge.topics) : []),
            availability: availability(board: nil, bridge: bridge), origin: origin(bridge))
    }

    /// Empty retained payloads on the bridge device's discovery topics.
    public func bridgeRemovalMessages(_ bridge: BridgeDescriptor) -> [OutgoingMessage] {
        bridgeDiscoveryMessages(bridge).map { OutgoingMessage.clearRetained($0.topic) }
    }

    func messages(
        deviceID: String, device: JSONValue, entities: [HomeAssistantEntity],
        availability: (HomeAssistantEntity.Availability) -> [(String, JSONValue)], origin: JSONValue
    ) -> [OutgoingMessage] {
        switch mode {
        case .perComponent:
            return entities.map { entity in
                var members = body(of: entity, deviceID: deviceID, availability: availability)
                members += [("device", device), ("origin", origin)]
                return OutgoingMessage(
                    topic: perComponentTopic(entity, deviceID: deviceID),
                    json: .object(JSONObject(uniqueKeysWithValues: members)), retain: true)
            }
        case .device:
            let components = entities.map { entity in
                let members =
                    [("platform", JSONValue.string(entity.component))]
                    + body(of: entity, deviceID: deviceID, availability: availability)
                return (entity.key, JSONValue.object(JSONObject(uniqueKeysWithValues: members)))
            }
            let config: JSONValue = [
                "device": device, "origin": origin,
                "components": .object(JSONObject(uniqueKeysWithValues: components)),
            ]
            return [OutgoingMessage(topic: "\(prefix)/device/\(deviceID)/config", json: config, retain: true)]
        }
    }

    /// name, unique_id, the platform options, then availability.
    private func body(
        of entity: HomeAssistantEntity, deviceID: String,
        availability: (HomeAssistantEntity.Availability) -> [(String, JSONValue)]
    ) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let name = entity.name { members.append(("name", .string(name))) }
        if !entity.isDeviceTrigger { members.append(("unique_id", .string(deviceID + "_" + entity.key))) }
        return members + entity.options + availability(entity.availability)
    }

    private func availability(
        board: String?, bridge: BridgeDescriptor
    )
        -> (HomeAssistantEntity.Availability) -> [(String, JSONValue)]
    {
        let template = JSONValue.string(HomeAssistantEntity.stateTemplate)
        let bridgeEntry: JSONValue = ["topic": .string(bridge.topics.bridgeState), "value_template": template]
        let boardEntry: JSONValue? = board.map {
            ["topic": .string(bridge.topics.availability($0)), "value_template": template]
        }
        return { kind in
            switch kind {
            case .none: []
            case .bridgeOnly: [("availability", [bridgeEntry]), ("availability_mode", "all")]
            case .bridgeAndBoard:
                [
                    ("availability", .array([bridgeEntry] + (boardEntry.map { [$0] } ?? []))),
                    ("availability_mode", "all"),
                ]
            }
        }
    }

    // MARK: Blocks

    private func boardDevice(_ board: BoardDescriptor, bridge: BridgeDescriptor) -> JSONValue {
        var device: JSONObject = [
            "identifiers": [.string(Self.deviceID(board: board, bridge: bridge))],
            "name": .string(board.name),
            "manufacturer": .string(board.family.manufacturer),
            "model": .string(board.modelName),
            "via_device": .string(Self.bridgeDeviceID(bridge)),
        ]
        if let area = board.suggestedArea { device["suggested_area"] = .string(area) }
        if let serial = board.serialNumber { device["serial_number"] = .string(serial) }
        if let version = board.firmwareVersion { device["sw_version"] = .string(version) }
        // The Bluetooth address, as Home Assistant's device registry spells a MAC.
        if let address = board.address { device["connections"] = [["mac", .string(address.lowercased())]] }
        // The hall view, opened on this board's detail.
        if let hall = bridge.hallURL { device["configuration_url"] = .string(hall + "#board=" + board.id) }
        return .object(device)
    }

    private func bridgeDevice(_ bridge: BridgeDescriptor) -> JSONValue {
        var device: JSONObject = [
            "identifiers": [.string(Self.bridgeDeviceID(bridge))],
            "name": .string(bridge.name),
            "manufacturer": .string(BridgeDescriptor.softwareName),
            "model": .string(BridgeDescriptor.softwareName),
            "sw_version": .string(bridge.version),
        ]
        if let hall = bridge.hallURL { device["configuration_url"] = .string(hall) }
        return .object(device)
    }

    private func origin(_ bridge: BridgeDescriptor) -> JSONValue {
        var origin: JSONObject = [
            "name": .string(BridgeDescriptor.softwareName), "sw_version": .string(bridge.version),
        ]
        if let url = bridge.supportURL { origin["support_url"] = .string(url) }
        return .object(origin)
    }
}
