import Bridge
import Foundation
import TestSupport
import Testing

/// Home Assistant discovery as the bridge process publishes it: announced on start,
/// announced again when Home Assistant says `online` on its status topic.
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon", "mosquitto")))
@MainActor
struct HomeAssistantTests {
    @Test func discoveryIsAnnouncedAndReannouncedWhenHomeAssistantComesOnline() async throws {
        var settings = HallSettings()
        settings.homeAssistant = true
        let board = HallBoard(id: "ha-1", family: "chessnut", address: "AA:00:00:00:0E:01")
        let hall = try await Hall(boards: [board], settings: settings)
        defer { hall.stop() }

        func configs(since mark: Int) -> [ReceivedMessage] {
            hall.recorder.messages.dropFirst(mark).filter {
                $0.topic.hasPrefix("homeassistant/") && $0.topic.hasSuffix("/config") && $0.topic.contains("ha-1")
            }
        }
        try await waitUntil("discovery of ha-1", context: hall.report) { configs(since: 0).count >= 10 }
        let first = configs(since: 0)
        for message in first {
            let payload = try #require(message.json, "\(message.topic) is JSON")
            #expect(payload["device"] != nil || payload["automation_type"] != nil, "\(message.topic)")
            #expect(payload["availability"] != nil || payload["automation_type"] != nil, "\(message.topic)")
        }
        let topics = Set(first.map(\.topic))

        // Home Assistant says `online` twice (as a restart can): one announcement, after a
        // random wait of at least half a second.
        let mark = hall.recorder.mark
        try hall.recorder.publish("homeassistant/status", "online")
        try hall.recorder.publish("homeassistant/status", "online")
        try await Task.sleep(for: .milliseconds(300))
        #expect(configs(since: mark).isEmpty, "announced before the random delay")
        try await waitUntil("discovery announced again", context: hall.report) {
            Set(configs(since: mark).map(\.topic)).isSuperset(of: topics)
        }
        try await Task.sleep(for: .seconds(3.5))
        let again = configs(since: mark).map(\.topic)
        #expect(again.count == Set(again).count, "one announcement for both: \(again.sorted())")
        // The board's retained state is published again too, for Home Assistant to read.
        #expect(await eventually { !hall.recorder.messages(on: hall.topic("ha-1"), since: mark).isEmpty })
    }
}
