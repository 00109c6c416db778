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

    /// `binary_sensor`, `sensor`, `event`, `button`, `device_automation`.
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

    /// Whether a board with `capabilities` (`nil`: unknown) can use this entity: the
    /// battery sensor needs battery reports, the LED button square LEDs.
    func isUsable(by capabilities: BoardCapabilities?) -> Bool {
        guard let capabilities else { return true }
        switch key {
        case "battery": return capabilities.contains(.batteryReporting)
        case "clear_leds": return capabilities.contains(.perSquareLEDs)
        default: return true
        }
    }
}

extension HomeAssistantEntity {
    static let stateTemplate = "{{ value_json.state }}"

    /// The entities of one board (see docs/mqtt-contract.md, "Home Assistant").
    static func boardEntities(board: String, topics: Topics) -> [HomeAssistantEntity] {
        let state = JSONValue.string(topics.boardState(board))
        let connection = JSONValue.string(topics.connection(board))
        func sensor(
            _ key: String, _ name: String, _ template: String, _ extra: [(String, JSONValue)] = []
        )
            -> HomeAssistantEntity
        {
            HomeAssistantEntity(
                component: "sensor", key: key, name: name,
                options: [("state_topic", state), ("value_template", .string(template))] + extra,
                availability: .bridgeAndBoard)
        }
        func button(
            _ key: String, _ name: String, _ press: JSONValue, _ extra: [(String, JSONValue)] = []
        )
            -> HomeAssistantEntity
        {
            HomeAssistantEntity(
                component: "button", key: key, name: name,
                options: [
                    ("command_topic", .string(topics.set(board))), ("payload_press", .string(press.encodedString())),
                    ("qos", 1),
                ] + extra,
                availability: .bridgeAndBoard)
        }
        func trigger(
            _ key: String, topic: String, type: String, subtype: String, payload: String, template: String
        )
            -> HomeAssistantEntity
        {
            HomeAssistantEntity(
                component: "device_automation", key: key, name: nil,
                options: [
                    ("automation_type", "trigger"), ("topic", .string(topic)), ("type", .string(type)),
                    ("subtype", .string(subtype)), ("payload", .string(payload)), ("value_template", .string(template)),
                    ("qos", 1),
                ],
                availability: .none)
        }
        return [
            HomeAssistantEntity(
                component: "binary_sensor", key: "connectivity", name: "Connection",
                options: [
                    ("state_topic", .string(topics.availability(board))), ("value_template", .string(stateTemplate)),
                    ("payload_on", "online"), ("payload_off", "offline"), ("device_class", "connectivity"),
                    ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "binary_sensor", key: "ready", name: "Ready",
                options: [
                    ("state_topic", connection),
                    (
                        "value_template",
                        .string("{{ 'ON' if value_json.state == '\(ConnectionPayload.readyState)' else 'OFF' }}")
                    ),
                    ("icon", "mdi:checkerboard"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "sensor", key: "connection_state", name: "Connection state",
                options: [
                    ("state_topic", connection), ("value_template", .string(stateTemplate)),
                    ("device_class", "enum"), ("options", .array(ConnectionPayload.stateNames.map(JSONValue.string))),
                    ("icon", "mdi:bluetooth-connect"), ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "binary_sensor", key: "out_of_sync", name: "Out of sync",
                options: [
                    ("state_topic", state),
                    ("value_template", "{{ 'ON' if value_json.sync.state == 'out_of_sync' else 'OFF' }}"),
                    ("device_class", "problem"),
                ],
                availability: .bridgeAndBoard),
            sensor("last_move", "Last move", "{{ value_json.last_move.san }}", [("icon", "mdi:chess-knight")]),
            sensor("fen", "Position", "{{ value_json.fen }}", [("icon", "mdi:chess-pawn")]),
            sensor(
                "turn", "Side to move", "{{ value_json.turn }}",
                [("device_class", "enum"), ("options", ["white", "black"])]),
            sensor("move_number", "Move number", "{{ value_json.move_number }}", [("icon", "mdi:counter")]),
            sensor(
                "clock_white", "White clock", "{{ value_json.clock.white }}",
                [("device_class", "duration"), ("unit_of_measurement", "s")]),
            sensor(
                "clock_black", "Black clock", "{{ value_json.clock.black }}",
                [("device_class", "duration"), ("unit_of_measurement", "s")]),
            sensor(
                "battery", "Battery", "{{ value_json.battery.percent }}",
                [
                    ("device_class", "battery"), ("unit_of_measurement", "%"), ("state_class", "measurement"),
                    ("entity_category", "diagnostic"),
                ]),
            HomeAssistantEntity(
                component: "event", key: "board_event", name: "Board event",
                options: [
                    ("state_topic", .string(topics.event(board))),
                    ("event_types", .array(BoardEventPayload.eventTypes.map(JSONValue.string))),
                ],
                availability: .bridgeAndBoard),
            button("request_state", "Request state", ["request": "state"], [("entity_category", "diagnostic")]),
            button("new_game", "New game", ["new_game": [:]]),
            button("clear_leds", "Clear LEDs", ["leds": "clear"]),
            trigger(
                "clock_paused", topic: topics.clock(board), type: "paused", subtype: "clock", payload: "pause",
                template: "{{ value_json.action }}"),
            trigger(
                "clock_resumed", topic: topics.clock(board), type: "resumed", subtype: "clock", payload: "resume",
                template: "{{ value_json.action }}"),
            trigger(
                "out_of_sync_trigger", topic: topics.event(board), type: "out_of_sync", subtype: "position",
                payload: "out_of_sync", template: "{{ value_json.event_type }}"),
        ]
    }

    /// The entities of the bridge device.
    static func bridgeEntities(topics: Topics) -> [HomeAssistantEntity] {
        [
            HomeAssistantEntity(
                component: "binary_sensor", key: "connection_state", name: "Connection state",
                options: [
                    ("state_topic", .string(topics.bridgeState)), ("value_template", .string(stateTemplate)),
                    ("payload_on", "online"), ("payload_off", "offline"), ("device_class", "connectivity"),
                    ("entity_category", "diagnostic"),
                ],
                availability: .none)
        ]
    }
}
