import BoardKit
import Config
import Foundation
import Kernel
import Testing

@Suite struct ShippedConfigTests {
    /// The repository's `config.yaml`, found from this file's location.
    static let shippedPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config.yaml").path

    @Test func shippedConfigLoadsWithoutErrors() throws {
        let config: BridgeConfiguration
        do {
            config = try ConfigLoader.load(path: Self.shippedPath, environment: [:])
        } catch {
            Issue.record("shipped config.yaml has errors:\n\(error)")
            return
        }
        #expect(
            config.boards.map(\.id) == ["board-1", "board-2", "board-3", "analysis", "blitz-1", "ichessone-1", "diy-1"])
        #expect(
            config.boards.map(\.family) == [
                .chessnut, .chessUp, .dgtPegasus, .squareOff, .millennium, .iChessOne, .chessPeripheral,
            ])
        let top = try #require(config.board(id: "board-1"))
        #expect(top.match == .address("AA:BB:CC:00:00:01"))
        #expect(top.name == "Top board")
        #expect(top.tags == ["Event": "Spring Open 2026", "Site": "Community Hall", "Round": "3", "Board": "1"])
        #expect(
            top.timeControl
                == .periods([
                    TimeControlPeriod(moves: 40, seconds: 5400, increment: 30),
                    TimeControlPeriod(moves: nil, seconds: 1800, increment: 30),
                ]))
        let analysis = try #require(config.board(id: "analysis"))
        #expect(analysis.timeControl == .unlimited)
        #expect(analysis.reconnect == BoardReconnectPolicy(maxAttempts: 10, delays: [2, 4, 8]))
        #expect(config.board(id: "board-3")?.orientation == .whiteNear)
    }

    /// The file documents the defaults: apart from `boards`, it must equal the built-in values.
    @Test func shippedConfigStatesTheDefaults() throws {
        var config = try ConfigLoader.load(path: Self.shippedPath, environment: [:])
        config.boards = []
        #expect(config == BridgeConfiguration())
    }

    @Test func emptySectionsGiveTheDefaults() throws {
        let config = try ConfigLoader.parse(yamlText: "mqtt:\nboards:\n")
        #expect(config == BridgeConfiguration())
        #expect("\(config.mqtt.endpoint)" == "mqtt://127.0.0.1:1883")
        #expect(config.mqtt.queueLimit == 10_000)
        #expect(config.mqtt.maxCommandBytes == 65_536)
        #expect(config.reconnect == BoardReconnectPolicy(maxAttempts: 5, delays: [2, 4, 8]))
        #expect(config.stateDirectory == "/var/lib/boardbridge")
        #expect(config.game.desyncGrace == 2.0)
    }

    @Test func readsEveryKindOfValue() throws {
        let yaml = """
            mqtt:
              url: mqtts://[::1]
              client_id: hall-bridge
              keepalive: 30
              protocol: 3.1.1
              username: arbiter
              password: "s3cret"
              tls: {insecure: true}
              queue_limit: 0x100
              reconnect: {min_delay: 0.5, max_delay: 10}
            base_topic: club/boards
            node: pi-1
            bluetooth:
              adapters: [hci0, hci1]
              scan_filter: {rssi: -90, service_uuids: [FFF0, 6E400001-B5A3-F393-E0A9-E50E24DCCA9E]}
              connect_timeout: 12.5
              discovery: TRUE
              notify_method: start_notify
            homeassistant: {enabled: true, device_discovery: true}
            state_directory: state
            logging: {level: debug, format: json}
            game: {desync_grace: 0.75, promotion_default: knight, max_takeback_plies: 0, resync_after: 5, resync_attempts: 0}
            boards:
              - id: b1
                address: aa:bb:cc:dd:ee:ff
                family: pegasus
                adapter: hci1
                orientation: black
                developer_key: "BE F5 AE DD A9 5F"
                tags: {white_elo: 2100, eco: B12, WhiteTitle: FM}
                reconnect: {delays: [1]}
                model: DGT Pegasus (club's)
                area: Hall A
            """
        let config = try ConfigLoader.parse(yamlText: yaml, fileName: "/etc/boardbridge/config.yaml")
        #expect(config.mqtt.endpoint.host == "::1")
        #expect(config.mqtt.endpoint.port == 8883)
        #expect(config.mqtt.endpoint.usesTLS)
        #expect(config.mqtt.clientID == "hall-bridge")
        #expect(config.mqtt.keepalive == 30)
        #expect(config.mqtt.protocolVersion == .v311)
        #expect(config.mqtt.password?.reveal() == "s3cret")
        #expect(config.mqtt.tls.insecure)
        #expect(config.mqtt.queueLimit == 256)
        #expect(config.mqtt.reconnect == BrokerReconnectConfiguration(minDelay: 0.5, maxDelay: 10))
        #expect(config.baseTopic == "club/boards")
        #expect(config.node == "pi-1")
        #expect(config.bluetooth.adapters == ["hci0", "hci1"])
        #expect(config.bluetooth.scanFilter.rssi == -90)
        #expect(config.bluetooth.scanFilter.serviceUUIDs == ["fff0", "6e400001-b5a3-f393-e0a9-e50e24dcca9e"])
        #expect(config.bluetooth.connectTimeout == 12.5)
        #expect(config.bluetooth.discovery)
        #expect(config.bluetooth.notifyMethod == .startNotify)
        #expect(config.homeAssistant.enabled && config.homeAssistant.deviceDiscovery)
        #expect(config.stateDirectory == "/etc/boardbridge/state")
        #expect(config.logging == LoggingConfiguration(level: .debug, format: .json))
        #expect(
            config.game
                == GameConfiguration(
                    desyncGrace: 0.75, promotionDefault: .knight, maxTakebackPlies: 0, resyncAfter: 5, resyncAttempts: 0
                ))
        let board = try #require(config.boards.first)
        #expect(board.match == .address("AA:BB:CC:DD:EE:FF"))
        #expect(board.name == "b1")
        #expect(board.adapter == "hci1")
        #expect(board.orientation == .blackNear)
        #expect(board.developerKeyBytes() == [0xBE, 0xF5, 0xAE, 0xDD, 0xA9, 0x5F])
        #expect(board.developerKey?.reveal() == "bef5aedda95f")
        #expect(board.tags == ["WhiteElo": "2100", "ECO": "B12", "WhiteTitle": "FM"])
        #expect(board.reconnect == BoardReconnectPolicy(maxAttempts: 5, delays: [1]))
        #expect(board.model == "DGT Pegasus (club's)")
        #expect(board.area == "Hall A")
    }
}
