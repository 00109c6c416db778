import BoardKit
import Foundation
import Testing

@testable import Bridge
@testable import Contract

/// The clean-up of an earlier run's announcements (issue #18 items 3 and 6).
@Suite struct StartupCleanupTests {
    let topics = try! Topics(node: "hall-a")
    var bridge: BridgeDescriptor { BridgeDescriptor(topics: topics, version: "0.1.0") }
    var builder: MessageBuilder { MessageBuilder(topics: topics) }
    let boards = [BoardDescriptor(id: "b1", family: .chessnut), BoardDescriptor(id: "b2", family: .squareOff)]

    func discovery(_ mode: HomeAssistantDiscovery.Mode) -> HomeAssistantDiscovery {
        try! HomeAssistantDiscovery(mode: mode, topics: topics)
    }

    func cleanup(previous: AnnouncedRecord?, mode: HomeAssistantDiscovery.Mode?) -> StartupCleanup {
        StartupCleanup(
            previous: previous, boards: boards, bridge: bridge, discovery: mode.map(discovery), builder: builder)
    }

    /// Item 3: a departed board's discovery is withdrawn first; its state topics are cleared
    /// separately (after a delay), never together with the withdrawals.
    @Test func departedBoardWithdrawsDiscoveryBeforeItsStateIsCleared() {
        let previous = AnnouncedRecord(boards: ["b1", "b2", "gone"], discovery: .perComponent)
        let cleanup = cleanup(previous: previous, mode: .perComponent)
        #expect(cleanup.departed == ["gone"])
        let gone = BoardDescriptor(id: "gone", family: .chessnut)
        #expect(cleanup.withdrawals == discovery(.perComponent).removalMessages(for: gone, bridge: bridge))
        #expect(cleanup.withdrawals.allSatisfy { $0.topic.hasPrefix("homeassistant/") && $0.payload.isEmpty })
        #expect(cleanup.clears == builder.boardRemoval(board: "gone"))
        #expect(cleanup.clears.allSatisfy { $0.topic.hasPrefix("boardbridge/gone") && $0.payload.isEmpty })
        #expect(cleanup.record == AnnouncedRecord(boards: ["b1", "b2"], discovery: .perComponent))
        #expect(StartupCleanup.delay >= 1)
    }

    @Test func departedBoardIsWithdrawnInTheModeItWasAnnouncedIn() {
        let previous = AnnouncedRecord(boards: ["gone"], discovery: .device)
        let cleanup = cleanup(previous: previous, mode: .perComponent)
        #expect(cleanup.withdrawals.first?.topic == "homeassistant/device/boardbridge_board_gone/config")
    }

    /// Item 6: device discovery after per-component discovery clears every per-component
    /// topic of every board and of the bridge first; and the other way round.
    @Test func switchingModeClearsTheOldModesTopics() {
        let toDevice = cleanup(
            previous: AnnouncedRecord(boards: ["b1", "b2"], discovery: .perComponent), mode: .device)
        let old = discovery(.perComponent)
        let expected =
            old.bridgeRemovalMessages(bridge)
            + boards.flatMap { old.removalMessages(for: BoardDescriptor(id: $0.id, family: $0.family), bridge: bridge) }
        #expect(toDevice.withdrawals == expected)
        #expect(toDevice.withdrawals.count > 30)
        #expect(toDevice.clears.isEmpty)
        let toComponents = cleanup(
            previous: AnnouncedRecord(boards: ["b1", "b2"], discovery: .device), mode: .perComponent)
        #expect(
            toComponents.withdrawals.map(\.topic) == [
                "homeassistant/device/boardbridge_bridge_hall-a/config",
                "homeassistant/device/boardbridge_board_b1/config", "homeassistant/device/boardbridge_board_b2/config",
            ])
    }

    /// The same mode again, or discovery off: nothing to withdraw. An empty device topic that
    /// Home Assistant never saw makes it warn, so none is sent on a guess.
    @Test func nothingStaleNothingSent() {
        let same = AnnouncedRecord(boards: ["b1", "b2"], discovery: .device)
        #expect(cleanup(previous: same, mode: .device).withdrawals.isEmpty)
        #expect(cleanup(previous: nil, mode: .device).withdrawals.isEmpty)
        #expect(cleanup(previous: same, mode: nil).withdrawals.isEmpty)
        let legacy = AnnouncedRecord(boards: ["b1", "b2"], discovery: nil, legacy: true)
        #expect(cleanup(previous: legacy, mode: .perComponent).withdrawals.isEmpty)
        // An older bridge did not record its mode: per-component topics may be left.
        #expect(
            cleanup(previous: legacy, mode: .device).withdrawals.allSatisfy {
                !$0.topic.hasPrefix("homeassistant/device/")
            })
        #expect(!cleanup(previous: legacy, mode: .device).withdrawals.isEmpty)
    }

    @Test func recordReadsBothFormats() throws {
        #expect(
            AnnouncedRecord.decode(Data(#"["a","b"]"#.utf8))
                == AnnouncedRecord(boards: ["a", "b"], discovery: nil, legacy: true))
        let record = AnnouncedRecord(boards: ["a"], discovery: .device)
        let data = try JSONEncoder().encode(record)
        #expect(AnnouncedRecord.decode(data) == record)
        #expect(String(decoding: data, as: UTF8.self).contains(#""discovery":"device""#))
        #expect(AnnouncedRecord.decode(Data("{".utf8)) == nil)
    }
}
