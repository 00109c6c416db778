import BoardKit
import JSON

/// One Home Assistant discovery item before it is wrapped with ids, device and origin.
struct HomeAssistantEntity: Sendable {
    /// Which availability topics an entity follows.
    enum Availability: Equatable, Sendable {
        /// The bridge state and the board availability (`availability_mode: all`).
        case bridgeAndBoard
        /// The bridge state only: the entity reads "off" rather than "unavailable" when
        /// the board drops (its own connectivity sensor).
        case bridgeOnly
        /// None: the entity is always available (the bridge's own connectivity sensor,
        /// which must show "offline" when the bridge's last will fires).
        case none
    }

    /// `binary_sensor`, `sensor`, `event`, `button`, `select`, `device_automation`.
    var component: String
    /// The object id: unique within its device, `[a-z0-9_]`.
    var key: String
    /// The entity name (`nil` for device triggers, which have none).
    var name: String?
    /// The platform options in order (state_topic, value_template, device_class…).
    var options: [(String, JSONValue)]
    /// Which availability topics apply.
    var availability: Availability

    /// Device triggers are not entities: no `unique_id`, `name` or availability.
    var isDeviceTrigger: Bool { component == "device_automation" }

    /// Whether `board` can use this entity: the signal strength and the Bluetooth adapter
    /// need a radio; with its capabilities known, the battery sensor and button need
    /// battery reports, the LED button square LEDs.
    func isUsable(by board: BoardDescriptor) -> Bool {
        if board.isWired, ["health_rssi", "adapter"].contains(key) { return false }
        guard let capabilities = board.capabilities else { return true }
        switch key {
        case "battery", "request_battery": return capabilities.contains(.batteryReporting)
        case "clear_leds", "led_pattern": return capabilities.contains(.perSquareLEDs)
        default: return true
        }
    }
}

extension HomeAssistantEntity {
    static let stateTemplate = "{{ value_json.state }}"

    /// The entities of the bridge device: its connectivity (no availability of its own, so
    /// it reads "off" when the last will fires), version and number of boards.
    static func bridgeEntities(topics: Topics) -> [HomeAssistantEntity] {
        let info = JSONValue.string(topics.bridgeInfo)
        return [
            HomeAssistantEntity(
                component: "binary_sensor", key: "connection_state", name: "Connection state",
                options: [
                    ("state_topic", .string(topics.bridgeState)), ("value_template", .string(stateTemplate)),
                    ("payload_on", "online"), ("payload_off", "offline"), ("device_class", "connectivity"),
                    ("entity_category", "diagnostic"),
                ],
                availability: .none),
            HomeAssistantEntity(
                component: "sensor", key: "version", name: "Version",
                options: [
                    ("state_topic", info), ("value_template", "{{ value_json.version }}"), ("icon", "mdi:tag-outline"),
                    ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "sensor", key: "boards", name: "Boards",
                options: [
                    ("state_topic", info), ("value_template", "{{ value_json.boards | length }}"),
                    ("state_class", "measurement"), ("icon", "mdi:checkerboard"), ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "sensor", key: "boards_connected", name: "Boards connected",
                options: [
                    ("state_topic", .string(topics.bridgeHealth)),
                    (
                        "value_template",
                        "{{ value_json.boards.values() | selectattr('connection', 'eq', 'ready') | list | length }}"
                    ),
                    ("state_class", "measurement"), ("icon", "mdi:bluetooth-connect"),
                    ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "button", key: "reconnect_all", name: "Reconnect all boards",
                options: [
                    ("command_topic", .string(topics.bridgeRequest("reconnect"))),
                    ("payload_press", .string((["all": .bool(true)] as JSONValue).encodedString())),
                    ("qos", 1), ("device_class", "restart"), ("entity_category", "config"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "button", key: "restart", name: "Restart bridge",
                options: [
                    ("command_topic", .string(topics.bridgeRequest("restart"))), ("payload_press", "{}"),
                    ("qos", 1), ("device_class", "restart"), ("entity_category", "config"),
                ],
                availability: .bridgeOnly),
        ]
    }
}
