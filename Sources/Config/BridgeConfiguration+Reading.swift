import BoardKit
import Logging
import MQTT

extension BridgeConfiguration {
    static let topLevelKeys = [
        "mqtt", "base_topic", "node", "bluetooth", "reconnect", "homeassistant", "state_directory", "logging",
        "game", "health", "boards", "hall",
    ]

    /// Reads the whole configuration from the root node; problems go to `reader`.
    static func read(_ root: YAMLNode, reader: ConfigReader) -> BridgeConfiguration {
        var config = BridgeConfiguration()
        guard case .mapping = root.content else {
            reader.fail(
                "",
                "expected a mapping of sections (mqtt:, boards:, …) at the top level, got "
                    + ConfigReader.describe(root), at: root.mark)
            return config
        }
        guard let top = reader.mapping(root, path: "", keys: topLevelKeys) else { return config }

        if let section = top.mapping("mqtt", keys: BrokerConfiguration.keys) {
            config.mqtt = BrokerConfiguration.read(section, reader: reader)
        }
        config.baseTopic = topic(top, "base_topic", singleLevel: false) ?? config.baseTopic
        config.node = topic(top, "node", singleLevel: true)
        if let section = top.mapping("bluetooth", keys: BluetoothConfiguration.keys) {
            config.bluetooth = BluetoothConfiguration.read(section, reader: reader)
        }
        if let section = top.mapping("reconnect", keys: reconnectKeys) {
            config.reconnect = readReconnect(section, base: config.reconnect, reader: reader)
        }
        if let section = top.mapping("homeassistant", keys: HomeAssistantConfiguration.keys) {
            config.homeAssistant = HomeAssistantConfiguration.read(section, reader: reader)
            if config.homeAssistant.discoveryPrefix == config.baseTopic, let node = section.value("discovery_prefix") {
                reader.fail(section.path("discovery_prefix"), "must differ from base_topic", at: node.mark)
            }
        }
        if let directory = top.string("state_directory") {
            if directory.isEmpty || directory.unicodeScalars.contains("\0") {
                reader.fail("state_directory", "expected a directory path", at: top.value("state_directory")?.mark)
            } else {
                config.stateDirectory = ConfigFiles.resolve(directory, against: reader.baseDirectory)
                if let problem = ConfigFiles.directoryProblem(config.stateDirectory) {
                    reader.fail("state_directory", problem, at: top.value("state_directory")?.mark)
                }
            }
        }
        if let section = top.mapping("logging", keys: ["level", "format"]) {
            config.logging = LoggingConfiguration(
                level: section.choice("level", noun: "log level", default: .info),
                format: section.choice("format", noun: "log format", default: .text))
        }
        if let section = top.mapping(
            "game",
            keys: [
                "desync_grace", "promotion_default", "max_takeback_plies", "resync_after", "resync_attempts",
                "battery_interval", "alert_paused_after", "alert_out_of_sync_after",
            ])
        {
            config.game = GameConfiguration(
                desyncGrace: section.double("desync_grace", in: 0...60, default: 2.0),
                promotionDefault: section.choice("promotion_default", noun: "piece", default: .queen),
                maxTakebackPlies: section.int("max_takeback_plies", in: 0...40, default: 2),
                resyncAfter: section.double("resync_after", in: 0.5...600, default: 3),
                resyncAttempts: section.int("resync_attempts", in: 0...20, default: 4),
                batteryInterval: section.double("battery_interval", in: 1...86400, default: 300))
            config.game.alertPausedAfter = section.double("alert_paused_after", in: 0...86400, default: 300)
            config.game.alertOutOfSyncAfter = section.double("alert_out_of_sync_after", in: 0...86400, default: 120)
        }
        if let section = top.mapping("health", keys: HealthConfiguration.keys) {
            config.health = HealthConfiguration.read(section, reader: reader)
        }
        if let section = top.mapping("hall", keys: HallConfiguration.keys) {
            config.hall = HallConfiguration.read(section, reader: reader)
        }
        if let items = top.list("boards") {
            config.boards = ConfiguredBoard.readAll(
                items, bluetooth: config.bluetooth, reconnect: config.reconnect, reader: reader)
        }
        return config
    }

