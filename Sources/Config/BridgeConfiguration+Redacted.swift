import BoardKit
public import JSON
import Kernel
import MQTT

extension BridgeConfiguration {
    /// The configuration as a JSON value, keys as in `config.yaml` and sorted, every secret
    /// replaced by `"<redacted>"` (absent secrets are `null`). Published on the bridge's
    /// info topic.
    public var redactedValue: JSONValue {
        .sortedObject([
            "mqtt": mqtt.redactedValue,
            "base_topic": .string(baseTopic),
            "node": JSONValue(node),
            "bluetooth": .sortedObject([
                "adapters": .array(bluetooth.adapters.map(JSONValue.string)),
                "scan_filter": .sortedObject([
                    "rssi": JSONValue(bluetooth.scanFilter.rssi),
                    "service_uuids": .array(bluetooth.scanFilter.serviceUUIDs.map(JSONValue.string)),
                ]),
                "connect_timeout": JSONValue(bluetooth.connectTimeout),
                "discovery": .bool(bluetooth.discovery),
                "notify_method": .string(bluetooth.notifyMethod.rawValue),
            ]),
            "reconnect": Self.value(of: reconnect),
            "homeassistant": .sortedObject([
                "enabled": .bool(homeAssistant.enabled),
                "discovery_prefix": .string(homeAssistant.discoveryPrefix),
                "status_topic": .string(homeAssistant.statusTopic),
                "device_discovery": .bool(homeAssistant.deviceDiscovery),
            ]),
            "state_directory": .string(stateDirectory),
            "logging": .sortedObject([
                "level": .string(logging.level.rawValue), "format": .string(logging.format.rawValue),
            ]),
            "game": .sortedObject([
                "desync_grace": JSONValue(game.desyncGrace),
                "promotion_default": .string(game.promotionDefault.rawValue),
                "max_takeback_plies": JSONValue(game.maxTakebackPlies),
                "resync_after": JSONValue(game.resyncAfter),
                "resync_attempts": JSONValue(game.resyncAttempts),
                "battery_interval": JSONValue(game.batteryInterval),
                "alert_paused_after": JSONValue(game.alertPausedAfter),
                "alert_out_of_sync_after": JSONValue(game.alertOutOfSyncAfter),
            ]),
            "health": .sortedObject([
                "interval": JSONValue(health.interval), "stall_after": JSONValue(health.stallAfter),
            ]),
            "hall": hall.redactedValue,
            "boards": .array(boards.map(\.redactedValue)),
        ])
    }

    /// ``redactedValue`` as compact JSON with sorted keys.
    public var redactedDescription: String { redactedValue.encodedString() }

    static func value(of policy: BoardReconnectPolicy) -> JSONValue {
        .sortedObject([
            "max_attempts": JSONValue(policy.maxAttempts), "delays": .array(policy.delays.map(JSONValue.number)),
        ])
    }

    static func value(of secret: Secret?) -> JSONValue {
        secret == nil ? .null : .string(Secret.redacted)
    }
}

extension BrokerConfiguration {
    /// The `mqtt` section without its password.
    public var redactedValue: JSONValue {
        .sortedObject([
            "url": .string(url),
            "client_id": JSONValue(clientID),
            "keepalive": JSONValue(keepalive),
            "protocol": .string(protocolVersion.description),
            "username": JSONValue(username),
            "password": BridgeConfiguration.value(of: password),
            "tls": .sortedObject([
                "ca_file": JSONValue(tls.caFile),
                "cert_file": JSONValue(tls.certFile),
                "key_file": JSONValue(tls.keyFile),
                "insecure": .bool(tls.insecure),
            ]),
            "queue_limit": JSONValue(queueLimit),
            "queue_bytes": JSONValue(queueBytes),
            "max_command_bytes": JSONValue(maxCommandBytes),
            "reconnect": .sortedObject([
                "min_delay": JSONValue(reconnect.minDelay), "max_delay": JSONValue(reconnect.maxDelay),
            ]),
        ])
    }
}

extension ConfiguredBoard {
    /// One board without its developer key.
    public var redactedValue: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "name": .string(name),
            "family": .string(family.rawValue),
            "adapter": JSONValue(adapter),
            "orientation": .string(orientation.spelling),
            "time_control": timeControl.map { .string($0.description) } ?? .null,
            "tags": .sortedObject(tags.mapValues(JSONValue.string)),
            "allow_raw_commands": .bool(allowRawCommands),
            "developer_key": BridgeConfiguration.value(of: developerKey),
            "reconnect": BridgeConfiguration.value(of: reconnect),
            "model": JSONValue(model),
            "area": JSONValue(area),
        ]
        switch match {
        case .address(let address): object["address"] = .string(address)
        case .namePattern(let pattern): object["name_pattern"] = .string(pattern.pattern)
        case .any: break
        }
        if let serial { object["serial"] = .string(serial) }
        return .sortedObject(object)
    }
}

extension JSONValue {
    /// An object with `members` in key order, so the redacted view is deterministic.
    static func sortedObject(_ members: [String: JSONValue]) -> JSONValue {
        .object(JSONObject(uniqueKeysWithValues: members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }
}

extension HallConfiguration {
    /// The `hall` section without its arbiter password.
    public var redactedValue: JSONValue {
        .sortedObject([
            "address": .string(address),
            "port": JSONValue(port),
            "tls": tls.map {
                .sortedObject(["cert_file": .string($0.certificateFile), "key_file": .string($0.keyFile)])
            }
                ?? .null,
            "arbiter_password": BridgeConfiguration.value(of: arbiterPassword),
            "arbiters": .array(
                arbiters.map {
                    .sortedObject([
                        "name": .string($0.name), "password": BridgeConfiguration.value(of: $0.password),
                    ])
                }),
            "audit_file": JSONValue(auditFile),
            "public_url": JSONValue(publicURL),
            "connection_limit": JSONValue(connectionLimit),
        ])
    }
}
