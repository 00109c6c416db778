import BlueZ
import BoardKit
import BoardLink
import Config
import Foundation
import JSON
import SerialTransport
import Testing

@testable import Bridge
@testable import Contract

/// Issue #23: each configured board gets the transport its configuration names, and what a
/// DGT e-Board reports about itself reaches the info and its device card.
@MainActor
@Suite struct BoardTransportFactoryTests {
    static let yaml = """
        boards:
          - {id: usb, family: dgt, serial: /dev/serial/by-id/usb-DGT_DGT_Board-if00}
          - {id: bt1, family: dgt, address: "00:11:22:33:44:55"}
          - {id: bt2, family: dgt, address: "00:11:22:33:44:56", model: Revelation II}
          - {id: air, family: chessnut, address: "AA:BB:CC:00:00:01"}
          - {id: cert, family: certabo, serial: /dev/serial/by-id/usb-Silicon_Labs_CP2102-if00-port0}
          - {id: sentio, family: sentio, serial: /dev/ttyUSB1}
        """

    @Test func eachBoardGetsTheTransportItsConfigurationNames() throws {
        let config = try ConfigLoader.parse(yamlText: Self.yaml)
        let factory = BoardTransportFactory(manager: BlueZManager(), bluetooth: config.bluetooth)
        let transports = try config.boards.map { try factory.makeTransport(for: $0) }
        let serial = try #require(transports[0] as? SerialBoardTransport)
        #expect(serial.path == "/dev/serial/by-id/usb-DGT_DGT_Board-if00")
        #expect(serial.baudRate == .b9600 && !serial.lowersDataTerminalReady, "a DGT line as it opens")
        // Certabo and Sentio lines: 38400 baud, DTR lowered (as picochess and BearChess open them).
        for transport in transports[4...] {
            let line = try #require(transport as? SerialBoardTransport)
            #expect(line.baudRate == .b38400 && line.lowersDataTerminalReady, "\(line.path)")
        }
        let first = try #require(transports[1] as? BlueZRFCOMMTransport)
        let second = try #require(transports[2] as? BlueZRFCOMMTransport)
        #expect(first.address == "00:11:22:33:44:55")
        #expect(first.profile === second.profile, "one Profile1 object per manager")
        #expect(first.capabilities.contains(.batteryReporting), "the Bluetooth e-Board reports its battery")
        #expect(second.capabilities.contains(.perSquareLEDs), "a Revelation II lights its fields")
        #expect(transports[3] is BlueZBoardTransport)
    }

    @Test func aSerialTransportReportsItsStatusWithTheReconnectDetails() async throws {
        let config = try ConfigLoader.parse(
            yamlText: """
                reconnect: {max_attempts: 2, delays: [600]}
                boards:
                  - {id: usb, family: dgt, serial: /dev/serial/by-id/no-such-board}
                """)
        let factory = BoardTransportFactory(manager: BlueZManager(), bluetooth: config.bluetooth)
        let transport = try factory.makeTransport(for: config.boards[0])
        var statuses: [BoardLinkStatus] = []
        transport.observeStatus { statuses.append($0) }
        // The open fails at once; the first reopen waits (long: nothing else happens here).
        transport.start()
        #expect(statuses.map(\.state) == [.connecting, .reconnecting(attempt: 1)])
        let waiting = try #require(statuses.last)
        #expect(waiting.reconnectAttempt == 1)
        #expect(waiting.nextDelay == 600)
        #expect(waiting.maxAttempts == 2)
        #expect(waiting.lastError?.contains("no-such-board") == true)
        await transport.close()
        #expect(statuses.last?.state == .disconnected)
        #expect(statuses.last?.nextDelay == nil)
    }

    @Test func theBoardsIdentityIsInTheInfoAndTheDeviceCard() throws {
        let topics = try Topics(node: "hall-a")
        let bridge = BridgeDescriptor(topics: topics, version: "0.1.0")
        var board = BoardDescriptor(id: "usb", family: .dgt)
        let discovery = try HomeAssistantDiscovery(mode: .device, topics: topics)
        let before = try #require(discovery.discoveryMessages(for: board, bridge: bridge).first?.payloadText)
        #expect(!before.contains("serial_number"))
        board.serialNumber = "12345"
        board.firmwareVersion = "1.2"
        let after = try #require(discovery.discoveryMessages(for: board, bridge: bridge).first?.payloadText)
        let device = try JSONValue(parsing: after)["device"]
        #expect(device?["serial_number"] == "12345", "\(after)")
        #expect(device?["sw_version"] == "1.2", "\(after)")
        let info = MessageBuilder(topics: topics).bridgeInfo(bridge: bridge, boards: [board], config: [:])
        let entry = try JSONValue(parsing: info.payloadText)["boards"]?.arrayValue?.first
        #expect(entry?["serial_number"] == "12345")
        #expect(entry?["firmware_version"] == "1.2")
    }
}
