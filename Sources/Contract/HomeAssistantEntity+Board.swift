import BoardKit
import JSON

extension HomeAssistantEntity {
    /// The entities of one board (see docs/mqtt-contract.md, "Home Assistant"): what the
    /// board shows, the game, the commands as buttons and selects, diagnostics, and the
    /// device triggers; a Certabo board's calibration too.
    static func boardEntities(board: String, family: BoardFamily, topics: Topics) -> [HomeAssistantEntity] {
        let make = BoardEntityFactory(board: board, topics: topics)
        let calibration = family == .certabo ? make.calibration : []
        return make.status + make.game + make.commands + calibration + make.diagnostics + make.triggers
    }
}

/// Builds the entities of one board, grouped as the device page shows them.
private struct BoardEntityFactory {
    let board: String
    let topics: Topics
    var state: JSONValue { .string(topics.boardState(board)) }
    var connection: JSONValue { .string(topics.connection(board)) }

    func sensor(
        _ key: String, _ name: String, _ template: String, topic: JSONValue? = nil,
        _ extra: [(String, JSONValue)] = [], availability: HomeAssistantEntity.Availability = .bridgeAndBoard
    ) -> HomeAssistantEntity {
        HomeAssistantEntity(
            component: "sensor", key: key, name: name,
            options: [("state_topic", topic ?? state), ("value_template", .string(template))] + extra,
            availability: availability)
    }

    /// A button that sends `press` as one command on `<base>/<board>/set`.
    func button(
        _ key: String, _ name: String, _ press: JSONValue, _ extra: [(String, JSONValue)] = []
    ) -> HomeAssistantEntity {
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
    ) -> HomeAssistantEntity {
        HomeAssistantEntity(
            component: "device_automation", key: key, name: nil,
            options: [
                ("automation_type", "trigger"), ("topic", .string(topic)), ("type", .string(type)),
                ("subtype", .string(subtype)), ("payload", .string(payload)), ("value_template", .string(template)),
                ("qos", 1),
            ],
            availability: .none)
    }

    /// A clock: whole seconds (what a clock face shows), `None` (unknown) when untimed; the
    /// attribute `flag_fall` is when the side's flag falls while its clock runs (else null),
    /// for a countdown on a dashboard.
    func clock(_ color: String, _ name: String) -> HomeAssistantEntity {
        let seconds = "value_json.clock.\(color)"
        let running = "value_json.clock.running == '\(color)' and not value_json.clock.paused"
        return sensor(
            "clock_\(color)", name, "{{ \(seconds) | int if \(seconds) is not none else 'None' }}",
            [
                ("device_class", "duration"), ("unit_of_measurement", "s"), ("icon", "mdi:timer-outline"),
                ("json_attributes_topic", state),
                (
                    "json_attributes_template",
                    .string(
                        "{{ {'flag_fall': (as_datetime(value_json.updated) + timedelta(seconds=\(seconds))).isoformat()"
                            + " if \(running) else none, 'running': \(running)} | tojson }}")
                ),
            ])
    }

