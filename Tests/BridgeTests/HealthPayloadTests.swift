import BoardKit
import Foundation
import JSON
import Testing

@testable import Bridge
@testable import Contract

/// Issue #20: the health report's bytes, the `stalled` event, and the diagnostic entities
/// that read the report (board and bridge devices).
@Suite struct HealthPayloadTests {
    let topics = try! Topics(node: "hall-a")
    static let time = Date(timeIntervalSince1970: 1_777_644_191.204)

    var payload: HealthPayload {
        HealthPayload(
            process: .init(
                uptime: 3605.4, cpuPercent: 0.73, rssBytes: 17_825_792,
                moveHandling: .init(median: 31.4e-6, p99: 149.6e-6, maximum: 0.002, moves: 8, total: 9)),
            broker: .init(connected: true, queued: 2, published: 1840, dropped: 0),
            stateDirectory: .init(
                path: "/var/lib/boardbridge", writable: false, freeBytes: 0, errors: 3,
                lastError: "No space left on device", lastErrorAt: Self.time, problem: true),
            boards: [
                .init(
                    id: "board-07", connection: "ready", rssi: -61, notificationsPerSecond: 0.354,
                    secondsSinceLastFrame: 12.4, stalled: false, stalls: 1, reconnects: 2, adapterResets: 0,
                    missingAcks: 1, malformedFrames: 0, batteryPercent: 81)
            ],
            timestamp: Self.time)
    }

    @Test func reportIsRetainedOnTheBridgeHealthTopic() {
        let message = payload.message(topics: topics)
        #expect(message.topic == "boardbridge/bridge/hall-a/health")
        #expect(message.retain && message.qos == 1)
        #expect(
            message.payloadText
                == #"{"process":{"uptime":3605,"cpu_percent":0.7,"rss_bytes":17825792,"#
                + #""move_handling":{"p50_us":31,"p99_us":150,"max_us":2000,"moves":8,"total":9}},"#
                + #""mqtt":{"connected":true,"queued":2,"published":1840,"dropped":0},"#
                + #""state_directory":{"path":"/var/lib/boardbridge","writable":false,"free_bytes":0,"errors":3,"#
                + #""last_error":"No space left on device","last_error_at":"2026-05-01T14:03:11.204Z","problem":true},"#
                + #""boards":{"board-07":{"connection":"ready","rssi":-61,"notifications_per_second":0.35,"#
                + #""seconds_since_last_frame":12.4,"stalled":false,"stalls":1,"reconnects":2,"adapter_resets":0,"#
                + #""protocol_violations":{"missing_acks":1,"malformed_frames":0},"battery":81}},"#
                + #""timestamp":"2026-05-01T14:03:11.204Z"}"#)
    }

    @Test func stalledEventIsNotRetainedAndIsAKnownEventType() throws {
        let message = HealthPayload.stalledEvent(
            board: "board-07", silentFor: 120.25, stallAfter: 120, timestamp: Self.time, topics: topics)
        #expect(message.topic == "boardbridge/board-07/event")
        #expect(!message.retain)
        #expect(
            message.payloadText
                == #"{"event_type":"stalled","silent_for":120.25,"stall_after":120,"#
                + #""timestamp":"2026-05-01T14:03:11.204Z"}"#)
        #expect(BoardEventPayload.eventTypes.contains("stalled"))
    }

    @Test func connectionCarriesTheStalledReason() {
        var connection = ConnectionPayload(transportState: .reconnecting(attempt: 1), timestamp: Self.time)
        connection.reason = "stalled"
        #expect(connection.json["reason"] == "stalled")
        #expect(ConnectionPayload(transportState: .connected, timestamp: Self.time).json["reason"] == .null)
    }

    @Test func healthEntitiesReadTheReportAndFollowTheBridgeOnly() throws {
        var discovery = try HomeAssistantDiscovery(topics: topics)
        let bridge = BridgeDescriptor(topics: topics, version: "0.1.0")
        let board = BoardDescriptor(id: "board-07", family: .chessnut)
        let without = discovery.discoveryMessages(for: board, bridge: bridge).count
        discovery.includesHealth = true
        let boardMessages = discovery.discoveryMessages(for: board, bridge: bridge)
        #expect(boardMessages.count == without + 7)
        let stalled = try #require(
            boardMessages.first {
                $0.topic == "homeassistant/binary_sensor/boardbridge_board_board-07/health_stalled/config"
            })
        let config = try #require(try JSONValue(parsing: stalled.payload).objectValue)
        #expect(config["state_topic"] == "boardbridge/bridge/hall-a/health")
        #expect(
            config["value_template"] == "{{ 'ON' if value_json.boards.get('board-07', {}).get('stalled') else 'OFF' }}")
        #expect(config["device_class"] == "problem")
        #expect(config["entity_category"] == "diagnostic")
        #expect(
            config["availability"] == [
                ["topic": "boardbridge/bridge/hall-a/state", "value_template": "{{ value_json.state }}"]
            ])
        let rssi = try #require(boardMessages.first { $0.topic.hasSuffix("/health_rssi/config") })
        #expect(try JSONValue(parsing: rssi.payload)["unit_of_measurement"] == "dBm")

        let bridgeMessages = discovery.bridgeDiscoveryMessages(bridge)
        // The connection state, version, board counts, reconnect-all, restart, and seven health entities.
        #expect(bridgeMessages.count == 13)
        let directory = try #require(
            bridgeMessages.first {
                $0.topic == "homeassistant/binary_sensor/boardbridge_bridge_hall-a/health_state_directory/config"
            })
        let directoryConfig = try JSONValue(parsing: directory.payload)
        #expect(directoryConfig["value_template"] == "{{ 'ON' if value_json.state_directory.problem else 'OFF' }}")
        #expect(directoryConfig["device_class"] == "problem")
        // Device discovery carries them in the one message, with unique ids.
        var device = try HomeAssistantDiscovery(mode: .device, topics: topics)
        device.includesHealth = true
        let deviceMessage = try #require(device.discoveryMessages(for: board, bridge: bridge).first)
        let components = try #require(try JSONValue(parsing: deviceMessage.payload)["components"]?.objectValue)
        #expect(components["health_stalled"]?["unique_id"] == "boardbridge_board_board-07_health_stalled")
    }

    /// Issue #18 item 3 and 6 with #20's entities: removing a board or switching the
    /// discovery mode withdraws its health entities too.
    @Test func theOtherModesDiscoveryKeepsTheHealthEntities() throws {
        var discovery = try HomeAssistantDiscovery(mode: .perComponent, topics: try Topics(node: "hall-a"))
        discovery.includesHealth = true
        #expect(discovery.switched(to: .device).includesHealth)
        #expect(discovery.switched(to: .perComponent).includesHealth)
    }
}
