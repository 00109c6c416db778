import BlueZ
import BoardKit
import Config
import Foundation
import Logging
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// `bluetooth.discovery`: boards found by scanning are bridged once each, under an id made
/// from their family and address; configured boards and unknown families are left alone.
@Suite @MainActor struct BoardAdoptionTests {
    let publisher = RecordingPublisher()

    private func found(_ address: String, _ family: BoardFamily?, name: String = "Chessnut Air") -> BlueZDiscoveredBoard
    {
        BlueZDiscoveredBoard(
            device: DiscoveredBoardDevice(id: UUID(), name: name, rssi: -50, token: address), family: family,
            address: address, adapter: "hci0")
    }

    @Test func boardsFoundAreBridgedOnceEach() async throws {
        let manager = BlueZManager()
        let directory = try TestTools.temporaryDirectory("adoption").path
        let boards = BridgeBoards(
            factory: BoardTransportFactory(manager: manager, bluetooth: BluetoothConfiguration()),
            game: GameConfiguration(), builder: MessageBuilder(topics: HandlerFixture.topics), publisher: publisher,
            store: StateWriter(
                store: try StateStore(directory: directory), onError: { _, _ in }, onWarning: { _, _ in }),
            logger: HandlerFixture.logger)
        try boards.add(
            ConfiguredBoard(
                id: "mine", name: "Mine", match: .address("AA:BB:CC:00:00:01"), family: .chessnut, orientation: .auto))
        let adoption = BoardAdoption(
            manager: manager, boards: boards, reconnect: BoardReconnectPolicy(), logger: HandlerFixture.logger)
        var adopted: [String] = []
        adoption.onAdopted = { adopted.append($0) }
        let scan = [
            found("aa:bb:cc:00:00:01", .chessnut), found("AA:BB:CC:00:00:02", .chessnut),
            found("AA:BB:CC:00:00:03", nil, name: "Headphones"), found("AA:BB:CC:00:00:04", .squareOff),
        ]
        adoption.adopt(scan)
        adoption.adopt(scan)
        #expect(adopted == ["chessnut-aabbcc000002", "squareoff-aabbcc000004"])
        #expect(boards.ids == ["chessnut-aabbcc000002", "mine", "squareoff-aabbcc000004"])
        #expect(boards.descriptor("chessnut-aabbcc000002")?.address == "AA:BB:CC:00:00:02")
        // Each adopted board's retained topics went out at once.
        #expect(publisher.messages.contains { $0.topic == HandlerFixture.topics.availability("chessnut-aabbcc000002") })
        boards.stopSessions()
        await boards.closeLinks()
    }
}