    var status: [HomeAssistantEntity] {
        [
            HomeAssistantEntity(
                component: "binary_sensor", key: "connectivity", name: "Connection",
                options: [
                    ("state_topic", .string(topics.availability(board))),
                    ("value_template", .string(HomeAssistantEntity.stateTemplate)),
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
            sensor(
                "connection_state", "Connection state", HomeAssistantEntity.stateTemplate, topic: connection,
                [
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
            HomeAssistantEntity(
                component: "event", key: "board_event", name: "Board event",
                options: [
                    ("state_topic", .string(topics.event(board))),
                    ("event_types", .array(BoardEventPayload.eventTypes.map(JSONValue.string))),
                ],
                availability: .bridgeAndBoard),
        ]
    }

    /// The game: position, moves, clocks, players and tags, PGN. A null text renders empty
    /// (`or ''`): Home Assistant before 2025 shows a null as the text `None`.
    var game: [HomeAssistantEntity] {
        let pgn = JSONValue.string(topics.pgn(board))
        return [
            sensor("last_move", "Last move", "{{ value_json.last_move.san or '' }}", [("icon", "mdi:chess-knight")]),
            sensor("fen", "Position", "{{ value_json.fen }}", [("icon", "mdi:chess-pawn")]),
            sensor(
                "turn", "Side to move", "{{ value_json.turn }}",
                [("device_class", "enum"), ("options", ["white", "black"])]),
            sensor("move_number", "Move number", "{{ value_json.move_number }}", [("icon", "mdi:counter")]),
            clock("white", "White clock"),
            clock("black", "Black clock"),
            sensor(
                "clock_running", "Running clock", "{{ value_json.clock.running or 'none' }}",
                [("device_class", "enum"), ("options", ["white", "black", "none"]), ("icon", "mdi:timer-play")]),
            sensor("white", "White", "{{ value_json.game.white or '' }}", [("icon", "mdi:account")]),
            sensor("black", "Black", "{{ value_json.game.black or '' }}", [("icon", "mdi:account-outline")]),
            sensor("event", "Event", "{{ value_json.game.event or '' }}", [("icon", "mdi:trophy-outline")]),
            sensor("round", "Round", "{{ value_json.game.round or '' }}", [("icon", "mdi:numeric")]),
            // The movetext's last 255 characters (Home Assistant's state limit); the whole
            // PGN is the attribute `pgn`. Off by default: every move stores it again.
            sensor(
                "pgn", "PGN", "{{ (value.split('\\n\\n')[-1] | trim)[-255:] }}", topic: pgn,
                [
                    ("json_attributes_topic", pgn), ("json_attributes_template", "{{ {'pgn': value} | tojson }}"),
                    ("icon", "mdi:script-text-outline"), ("enabled_by_default", false),
                ]),
        ]
    }

    /// Every command a Home Assistant user needs, as zigbee2mqtt exposes settable
    /// properties: buttons and selects that publish the documented commands.
    var commands: [HomeAssistantEntity] {
        [
            button("new_game", "New game", ["new_game": [:]], [("icon", "mdi:restart")]),
            button("takeback", "Take back", ["takeback": 1], [("icon", "mdi:undo")]),
            button("clock_pause", "Pause clock", ["clock": "pause"], [("icon", "mdi:pause")]),
            button("clock_resume", "Resume clock", ["clock": "resume"], [("icon", "mdi:play")]),
            button("clear_leds", "Clear LEDs", ["leds": "clear"], [("icon", "mdi:led-off")]),
            HomeAssistantEntity(
                component: "select", key: "result", name: "Result",
                options: [
                    ("command_topic", .string(topics.set(board, command: "result"))), ("state_topic", state),
                    ("value_template", "{{ value_json.result }}"), ("options", ["*", "1-0", "0-1", "1/2-1/2"]),
                    ("qos", 1), ("icon", "mdi:flag-checkered"),
                ],
                availability: .bridgeAndBoard),
            HomeAssistantEntity(
                component: "select", key: "led_pattern", name: "LED pattern",
                options: [
                    ("command_topic", .string(topics.set(board, command: "leds"))),
                    ("options", .array(GameCommand.LEDPattern.allCases.map { .string($0.rawValue) })),
                    ("optimistic", true), ("qos", 1), ("icon", "mdi:led-on"),
                ],
                availability: .bridgeAndBoard),
            HomeAssistantEntity(
                component: "select", key: "orientation", name: "Orientation",
                options: [
                    ("command_topic", .string(topics.set(board, command: "orientation"))), ("state_topic", state),
                    ("value_template", "{{ value_json.orientation.setting }}"),
                    ("options", ["auto", "white", "black"]), ("qos", 1), ("icon", "mdi:rotate-3d-variant"),
                    ("entity_category", "config"),
                ],
                availability: .bridgeAndBoard),
        ]
    }

    /// A Certabo board's calibration: a button that has it learn its pieces again
    /// (`calibrate`), in the configuration category as zigbee2mqtt puts calibrations.
    var calibration: [HomeAssistantEntity] {
        [
            button(
                "calibrate", "Calibrate pieces", ["calibrate": true],
                [("icon", "mdi:chess-pawn"), ("entity_category", "config")])
        ]
    }

    /// Diagnostics, as zigbee2mqtt categorises them (the chatty ones off by default).
    var diagnostics: [HomeAssistantEntity] {
        [
            sensor(
                "battery", "Battery", "{{ value_json.battery.percent }}",
                [
                    ("device_class", "battery"), ("unit_of_measurement", "%"), ("state_class", "measurement"),
                    ("entity_category", "diagnostic"),
                ]),
            button("request_state", "Request state", ["request": "state"], [("entity_category", "diagnostic")]),
            button(
                "request_battery", "Request battery", ["request": "battery"],
                [("entity_category", "diagnostic"), ("icon", "mdi:battery-sync")]),
            // A bridge request: it must work while the board is gone, so bridge availability only.
            HomeAssistantEntity(
                component: "button", key: "reconnect", name: "Reconnect",
                options: [
                    ("command_topic", .string(topics.bridgeRequest("reconnect"))),
                    ("payload_press", .string((["board": .string(board)] as JSONValue).encodedString())),
                    ("qos", 1), ("device_class", "restart"), ("entity_category", "diagnostic"),
                ],
                availability: .bridgeOnly),
            sensor(
                "last_seen", "Last seen", "{{ value_json.updated }}",
                [("device_class", "timestamp"), ("entity_category", "diagnostic"), ("enabled_by_default", false)]),
            sensor(
                "adapter", "Bluetooth adapter", "{{ value_json.adapter or '' }}",
                [("icon", "mdi:bluetooth"), ("entity_category", "diagnostic"), ("enabled_by_default", false)]),
            sensor(
                "last_error", "Last connection error", "{{ (value_json.last_error or '')[:255] }}", topic: connection,
                [
                    ("icon", "mdi:bluetooth-off"), ("entity_category", "diagnostic"), ("enabled_by_default", false),
                ],
                availability: .bridgeOnly),
        ]
    }

    var triggers: [HomeAssistantEntity] {
        [
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
}
