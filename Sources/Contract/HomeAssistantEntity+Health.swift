import JSON

/// The health report's keys, as the templates read them.
private typealias HealthKey = HealthPayload.Key

/// The health report's figures as Home Assistant diagnostic entities (issue #20): they
/// read `<base>/bridge/<node>/health`, so they follow the bridge's availability only (a
/// stalled or dropped board still shows its figures).
extension HomeAssistantEntity {
    /// The health entities of one board: stalled (problem), RSSI, notification rate,
    /// seconds since the last frame, reconnects, missing acknowledgements, malformed frames.
    static func boardHealthEntities(board: String, topics: Topics) -> [HomeAssistantEntity] {
        // `get`: a board missing from a report (just removed, not yet withdrawn) renders
        // unknown instead of a template error in Home Assistant's log.
        let figure = "value_json.\(HealthKey.boards).get('\(board)', {})"
        return [
            healthSensor(
                "health_stalled", "Stalled", component: "binary_sensor",
                template: "{{ 'ON' if \(figure).get('\(HealthKey.stalled)') else 'OFF' }}",
                [("device_class", "problem")],
                topics: topics),
            healthSensor(
                "health_rssi", "Signal strength", template: "{{ \(figure).get('\(HealthKey.rssi)') }}",
                [("device_class", "signal_strength"), ("unit_of_measurement", "dBm"), ("state_class", "measurement")],
                topics: topics),
            healthSensor(
                "health_notification_rate", "Notifications per second",
                template: "{{ \(figure).get('\(HealthKey.notificationsPerSecond)') }}",
                [("unit_of_measurement", "1/s"), ("state_class", "measurement"), ("icon", "mdi:bluetooth-transfer")],
                topics: topics),
            healthSensor(
                "health_last_frame", "Since last frame",
                template: "{{ \(figure).get('\(HealthKey.secondsSinceLastFrame)') }}",
                [("device_class", "duration"), ("unit_of_measurement", "s")], topics: topics),
            healthSensor(
                "health_reconnects", "Reconnects", template: "{{ \(figure).get('\(HealthKey.reconnects)') }}",
                [("state_class", "total_increasing"), ("icon", "mdi:bluetooth-off")], topics: topics),
            healthSensor(
                "health_missing_acks", "Missing acknowledgements",
                template: "{{ \(figure).get('\(HealthKey.protocolViolations)', {}).get('\(HealthKey.missingAcks)') }}",
                [("state_class", "total_increasing"), ("icon", "mdi:alert-circle-outline")], topics: topics),
            healthSensor(
                "health_malformed_frames", "Malformed frames",
                template:
                    "{{ \(figure).get('\(HealthKey.protocolViolations)', {}).get('\(HealthKey.malformedFrames)') }}",
                [("state_class", "total_increasing"), ("icon", "mdi:alert-circle-outline")], topics: topics),
        ]
    }

    /// The health entities of the bridge device: state directory problem, uptime, CPU,
    /// memory, MQTT queue and drops, free space.
    static func bridgeHealthEntities(topics: Topics) -> [HomeAssistantEntity] {
        [
            healthSensor(
                "health_state_directory", "State directory", component: "binary_sensor",
                template: "{{ 'ON' if value_json.\(HealthKey.stateDirectory).\(HealthKey.problem) else 'OFF' }}",
                [("device_class", "problem")],
                topics: topics),
            healthSensor(
                "health_uptime", "Uptime", template: "{{ value_json.\(HealthKey.process).\(HealthKey.uptime) }}",
                [("device_class", "duration"), ("unit_of_measurement", "s")], topics: topics),
            healthSensor(
                "health_cpu", "CPU", template: "{{ value_json.\(HealthKey.process).\(HealthKey.cpuPercent) }}",
                [("unit_of_measurement", "%"), ("state_class", "measurement"), ("icon", "mdi:cpu-64-bit")],
                topics: topics),
            healthSensor(
                "health_memory", "Memory", template: "{{ value_json.\(HealthKey.process).\(HealthKey.rssBytes) }}",
                [("device_class", "data_size"), ("unit_of_measurement", "B"), ("state_class", "measurement")],
                topics: topics),
            healthSensor(
                "health_mqtt_queued", "MQTT queued", template: "{{ value_json.\(HealthKey.mqtt).\(HealthKey.queued) }}",
                [("state_class", "measurement"), ("icon", "mdi:tray-full")], topics: topics),
            healthSensor(
                "health_mqtt_dropped", "MQTT dropped",
                template: "{{ value_json.\(HealthKey.mqtt).\(HealthKey.dropped) }}",
                [("state_class", "total_increasing"), ("icon", "mdi:tray-remove")], topics: topics),
            healthSensor(
                "health_free_space", "State directory free",
                template: "{{ value_json.\(HealthKey.stateDirectory).\(HealthKey.freeBytes) }}",
                [("device_class", "data_size"), ("unit_of_measurement", "B"), ("state_class", "measurement")],
                topics: topics),
        ]
    }

    private static func healthSensor(
        _ key: String, _ name: String, component: String = "sensor", template: String,
        _ extra: [(String, JSONValue)], topics: Topics
    ) -> HomeAssistantEntity {
        HomeAssistantEntity(
            component: component, key: key, name: name,
            options: [("state_topic", .string(topics.bridgeHealth)), ("value_template", .string(template))] + extra
                + [("entity_category", "diagnostic")],
            availability: .bridgeOnly)
    }
}
