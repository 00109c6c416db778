import BoardKit
import Kernel
import MQTT

extension BridgeConfiguration {
    /// The configuration as a JSON-like value, keys as in `config.yaml`, every secret
    /// replaced by `"<redacted>"` (absent secrets are `null`). Published on the bridge's
    /// info topic.
    public var redactedValue: ConfigValue {
        .object([
            "mqtt": mqtt.redactedValue,
            "base_topic": .string(baseTopic),
            "node": node.map(ConfigValue.string) ?? .null,
            "bluetooth": .object([
                "adapters": .array(bluetooth.adapters.map(ConfigValue.string)),
                "scan_filter": .object([
                    "rssi": bluetooth.scanFilter.rssi.map(ConfigValue.int) ?? .null,
                    "service_uuids": .array(bluetooth.scanFilter.serviceUUIDs.map(ConfigValue.string)),
                ]),
                "connect_timeout": .double(bluetooth.connectTimeout),
                "discovery": .bool(bluetooth.discovery),
                "notify_method": .string(bluetooth.notifyMethod.rawValue),
            ]),
            "reconnect": Self.value(of: reconnect),
            "homeassistant": .object([
                "enabled": .bool(homeAssistant.enabled),
                "discovery_prefix": .string(homeAssistant.discoveryPrefix),
                "status_topic": .string(homeAssistant.statusTopic),
                "device_discovery": .bool(homeAssistant.deviceDiscovery),
            ]),
            "state_directory": .string(stateDirectory),
            "logging": .object(["level": .string(logging.level.rawValue), "format": .string(logging.format.rawValue)]),
            "game": .object([
                "desync_grace": .double(game.desyncGrace),
                "promotion_default": .string(game.promotionDefault.rawValue),
                "max_takeback_plies": .int(game.maxTakebackPlies),
                "resync_after": .double(game.resyncAfter),
                "resync_attempts": .int(game.resyncAttempts),
                "battery_interval": .double(game.batteryInterval),
            ]),
            "health": .object(["interval": .double(health.interval), "stall_after": .double(health.stallAfter)]),
            "boards": .array(boards.map(\.redactedValue)),
        ])
    }

    /// ``redactedValue`` as compact JSON with sorted keys.
    public var redactedDescription: String { redactedValue.jsonText }

    static func value(of policy: BoardReconnectPolicy) -> ConfigValue {
        .object(["max_attempts": .int(policy.maxAttempts), "delays": .array(policy.delays.map(ConfigValue.double))])
    }

    static func value(of secret: Secret?) -> ConfigValue {
        secret == nil ? .null : .string(Secret.redacted)
    }
}

extension BrokerConfiguration {
    /// The `mqtt` section without its password.
    public var redactedValue: ConfigValue {
        .object([
            "url": .string(url),
            "client_id": clientID.map(ConfigValue.string) ?? .null,
            "keepalive": .int(keepalive),
            "protocol": .string(protocolVersion.description),
            "username": username.map(ConfigValue.string) ?? .null,
            "password": BridgeConfiguration.value(of: password),
            "tls": .object([
                "ca_file": tls.caFile.map(ConfigValue.string) ?? .null,
                "cert_file": tls.certFile.map(ConfigValue.string) ?? .null,
                "key_file": tls.keyFile.map(ConfigValue.string) ?? .null,
                "insecure": .bool(tls.insecure),
            ]),
            "queue_limit": .int(queueLimit),
            "queue_bytes": .int(queueBytes),
            "max_command_bytes": .int(maxCommandBytes),
            "reconnect": .object(["min_delay": .double(reconnect.minDelay), "max_delay": .double(reconnect.maxDelay)]),
        ])
    }
}

extension ConfiguredBoard {
    /// One board without its developer key.
    public var redactedValue: ConfigValue {
        var object: [String: ConfigValue] = [
            "id": .string(id),
            "name": .string(name),
            "family": .string(family.rawValue),
            "adapter": adapter.map(ConfigValue.string) ?? .null,
            "orientation": .string(orientation.spelling),
            "time_control": timeControl.map { .string($0.description) } ?? .null,
            "tags": .object(tags.mapValues(ConfigValue.string)),
            "allow_raw_commands": .bool(allowRawCommands),
            "developer_key": BridgeConfiguration.value(of: developerKey),
            "reconnect": BridgeConfiguration.value(of: reconnect),
            "model": model.map(ConfigValue.string) ?? .null,
            "area": area.map(ConfigValue.string) ?? .null,
        ]
        switch match {
        case .address(let address): object["address"] = .string(address)
        case .namePattern(let pattern): object["name_pattern"] = .string(pattern.pattern)
        case .any: break
        }
        return .object(object)
    }
}