    /// A topic (or single topic level) value; an empty `node` means "not set".
    private static func topic(_ mapping: ConfigMapping, _ key: String, singleLevel: Bool) -> String? {
        guard let node = mapping.value(key), let text = mapping.reader.string(node, path: mapping.path(key)) else {
            return nil
        }
        if singleLevel && text.isEmpty { return nil }
        if let problem = TopicRules.problem(in: text, singleLevel: singleLevel) {
            mapping.reader.fail(mapping.path(key), problem, at: node.mark)
            return nil
        }
        return text
    }

    static let reconnectKeys = ["max_attempts", "delays"]

    /// A reconnect schedule: the keys given override `base`.
    static func readReconnect(
        _ section: ConfigMapping, base: BoardReconnectPolicy, reader: ConfigReader
    ) -> BoardReconnectPolicy {
        let attempts = section.int("max_attempts", in: 0...1000, default: base.maxAttempts)
        var delays = base.delays
        if let items = section.list("delays") {
            if items.isEmpty {
                reader.fail(section.path("delays"), "must list at least one delay", at: section.value("delays")?.mark)
            } else if items.count > 32 {
                reader.fail(section.path("delays"), "lists more than 32 delays", at: section.value("delays")?.mark)
            } else {
                let read = items.compactMap { reader.double($0.node, path: $0.path, in: 0...3600) }
                if read.count == items.count { delays = read }
            }
        }
        return BoardReconnectPolicy(maxAttempts: attempts, delays: delays)
    }
}

extension BrokerConfiguration {
    static let keys = [
        "url", "client_id", "keepalive", "protocol", "username", "password", "password_file", "password_env", "tls",
        "queue_limit", "queue_bytes", "max_command_bytes", "reconnect",
    ]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> BrokerConfiguration {
        var mqtt = BrokerConfiguration()
        if let node = section.value("url"), let url = reader.string(node, path: section.path("url")) {
            do {
                mqtt.endpoint = try MQTTServerAddress(parsing: url)
                mqtt.url = url
            } catch {
                // The error names the URL, with any user part replaced by `***`.
                reader.fail(section.path("url"), error.description, at: node.mark)
            }
        }
        if let node = section.value("client_id"), let id = reader.string(node, path: section.path("client_id")) {
            if id.unicodeScalars.contains("\0") || id.utf8.count > 65_535 {
                reader.fail(section.path("client_id"), "must be text without NUL, at most 65535 bytes", at: node.mark)
            } else if !id.isEmpty {
                mqtt.clientID = id
            }
        }
        mqtt.keepalive = section.int("keepalive", in: 5...65_535, default: mqtt.keepalive)
        mqtt.protocolVersion = section.choice(
            "protocol", noun: "MQTT protocol", spellings: MQTTProtocolVersion.spellings, default: .v5)
        mqtt.username = section.nonEmptyString("username")
        mqtt.password = reader.secret(in: section, key: "password")
        if mqtt.password != nil, mqtt.username == nil {
            reader.fail(
                reader.secretPath(in: section, key: "password"), "a password needs mqtt.username",
                at: reader.secretMark(in: section, key: "password"))
        }
        if let tls = section.mapping("tls", keys: ["ca_file", "cert_file", "key_file", "insecure"]) {
            mqtt.tls = readTLS(tls, reader: reader)
            if !mqtt.endpoint.usesTLS, mqtt.tls != BrokerTLSConfiguration() {
                reader.fail(section.path("tls"), "TLS settings need an mqtts:// url", at: tls.node.mark)
            }
        }
        mqtt.queueLimit = section.int("queue_limit", in: 1...10_000_000, default: mqtt.queueLimit)
        mqtt.queueBytes = section.int("queue_bytes", in: 65_536...1_073_741_824, default: mqtt.queueBytes)
        mqtt.maxCommandBytes = section.int("max_command_bytes", in: 256...16_777_216, default: mqtt.maxCommandBytes)
        if let reconnect = section.mapping("reconnect", keys: ["min_delay", "max_delay"]) {
            let minimum = reconnect.double("min_delay", in: 0.1...3600, default: 1)
            let maximum = reconnect.double("max_delay", in: 0.1...3600, default: 60)
            if maximum < minimum {
                reader.fail(
                    reconnect.path("max_delay"), "must not be less than min_delay",
                    at: (reconnect.value("max_delay") ?? reconnect.node).mark)
            }
            mqtt.reconnect = BrokerReconnectConfiguration(minDelay: minimum, maxDelay: max(minimum, maximum))
        }
        return mqtt
    }

