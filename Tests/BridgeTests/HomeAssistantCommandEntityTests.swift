import BoardKit
import Chess
import JSON
import Kernel
import Testing

@testable import Bridge
@testable import Contract

/// Issue #18 item 8: the commands as Home Assistant buttons and selects, the game sensors,
/// the diagnostics and the bridge device's sensors.
@Suite struct HomeAssistantCommandEntityTests {
    let topics = try! Topics(node: "hall-a")
    var bridge: BridgeDescriptor { BridgeDescriptor(topics: topics, version: "0.1.0") }
    let board = BoardDescriptor(id: "board-07", name: "Board 7", family: .chessnut, address: "F4:12:FA:00:11:22")

    func entity(_ key: String, component: String? = nil) throws -> JSONObject {
        let discovery = try HomeAssistantDiscovery(topics: topics)
        let message = try #require(
            discovery.discoveryMessages(for: board, bridge: bridge).first { message in
                message.topic.hasSuffix("/\(key)/config")
                    && (component.map { message.topic.contains("/\($0)/") } ?? true)
            }, "no \(key)")
        return try #require(try JSONValue(parsing: message.payload).objectValue)
    }

    /// Every option of a select is a command the bridge accepts on `set/<name>`, except the
    /// result `*`, which the select must list (it is the state of a game in progress) and the
    /// bridge answers with an error.
    @Test func selectOptionsAreCommands() throws {
        let parser = CommandParser()
        let result = try entity("result")
        #expect(result["command_topic"] == "boardbridge/board-07/set/result")
        #expect(topics.parse("boardbridge/board-07/set/result") == .boardCommand(board: "board-07", name: "result"))
        #expect(result["state_topic"] == "boardbridge/board-07")
        #expect(result["value_template"] == "{{ value_json.result }}")
        let options = try #require(result["options"]?.arrayValue).compactMap(\.stringValue)
        #expect(Set(options) == Set(GameResult.allCases.map(\.rawValue)))
        for option in options where option != "*" {
            #expect(
                parser.parse(Array(option.utf8), name: "result").command
                    == .game(.setResult(try #require(GameResult(rawValue: option)))))
        }
        #expect(parser.parse(Array("*".utf8), name: "result").command != nil)  // parsed; the session refuses it
        let orientation = try entity("orientation")
        #expect(orientation["command_topic"] == "boardbridge/board-07/set/orientation")
        #expect(orientation["entity_category"] == "config")
        // Issue #30 (7): read from the state, not optimistic.
        #expect(orientation["state_topic"] == "boardbridge/board-07")
        #expect(orientation["value_template"] == "{{ value_json.orientation.setting }}")
        for option in try #require(orientation["options"]?.arrayValue).compactMap(\.stringValue) {
            #expect(
                parser.parse(Array(option.utf8), name: "orientation").command
                    == .game(.setOrientation(try #require(OrientationSetting(spelling: option)))))
        }
    }

    /// The reconnect button is a bridge request naming the board, and stays available while
    /// the board is gone (bridge availability only).
    @Test func reconnectButtonIsABridgeRequest() throws {
        let button = try entity("reconnect")
        let topic = try #require(button["command_topic"]?.stringValue)
        #expect(topics.parse(topic) == .bridgeRequest(op: "reconnect"))
        let press = try #require(button["payload_press"]?.stringValue)
        #expect(try CommandParser().parseRequest(Array(press.utf8)).result.get() == ["board": "board-07"])
        #expect(button["device_class"] == "restart")
        #expect(button["entity_category"] == "diagnostic")
        #expect(
            button["availability"] == [
                ["topic": "boardbridge/bridge/hall-a/state", "value_template": "{{ value_json.state }}"]
            ])
    }

    @Test func gameSensorsReadTheStatePayload() throws {
        let payload = try JSONValue(parsing: Array(#"{"game":{"white":"Doe","black":null}}"#.utf8))
        for (key, field) in [("white", "white"), ("black", "black"), ("event", "event"), ("round", "round")] {
            let sensor = try entity(key, component: "sensor")
            #expect(sensor["state_topic"] == "boardbridge/board-07")
            #expect(sensor["value_template"] == .string("{{ value_json.game.\(field) or '' }}"))
        }
        #expect(payload["game"]?["black"] == .null)  // what `or ''` turns into an empty state
        let running = try entity("clock_running")
        #expect(running["options"] == ["white", "black", "none"])
        #expect(running["value_template"] == "{{ value_json.clock.running or 'none' }}")
        let clock = try entity("clock_black")
        #expect(clock["json_attributes_topic"] == "boardbridge/board-07")
        let attributes = try #require(clock["json_attributes_template"]?.stringValue)
        #expect(attributes.contains("'flag_fall'") && attributes.contains("value_json.updated"))
        #expect(attributes.contains("value_json.clock.running == 'black' and not value_json.clock.paused"))
        let pgn = try entity("pgn")
        #expect(pgn["state_topic"] == "boardbridge/board-07/pgn")
        #expect(pgn["json_attributes_topic"] == "boardbridge/board-07/pgn")
        #expect(pgn["value_template"]?.stringValue?.contains("[-255:]") == true)  // Home Assistant's state limit
    }

    /// zigbee2mqtt's choices: diagnostics categorised, the chatty ones off by default.
    @Test func diagnosticsCategoriesAndDefaults() throws {
        for key in ["battery", "request_state", "request_battery", "reconnect", "last_seen", "adapter", "last_error"] {
            #expect(try entity(key)["entity_category"] == "diagnostic", "\(key)")
        }
        for key in ["pgn", "last_seen", "adapter", "last_error"] {
            #expect(try entity(key)["enabled_by_default"] == false, "\(key)")
        }
        #expect(try entity("fen")["enabled_by_default"] == nil)
        #expect(try entity("last_seen")["device_class"] == "timestamp")
        #expect(try entity("last_seen")["value_template"] == "{{ value_json.updated }}")
        #expect(try entity("last_error")["state_topic"] == "boardbridge/board-07/connection")
        #expect(try entity("fen")["device"]?["connections"] == [["mac", "f4:12:fa:00:11:22"]])
    }

    @Test func bridgeDeviceSensorsReadTheInfo() throws {
        let messages = try HomeAssistantDiscovery(topics: topics).bridgeDiscoveryMessages(bridge)
        let configs = try messages.map { try #require(try JSONValue(parsing: $0.payload).objectValue) }
        #expect(
            configs.compactMap { $0["unique_id"]?.stringValue }.map {
                $0.replacing("boardbridge_bridge_hall-a_", with: "")
            } == [
                "connection_state", "version", "boards", "boards_connected", "reconnect_all", "restart",
            ])
        #expect(configs[1]["state_topic"] == "boardbridge/bridge/hall-a/info")
        #expect(configs[1]["value_template"] == "{{ value_json.version }}")
        #expect(configs[2]["value_template"] == "{{ value_json.boards | length }}")
        #expect(configs[3]["state_topic"] == "boardbridge/bridge/hall-a/health")
        // The reconnect-all button is the bridge's reconnect request for every board.
        #expect(configs[4]["command_topic"] == "boardbridge/bridge/hall-a/request/reconnect")
        #expect(configs[4]["payload_press"] == #"{"all":true}"#)
        #expect(configs[4]["entity_category"] == "config")
        #expect(configs[5]["command_topic"] == "boardbridge/bridge/hall-a/request/restart")
        #expect(configs.dropFirst().dropLast(2).allSatisfy { $0["entity_category"] == "diagnostic" })
        #expect(configs.dropFirst().allSatisfy { $0["availability"] != nil })
    }
}
