import Adapters
import BoardKit
import JSON
import Testing

@testable import Bridge
@testable import Contract

@Suite struct HomeAssistantDiscoveryTests {
    let topics = try! Topics(node: "hall-a")
    var bridge: BridgeDescriptor {
        BridgeDescriptor(topics: topics, version: "0.1.0", supportURL: "https://example.invalid/boardbridge")
    }
    let board7 = BoardDescriptor(
        id: "board-07", name: "Board 7", family: .chessnut, model: "Chessnut Air", suggestedArea: "Hall A")
    let board8 = BoardDescriptor(id: "board-08", family: .squareOff)

    func discovery(_ mode: HomeAssistantDiscovery.Mode = .perComponent) -> HomeAssistantDiscovery {
        try! HomeAssistantDiscovery(mode: mode, topics: topics)
    }

    func config(_ message: OutgoingMessage) throws -> JSONObject {
        try #require(try JSONValue(parsing: message.payload).objectValue)
    }

    func component(of message: OutgoingMessage) -> String {
        String(message.topic.split(separator: "/")[1])
    }

    @Test func boardMessagesAreRetainedPerComponentTopics() throws {
        let messages = discovery().discoveryMessages(for: board7, bridge: bridge)
        #expect(messages.count == 35)
        #expect(messages.allSatisfy { $0.retain && $0.qos == 1 && !$0.payload.isEmpty })
        let topicsByComponent = Dictionary(grouping: messages.map(\.topic), by: { String($0.split(separator: "/")[1]) })
        #expect(topicsByComponent["binary_sensor"]?.count == 3)
        #expect(topicsByComponent["sensor"]?.count == 17)
        #expect(topicsByComponent["event"]?.count == 1)
        #expect(topicsByComponent["button"]?.count == 8)
        #expect(topicsByComponent["select"]?.count == 3)
        #expect(topicsByComponent["device_automation"]?.count == 3)
        #expect(messages.first?.topic == "homeassistant/binary_sensor/boardbridge_board_board-07/connectivity/config")
        #expect(Set(messages.map(\.topic)).count == messages.count)
        for message in messages {
            let levels = message.topic.split(separator: "/")
            #expect(levels.count == 5 && levels[0] == "homeassistant" && levels[4] == "config")
            #expect(
                levels[2...3].allSatisfy {
                    $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
                })
        }
    }

    /// Issue #32: a Certabo board has a button that has it learn its pieces again; no other does.
    @Test func aCertaboBoardHasACalibrateButton() throws {
        let certabo = BoardDescriptor(id: "board-09", family: .certabo)
        let messages = discovery().discoveryMessages(for: certabo, bridge: bridge)
        #expect(messages.count == 36)
        let button = try #require(messages.first { $0.topic.hasSuffix("/calibrate/config") })
        let body = try config(button)
        #expect(body["command_topic"] == .string("boardbridge/board-09/set"))
        #expect(body["payload_press"] == .string(#"{"calibrate":true}"#))
        #expect(body["entity_category"] == .string("config"))
        #expect(
            !discovery().discoveryMessages(for: board7, bridge: bridge).contains {
                $0.topic.hasSuffix("/calibrate/config")
            })
    }

    @Test func requiredKeysPerComponent() throws {
        let required: [String: [String]] = [
            "binary_sensor": ["state_topic"], "sensor": ["state_topic"], "button": ["command_topic"],
            "select": ["command_topic", "options"],
            "event": ["state_topic", "event_types"],
            "device_automation": ["automation_type", "topic", "type", "subtype", "payload"],
        ]
        for message in discovery().discoveryMessages(for: board7, bridge: bridge) {
            let object = try config(message)
            let component = component(of: message)
            for key in try #require(required[component]) {
                #expect(object[key] != nil, "\(message.topic) lacks \(key)")
            }
            #expect(object["device"]?["identifiers"] == ["boardbridge_board_board-07"])
            #expect(object["origin"]?["name"] == "BoardBridge")
            if component == "device_automation" {
                #expect(object["automation_type"] == "trigger")
                #expect(object["unique_id"] == nil)
            } else {
                #expect(object["unique_id"]?.stringValue?.hasPrefix("boardbridge_board_board-07_") == true)
                #expect(object["name"]?.stringValue?.isEmpty == false)
            }
        }
    }

    @Test func uniqueIDsAreUniqueAcrossBoardsAndBridge() throws {
        let messages =
            discovery().discoveryMessages(for: board7, bridge: bridge)
            + discovery().discoveryMessages(for: board8, bridge: bridge) + discovery().bridgeDiscoveryMessages(bridge)
        let ids = try messages.compactMap { try config($0)["unique_id"]?.stringValue }
        #expect(ids.count == 32 + 32 + 6)
        #expect(Set(ids).count == ids.count)
        #expect(Set(messages.map(\.topic)).count == messages.count)
    }

    @Test func deviceBlocksLinkToTheBridge() throws {
        let sensor = try #require(
            discovery().discoveryMessages(for: board7, bridge: bridge).first { $0.topic.hasSuffix("/fen/config") })
        #expect(
            try config(sensor)["device"]
                == [
                    "identifiers": ["boardbridge_board_board-07"], "name": "Board 7", "manufacturer": "Chessnut",
                    "model": "Chessnut Air", "via_device": "boardbridge_bridge_hall-a", "suggested_area": "Hall A",
                ])
        let other = try #require(discovery().discoveryMessages(for: board8, bridge: bridge).first)
        #expect(
            try config(other)["device"]
                == [
                    "identifiers": ["boardbridge_board_board-08"], "name": "board-08", "manufacturer": "Square Off",
                    "model": "Square Off", "via_device": "boardbridge_bridge_hall-a",
                ])
        let bridgeSensor = try #require(discovery().bridgeDiscoveryMessages(bridge).first)
        #expect(
            try config(bridgeSensor)["device"]
                == [
                    "identifiers": ["boardbridge_bridge_hall-a"], "name": "BoardBridge hall-a",
                    "manufacturer": "BoardBridge", "model": "BoardBridge", "sw_version": "0.1.0",
                ])
    }

    @Test func availabilityListsBridgeAndBoardWithModeAll() throws {
        let bridgeEntry: JSONValue = [
            "topic": "boardbridge/bridge/hall-a/state", "value_template": "{{ value_json.state }}",
        ]
        let boardEntry: JSONValue = [
            "topic": "boardbridge/board-07/availability", "value_template": "{{ value_json.state }}",
        ]
        for message in discovery().discoveryMessages(for: board7, bridge: bridge) {
            let object = try config(message)
            let bridgeOnly = ["connectivity", "ready", "connection_state", "reconnect", "last_error"].contains {
                message.topic.contains("/\($0)/")
            }
            switch (component(of: message), bridgeOnly) {
            case ("device_automation", _):
                #expect(object["availability"] == nil)
            case (_, true):
                #expect(object["availability"] == [bridgeEntry])
                #expect(object["availability_mode"] == "all")
            default:
                #expect(object["availability"] == [bridgeEntry, boardEntry])
                #expect(object["availability_mode"] == "all")
            }
        }
    }

    @Test func goldenFENSensor() throws {
        let sensor = try #require(
            discovery().discoveryMessages(for: board7, bridge: bridge).first { $0.topic.hasSuffix("/fen/config") })
        #expect(sensor.topic == "homeassistant/sensor/boardbridge_board_board-07/fen/config")
        #expect(
            sensor.payloadText
                == #"{"name":"Position","unique_id":"boardbridge_board_board-07_fen","state_topic":"boardbridge/board-07","#
                + #""value_template":"{{ value_json.fen }}","icon":"mdi:chess-pawn","#
                + #""availability":[{"topic":"boardbridge/bridge/hall-a/state","value_template":"{{ value_json.state }}"},"#
                + #"{"topic":"boardbridge/board-07/availability","value_template":"{{ value_json.state }}"}],"#
                + #""availability_mode":"all","#
                + #""device":{"identifiers":["boardbridge_board_board-07"],"name":"Board 7","manufacturer":"Chessnut","#
                + #""model":"Chessnut Air","via_device":"boardbridge_bridge_hall-a","suggested_area":"Hall A"},"#
                + #""origin":{"name":"BoardBridge","sw_version":"0.1.0","support_url":"https://example.invalid/boardbridge"}}"#
        )
    }

    @Test func entitiesReadTheContract() throws {
        let messages = discovery().discoveryMessages(for: board7, bridge: bridge)
        func entity(_ suffix: String) throws -> JSONObject {
            try config(try #require(messages.first { $0.topic.hasSuffix("/\(suffix)/config") }))
        }
        let clock = try entity("clock_white")
        #expect(clock["device_class"] == "duration")
        #expect(clock["unit_of_measurement"] == "s")
        #expect(
            clock["value_template"]
                == "{{ value_json.clock.white | int if value_json.clock.white is not none else 'None' }}")
        #expect(
            try entity("clock_black")["value_template"]?.stringValue?.hasPrefix("{{ value_json.clock.black | int")
                == true)
        let battery = try entity("battery")
        #expect(battery["device_class"] == "battery")
        #expect(battery["unit_of_measurement"] == "%")
        #expect(try entity("turn")["options"] == ["white", "black"])
        #expect(try entity("last_move")["value_template"] == "{{ value_json.last_move.san or '' }}")
        #expect(try entity("connectivity")["device_class"] == "connectivity")
        #expect(try entity("connectivity")["state_topic"] == "boardbridge/board-07/availability")
        #expect(try entity("out_of_sync")["device_class"] == "problem")
        let ready = try entity("ready")
        #expect(ready["state_topic"] == "boardbridge/board-07/connection")
        #expect(ready["value_template"] == "{{ 'ON' if value_json.state == 'ready' else 'OFF' }}")
        #expect(
            ready["availability"] == [
                ["topic": "boardbridge/bridge/hall-a/state", "value_template": "{{ value_json.state }}"]
            ])
        let connection = try entity("connection_state")
        #expect(connection["state_topic"] == "boardbridge/board-07/connection")
        #expect(connection["device_class"] == "enum")
        let states = try #require(connection["options"]?.arrayValue).compactMap(\.stringValue)
        #expect(states.contains("ready") && states.contains("powered_off") && states.contains("reconnecting"))
        #expect(states == ConnectionPayload.stateNames)
        let event = try entity("board_event")
        #expect(event["state_topic"] == "boardbridge/board-07/event")
        #expect(event["event_types"] == .array(BoardEventPayload.eventTypes.map(JSONValue.string)))
        let paused = try entity("clock_paused")
        #expect(paused["topic"] == "boardbridge/board-07/clock")
        #expect(paused["payload"] == "pause")
        #expect(paused["value_template"] == "{{ value_json.action }}")
        #expect(try entity("clock_resumed")["payload"] == "resume")
        let outOfSync = try entity("out_of_sync_trigger")
        #expect(outOfSync["topic"] == "boardbridge/board-07/event")
        #expect(outOfSync["payload"] == "out_of_sync")
    }

    /// What the buttons on `<base>/<board>/set` send must be a command this bridge accepts.
    @Test func buttonPayloadsParseAsCommands() throws {
        let parser = CommandParser()
        var commands: [BridgeCommand] = []
        for message in discovery().discoveryMessages(for: board7, bridge: bridge)
        where component(of: message) == "button" && !message.topic.contains("/reconnect/") {
            let object = try config(message)
            #expect(object["command_topic"] == "boardbridge/board-07/set")
            #expect(
                topics.parse(try #require(object["command_topic"]?.stringValue))
                    == .boardCommand(board: "board-07", name: nil))
            let press = try #require(object["payload_press"]?.stringValue)
            commands.append(try #require(parser.parse(Array(press.utf8)).command))
        }
        #expect(
            commands == [
                .game(.newGame(.init())), .game(.takeback(plies: 1)), .game(.pauseClock), .game(.resumeClock),
                .board(.clearIndications), .board(.requestState), .board(.requestBattery),
            ])
    }

    /// The device triggers match what the publisher sends.
    @Test func triggersMatchPublishedPayloads() throws {
        let builder = MessageBuilder(topics: topics)
        let messages = discovery().discoveryMessages(for: board7, bridge: bridge)
        let paused = try config(try #require(messages.first { $0.topic.hasSuffix("/clock_paused/config") }))
        let published = builder.clock(
            board: "board-07", ClockPayload(action: .pause, color: .white, white: 1, black: 1, timestamp: .init()))
        #expect(paused["topic"]?.stringValue == published.topic)
        #expect(try JSONValue(parsing: published.payload)["action"] == paused["payload"])
        let sync = try config(try #require(messages.first { $0.topic.hasSuffix("/out_of_sync_trigger/config") }))
        let event = builder.event(board: "board-07", .outOfSync(squares: [.e4]), timestamp: .init())
        #expect(sync["topic"]?.stringValue == event.topic)
        #expect(try JSONValue(parsing: event.payload)["event_type"] == sync["payload"])
    }

    @Test func bridgeDevice() throws {
        let messages = discovery().bridgeDiscoveryMessages(bridge)
        // Connection state, version, boards, boards connected, reconnect all, restart.
        #expect(messages.count == 6)
        let message = try #require(messages.first)
        #expect(message.topic == "homeassistant/binary_sensor/boardbridge_bridge_hall-a/connection_state/config")
        #expect(message.retain && message.qos == 1)
        let object = try config(message)
        #expect(object["state_topic"] == "boardbridge/bridge/hall-a/state")
        #expect(object["device_class"] == "connectivity")
        #expect(object["unique_id"] == "boardbridge_bridge_hall-a_connection_state")
        #expect(object["availability"] == nil)
    }

    /// Issue #30 (7): the device pages link to the hall view (a board's to its detail), and
    /// the bridge has a restart button.
    @Test func devicePagesLinkTheHallViewAndTheBridgeRestarts() throws {
        var linked = bridge
        linked.hallURL = "http://hall.local:8080/"
        let boardConfig = try config(try #require(discovery().discoveryMessages(for: board7, bridge: linked).first))
        #expect(boardConfig["device"]?["configuration_url"] == "http://hall.local:8080/#board=board-07")
        let bridgeMessages = discovery().bridgeDiscoveryMessages(linked)
        #expect(
            try config(try #require(bridgeMessages.first))["device"]?["configuration_url"] == "http://hall.local:8080/")
        let restart = try config(try #require(bridgeMessages.first { $0.topic.hasSuffix("/restart/config") }))
        #expect(restart["command_topic"] == "boardbridge/bridge/hall-a/request/restart")
        #expect(restart["device_class"] == "restart")
        // Without a hall view, no link.
        let plain = try config(try #require(discovery().discoveryMessages(for: board7, bridge: bridge).first))
        #expect(plain["device"]?["configuration_url"] == nil)
    }

    @Test func removalMessagesAreEmptyAndRetained() {
        let announced = discovery().discoveryMessages(for: board7, bridge: bridge)
        let removal = discovery().removalMessages(for: board7, bridge: bridge)
        #expect(removal.map(\.topic) == announced.map(\.topic))
        #expect(removal.allSatisfy { $0.payload.isEmpty && $0.retain && $0.qos == 1 })
        let bridgeRemoval = discovery().bridgeRemovalMessages(bridge)
        #expect(bridgeRemoval.map(\.topic) == discovery().bridgeDiscoveryMessages(bridge).map(\.topic))
        #expect(bridgeRemoval.allSatisfy { $0.payload.isEmpty && $0.retain })
    }

    /// Issue #15 (10): a ChessUp reports its battery (GATT Battery Service), so Home
    /// Assistant gets its battery sensor.
    @Test func chessUpAnnouncesItsBatterySensor() throws {
        let session = try #require(
            try? AdapterFactory.makeAdapter(for: .chessUp, options: AdapterOptions(advertisedName: nil)))
        let chessUp = BoardDescriptor(id: "board-10", family: .chessUp, capabilities: session.capabilities)
        let battery = discovery().discoveryMessages(for: chessUp, bridge: bridge).first {
            $0.topic == "homeassistant/sensor/boardbridge_board_board-10/battery/config"
        }
        #expect(battery.map { !$0.payload.isEmpty } == true)
    }

    @Test func entitiesABoardCannotUseAreWithdrawnNotAnnounced() throws {
        // A ChessUp as it was known before its battery service was read: no square LEDs, no
        // battery reports.
        let chessUp = BoardDescriptor(
            id: "board-09", family: .chessUp, capabilities: [.occupancySensing, .reportsMoves, .moveIndication])
        let messages = discovery().discoveryMessages(for: chessUp, bridge: bridge)
        let announced = messages.filter { !$0.payload.isEmpty }
        let withdrawn = messages.filter(\.payload.isEmpty)
        #expect(announced.count == 31)
        #expect(
            withdrawn.map(\.topic) == [
                "homeassistant/button/boardbridge_board_board-09/clear_leds/config",
                "homeassistant/select/boardbridge_board_board-09/led_pattern/config",
                "homeassistant/sensor/boardbridge_board_board-09/battery/config",
                "homeassistant/button/boardbridge_board_board-09/request_battery/config",
            ])
        #expect(withdrawn.allSatisfy { $0.retain && $0.qos == 1 })
        // Removal still clears every topic; device discovery leaves the two out.
        #expect(discovery().removalMessages(for: chessUp, bridge: bridge).count == 35)
        let device = try config(try #require(discovery(.device).discoveryMessages(for: chessUp, bridge: bridge).first))
        let components = try #require(device["components"]?.objectValue)
        #expect(components.count == 31)
        #expect(components["battery"] == nil && components["clear_leds"] == nil && components["request_battery"] == nil)
        // A board that has both keeps them.
        let chessnut = BoardDescriptor(
            id: "board-10", family: .chessnut,
            capabilities: [.occupancySensing, .pieceIdentity, .perSquareLEDs, .batteryReporting])
        #expect(discovery().discoveryMessages(for: chessnut, bridge: bridge).allSatisfy { !$0.payload.isEmpty })
    }

    /// A board on a USB cable (`serial:`) has no radio: no signal strength and no Bluetooth
    /// adapter are announced for it (and per-component topics withdraw them), a Bluetooth
    /// board of the same family keeps both.
    @Test func aWiredBoardHasNoSignalStrengthNorBluetoothAdapter() throws {
        var discovery = discovery()
        discovery.includesHealth = true
        var wired = BoardDescriptor(id: "board-11", family: .certabo)
        wired.isWired = true
        let messages = discovery.discoveryMessages(for: wired, bridge: bridge)
        let withdrawn = messages.filter(\.payload.isEmpty).map(\.topic)
        #expect(
            withdrawn == [
                "homeassistant/sensor/boardbridge_board_board-11/adapter/config",
                "homeassistant/sensor/boardbridge_board_board-11/health_rssi/config",
            ])
        let device = discovery.switched(to: .device)
        let message = try #require(device.discoveryMessages(for: wired, bridge: bridge).first)
        let components = try #require(try config(message)["components"]?.objectValue)
        #expect(components["health_rssi"] == nil && components["adapter"] == nil)
        #expect(components["health_reconnects"] != nil && components["last_error"] != nil)
        let radio = BoardDescriptor(id: "board-12", family: .dgt)
        #expect(discovery.discoveryMessages(for: radio, bridge: bridge).allSatisfy { !$0.payload.isEmpty })
    }

    @Test func deviceModeSendsOneMessage() throws {
        let messages = discovery(.device).discoveryMessages(for: board7, bridge: bridge)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.topic == "homeassistant/device/boardbridge_board_board-07/config")
        #expect(message.retain && message.qos == 1)
        let object = try config(message)
        #expect(object["device"]?["identifiers"] == ["boardbridge_board_board-07"])
        #expect(object["origin"]?["name"] == "BoardBridge")
        let components = try #require(object["components"]?.objectValue)
        #expect(components.count == 35)
        #expect(components["fen"]?["platform"] == "sensor")
        #expect(components["fen"]?["unique_id"] == "boardbridge_board_board-07_fen")
        #expect(components["clock_paused"]?["platform"] == "device_automation")
        #expect(components["fen"]?["device"] == nil)
        let removal = discovery(.device).removalMessages(for: board7, bridge: bridge)
        #expect(removal == [OutgoingMessage.clearRetained("homeassistant/device/boardbridge_board_board-07/config")])
    }

    @Test func prefixAndStatus() throws {
        let custom = try HomeAssistantDiscovery(prefix: "ha", topics: topics)
        #expect(custom.statusTopic == "ha/status")
        #expect(custom.discoveryMessages(for: board7, bridge: bridge).allSatisfy { $0.topic.hasPrefix("ha/") })
        #expect(throws: TopicError.discoveryPrefixIsBase("boardbridge")) {
            try HomeAssistantDiscovery(prefix: "boardbridge", topics: topics)
        }
        #expect(throws: TopicError.invalidCharacter("discovery prefix", "ha/#", "#")) {
            try HomeAssistantDiscovery(prefix: "ha/#", topics: topics)
        }
        #expect(HomeAssistantDiscovery.isOnline(statusPayload: Array("online\n".utf8)))
        #expect(!HomeAssistantDiscovery.isOnline(statusPayload: Array("offline".utf8)))
    }

    @Test func multiLevelBaseMakesSafeIDs() throws {
        let site = try Topics(base: "club/boards", node: "n1")
        let siteBridge = BridgeDescriptor(topics: site, version: "1")
        #expect(HomeAssistantDiscovery.deviceID(board: board7, bridge: siteBridge) == "club_boards_board_board-07")
        #expect(HomeAssistantDiscovery.bridgeDeviceID(siteBridge) == "club_boards_bridge_n1")
    }
}