    private static func readTLS(_ section: ConfigMapping, reader: ConfigReader) -> BrokerTLSConfiguration {
        func file(_ key: String) -> String? {
            guard let node = section.value(key), let text = reader.string(node, path: section.path(key)),
                !text.isEmpty
            else { return nil }
            let path = ConfigFiles.resolve(text, against: reader.baseDirectory)
            if let problem = ConfigFiles.readabilityProblem(path) {
                reader.fail(section.path(key), "cannot read \(ConfigReader.quote(path)): \(problem)", at: node.mark)
            }
            return path
        }
        let tls = BrokerTLSConfiguration(
            caFile: file("ca_file"), certFile: file("cert_file"), keyFile: file("key_file"),
            insecure: section.bool("insecure", default: false))
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            let present = tls.certFile == nil ? "key_file" : "cert_file"
            let absent = tls.certFile == nil ? "cert_file" : "key_file"
            reader.fail(
                section.path(present), "needs \(section.path(absent)) too", at: section.value(present)?.mark)
        }
        return tls
    }
}

extension BluetoothConfiguration {
    static let keys = ["adapters", "scan_filter", "connect_timeout", "discovery", "notify_method"]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> BluetoothConfiguration {
        var bluetooth = BluetoothConfiguration()
        if let items = section.list("adapters") {
            var names: [String] = []
            for item in items {
                guard let name = reader.string(item.node, path: item.path) else { continue }
                if !isAdapterName(name) {
                    reader.fail(
                        item.path, "invalid adapter name \(ConfigReader.quote(name)), expected hci0, hci1, …",
                        at: item.node.mark)
                } else if names.contains(name) {
                    reader.fail(item.path, "adapter \(ConfigReader.quote(name)) is listed twice", at: item.node.mark)
                } else {
                    names.append(name)
                }
            }
            if items.isEmpty {
                reader.fail(
                    section.path("adapters"), "must list at least one adapter", at: section.value("adapters")?.mark)
            } else if !names.isEmpty {
                bluetooth.adapters = names
            }
        }
        if let filter = section.mapping("scan_filter", keys: ["rssi", "service_uuids"]) {
            bluetooth.scanFilter.rssi = filter.int("rssi", in: -127...20)
            for item in filter.list("service_uuids") ?? [] {
                guard let text = reader.string(item.node, path: item.path) else { continue }
                if let uuid = ScanFilter.normalizedUUID(text) {
                    bluetooth.scanFilter.serviceUUIDs.append(uuid)
                } else {
                    reader.fail(
                        item.path,
                        "invalid service UUID \(ConfigReader.quote(text)), expected 4, 8 or "
                            + "8-4-4-4-12 hex digits", at: item.node.mark)
                }
            }
        }
        bluetooth.connectTimeout = section.double("connect_timeout", in: 1...600, default: bluetooth.connectTimeout)
        bluetooth.discovery = section.bool("discovery", default: false)
        bluetooth.notifyMethod = section.choice("notify_method", noun: "notify method", default: .acquireNotify)
        return bluetooth
    }
}

extension HomeAssistantConfiguration {
    static let keys = ["enabled", "discovery_prefix", "status_topic", "device_discovery"]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> HomeAssistantConfiguration {
        var homeAssistant = HomeAssistantConfiguration()
        homeAssistant.enabled = section.bool("enabled", default: false)
        for (key, keyPath) in [
            ("discovery_prefix", \HomeAssistantConfiguration.discoveryPrefix),
            ("status_topic", \HomeAssistantConfiguration.statusTopic),
        ] {
            guard let node = section.value(key), let text = reader.string(node, path: section.path(key)) else {
                continue
            }
            if let problem = TopicRules.problem(in: text, singleLevel: false) {
                reader.fail(section.path(key), problem, at: node.mark)
            } else {
                homeAssistant[keyPath: keyPath] = text
            }
        }
        homeAssistant.deviceDiscovery = section.bool("device_discovery", default: false)
        return homeAssistant
    }
}
