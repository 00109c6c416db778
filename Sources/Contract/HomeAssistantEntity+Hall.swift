import JSON

/// The hall's alerts as Home Assistant entities (issue #30, item 3): what only the hall
/// sees — a board silent in a running round, a timed game whose moves come without clock
/// times — read from the hall's retained alerts summary (`<base>/bridge/hall/broadcast/alerts`),
/// which also carries the hall's availability (`state`: `online`, or `offline` from its
/// last will).
extension HomeAssistantEntity {
    /// The entities of the hall device: whether anything needs the arbiter (problem), how
    /// many alerts there are (with the list as attributes), and each kind's count.
    static func hallEntities(alertsTopic: String) -> [HomeAssistantEntity] {
        let topic = JSONValue.string(alertsTopic)
        // One of the summary's counts (its key names the entity and the field).
        func count(_ key: String, _ name: String, icon: String) -> HomeAssistantEntity {
            HomeAssistantEntity(
                component: "sensor", key: key, name: name,
                options: [
                    ("state_topic", topic), ("value_template", .string("{{ value_json.\(key) }}")),
                    ("state_class", "measurement"), ("icon", .string(icon)),
                ],
                availability: .bridgeOnly)
        }
        return [
            HomeAssistantEntity(
                component: "binary_sensor", key: "attention", name: "Needs attention",
                options: [
                    ("state_topic", topic), ("value_template", "{{ 'ON' if value_json.count > 0 else 'OFF' }}"),
                    ("device_class", "problem"),
                ],
                availability: .bridgeOnly),
            HomeAssistantEntity(
                component: "sensor", key: "alerts", name: "Alerts",
                options: [
                    ("state_topic", topic), ("value_template", "{{ value_json.count }}"),
                    ("json_attributes_topic", topic),
                    ("json_attributes_template", "{{ {'alerts': value_json.alerts} | tojson }}"),
                    ("state_class", "measurement"), ("icon", "mdi:alert-outline"),
                ],
                availability: .bridgeOnly),
            count("orphan_boards", "Silent boards in a running round", icon: "mdi:checkerboard-remove"),
            count("games_without_clock_times", "Timed games without clock times", icon: "mdi:timer-off-outline"),
        ]
    }
}

extension HomeAssistantDiscovery {
    /// The HA device identifier of the hall: `<base>_hall` (one hall per deployment).
    public static func hallDeviceID(base: String) -> String {
        objectIDPrefix(base) + "_hall"
    }

    /// The discovery messages of the hall device (`boardbridge hall` publishes them, retained,
    /// at every connection): its alerts, available while the alerts summary says `online`.
    /// `hallURL` becomes the device's `configuration_url`.
    public func hallDiscoveryMessages(
        base: String, alertsTopic: String, version: String, hallURL: String?
    ) -> [OutgoingMessage] {
        var device: JSONObject = [
            "identifiers": [.string(Self.hallDeviceID(base: base))], "name": "BoardBridge hall",
            "manufacturer": .string(BridgeDescriptor.softwareName), "model": "Hall view",
            "sw_version": .string(version),
        ]
        if let hallURL { device["configuration_url"] = .string(hallURL) }
        let entry: JSONValue = [
            "topic": .string(alertsTopic), "value_template": .string(HomeAssistantEntity.stateTemplate),
        ]
        return messages(
            deviceID: Self.hallDeviceID(base: base), device: .object(device),
            entities: HomeAssistantEntity.hallEntities(alertsTopic: alertsTopic),
            availability: { kind in kind == .none ? [] : [("availability", [entry])] },
            origin: ["name": .string(BridgeDescriptor.softwareName), "sw_version": .string(version)])
    }
}
