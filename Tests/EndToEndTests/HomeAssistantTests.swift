import Contract
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
        let scheduled = "Home Assistant is online: announcing the boards again"
        let scheduledBefore = hall.bridge.output.components(separatedBy: scheduled).count - 1
        let mark = hall.recorder.mark
        let said = ContinuousClock.now
        try hall.recorder.publish("homeassistant/status", "online")
        try hall.recorder.publish("homeassistant/status", "online")
        // A request after both: the bridge takes its messages in the order they were
        // published, so its answer means it has handled both `online`s.
        let responseTopic = "\(Hall.base)/bridge/\(Hall.node)/response/info"
        try hall.recorder.publish("\(Hall.base)/bridge/\(Hall.node)/request/info", #"{"transaction":"ha-barrier"}"#)
        try await waitUntil("the info response after both online", context: hall.report) {
            hall.recorder.json(on: responseTopic, since: mark).contains { $0["transaction"] == "ha-barrier" }
        }
        try await waitUntil("discovery announced again", context: hall.report) {
            Set(configs(since: mark).map(\.topic)).isSuperset(of: topics)
        }
        // Received no sooner than the random delay after `online` was said (load only delays it).
        let firstAgain = try #require(configs(since: mark).first)
        #expect(firstAgain.received - said >= .milliseconds(500), "announced before the random delay")
        // The board's retained state is published again too, for Home Assistant to read: it
        // follows the discovery, in the same announcement.
        try await waitUntil("ha-1's state published again", context: hall.report) {
            !hall.recorder.messages(on: hall.topic("ha-1"), since: mark).isEmpty
        }
        // One announcement for both: the bridge logs each one it schedules, and both `online`s
        // were handled before the answer above; the one scheduled has been published whole,
        // so nothing more is pending and any duplicate would already be here.
        let scheduledNow = hall.bridge.output.components(separatedBy: scheduled).count - 1
        #expect(scheduledNow - scheduledBefore == 1, "announcements scheduled for both online")
        let again = configs(since: mark).map(\.topic)
        #expect(again.count == Set(again).count, "one announcement for both: \(again.sorted())")
    }

    /// Issue #18 item 3, as the process does it: a board left out of the configuration has
    /// its discovery withdrawn first and its retained state cleared only afterwards (the
    /// other order made Home Assistant's templates fail on the empty states); the bridge
    /// then remembers the boards it announces now.
    @Test func aRemovedBoardIsWithdrawnBeforeItsStateIsCleared() async throws {
        var settings = HallSettings()
        settings.homeAssistant = true
        let kept = HallBoard(id: "ha-k", family: "chessnut", address: "AA:00:00:00:0E:02")
        let gone = HallBoard(id: "ha-g", family: "squareoff", address: "AA:00:00:00:0E:03", orientation: "white")
        let hall = try await Hall(boards: [kept, gone], settings: settings)
        defer { hall.stop() }
        try await waitUntil("discovery of ha-g", context: hall.report) {
            hall.recorder.messages.contains { $0.topic.hasPrefix("homeassistant/") && $0.topic.contains("ha-g") }
        }
        await hall.bridge.terminate()
        let state = hall.directory.appendingPathComponent("state")
        let file = hall.directory.appendingPathComponent("config-without-ha-g.yaml")
        try Hall.configuration(
            boards: [kept], adapters: ["hci0"], settings: settings, brokerURL: hall.broker.url,
            stateDirectory: state.path
        ).write(to: file, atomically: true, encoding: .utf8)
        let mark = hall.recorder.mark
        let second = try BridgeProcess(configFile: file, busAddress: hall.bus.address)
        try second.start()
        defer { second.stop() }
        func cleared(_ message: ReceivedMessage) -> Bool { message.text.isEmpty }
        func clearsOfGone(_ messages: [ReceivedMessage]) -> [ReceivedMessage] {
            messages.filter {
                ($0.topic == hall.topic("ha-g") || $0.topic.hasPrefix(hall.topic("ha-g") + "/")) && cleared($0)
            }
        }
        // Every one of ha-g's five retained topics cleared (the first clear alone raced the rest).
        try await waitUntil("ha-g's five retained topics cleared", context: hall.report) {
            clearsOfGone(Array(hall.recorder.messages.dropFirst(mark))).count >= 5
        }
        let since = Array(hall.recorder.messages.dropFirst(mark))
        let withdrawals = since.filter {
            $0.topic.hasPrefix("homeassistant/") && $0.topic.contains("ha-g") && cleared($0)
        }
        let clears = clearsOfGone(since)
        #expect(withdrawals.count >= 30, "every discovery topic of ha-g")
        #expect(clears.count == 5)
        #expect((withdrawals.map(\.index).max() ?? .max) < (clears.map(\.index).min() ?? .min))
        #expect(!since.contains { $0.topic.hasPrefix("homeassistant/") && $0.topic.contains("ha-k") && cleared($0) })
        struct Record: Decodable { var boards: [String] }
        try await waitUntil("announced.json names ha-k only", context: hall.report) {
            let data = try? Data(contentsOf: state.appendingPathComponent("announced.json"))
            return data.flatMap { try? JSONDecoder().decode(Record.self, from: $0) }?.boards == ["ha-k"]
        }
    }
}
