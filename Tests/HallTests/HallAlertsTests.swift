import Broadcast
import Chess
import Config
import Contract
import FoundationEssentials
import JSON
import Testing

@testable import Hall

/// Issue #30 (3): the hall's alerts summary (``HallAlerts``) and its Home Assistant device.
@Suite struct HallAlertsUnitTests {
    /// Round 5 (timed, 5400+30) of HallBroadcastTests: b1 plays without clock times, b2 with
    /// them, b3 is never heard.
    static func broadcast(running: Bool = true) throws -> HallBroadcast {
        var broadcast = HallBroadcast(configuration: try HallBroadcastTests.configuration(running: running), at: 0)
        var unclocked = Game()
        for san in ["e4", "e5", "Nf3", "Nc6"] { try unclocked.play(san: san) }
        var b1 = HallBoard(id: "b1")
        b1.pgn = unclocked.pgn
        b1.state = ["fen": .string(unclocked.position.fen), "clock": ["white": nil, "black": nil]]
        _ = broadcast.update(board: b1, at: 50)
        _ = broadcast.update(board: try HallBroadcastTests.board("b2", moves: ["e4", "e5", "Nf3"]), at: 10)
        return broadcast
    }

    @Test func silentBoardsAndGamesWithoutClockTimesAreCountedAndListed() throws {
        let summary = HallAlerts.summary(of: try Self.broadcast(), at: 70)
        #expect(summary["state"] == "online")
        #expect(summary["count"] == 3)
        #expect(summary["orphan_boards"] == 2)
        #expect(summary["games_without_clock_times"] == 1)
        let alerts = summary["alerts"]?.arrayValue ?? []
        #expect(alerts.map { $0["alert"]?.stringValue } == ["orphan_board", "orphan_board", "no_clock_times"])
        #expect(alerts.map { $0["board_id"]?.stringValue } == ["b2", "b3", "b1"])
        #expect(alerts.allSatisfy { $0["round"] == "5" })
        #expect(alerts.last?["white"] == "Doe, John")
    }

    @Test func aRoundNotRunningAlertsNothing() throws {
        let summary = HallAlerts.summary(of: try Self.broadcast(running: false), at: 1000)
        #expect(summary["count"] == 0)
        #expect(summary["alerts"] == [])
    }

    @Test func theSummaryIsPublishedWhenItChangesOrAfterANewConnection() throws {
        var alerts = HallAlerts()
        let broadcast = try Self.broadcast()
        let date = Date(timeIntervalSince1970: 70)
        let firstPayload = alerts.payload(for: HallAlerts.summary(of: broadcast, at: 70), date: date)
        let json = try JSONValue(parsing: try #require(firstPayload))
        #expect(json["timestamp"] == "1970-01-01T00:01:10.000Z")
        #expect(alerts.payload(for: HallAlerts.summary(of: broadcast, at: 71), date: date) == nil)
        #expect(alerts.payload(for: HallAlerts.summary(of: broadcast, at: 71), date: date, force: true) != nil)
        // Past b1's silence too: one more orphan.
        let laterPayload = alerts.payload(for: HallAlerts.summary(of: broadcast, at: 120), date: date)
        let later = try JSONValue(parsing: try #require(laterPayload))
        #expect(later["orphan_boards"] == 3)
    }

    @Test func theListIsBoundedTheCountsAreNot() throws {
        let rows = (1...40).map { "\($0),e\($0),\"White \($0)\",\"Black \($0)\"" }
        let round = try BroadcastRound(
            csv: (["board,board_id,white,black"] + rows).joined(separator: "\n"), round: "9", event: "Open")
        let broadcast = HallBroadcast(
            configuration: BroadcastConfiguration(orphanAfter: 10, rounds: [.init(round: round, running: true)]), at: 0)
        let summary = HallAlerts.summary(of: broadcast, at: 100)
        #expect(summary["orphan_boards"] == 40)
        #expect(summary["alerts"]?.arrayValue?.count == HallAlerts.listLimit)
    }

    @Test func theHallIgnoresItsOwnAlertsSummary() throws {
        var model = HallModel(base: "boardbridge")
        let topic = HallAlerts.topic(base: "boardbridge")
        #expect(topic == "boardbridge/bridge/hall/broadcast/alerts")
        let result = model.apply(topic: topic, payload: HallAlerts.offline.encoded(), now: 0)
        #expect(try result.get() == [])
        #expect(model.rejectedCount == 0)
    }

    @Test func theHallDeviceReadsTheSummaryAndFollowsItsState() throws {
        let topics = try Topics(base: "boardbridge", node: "hall")
        let topic = HallAlerts.topic(base: "boardbridge")
        let discovery = try HomeAssistantDiscovery(prefix: "ha", topics: topics)
        let messages = discovery.hallDiscoveryMessages(
            base: "boardbridge", alertsTopic: topic, version: "1.2.3", hallURL: "http://hall.local:8080/")
        #expect(
            messages.map(\.topic) == [
                "ha/binary_sensor/boardbridge_hall/attention/config", "ha/sensor/boardbridge_hall/alerts/config",
                "ha/sensor/boardbridge_hall/orphan_boards/config",
                "ha/sensor/boardbridge_hall/games_without_clock_times/config",
            ])
        #expect(messages.allSatisfy { $0.retain })
        let attention = try JSONValue(parsing: messages[0].payload)
        #expect(attention["unique_id"] == "boardbridge_hall_attention")
        #expect(attention["availability"]?.arrayValue?.first?["topic"] == .string(topic))
        #expect(attention["device"]?["configuration_url"] == "http://hall.local:8080/")
        #expect(attention["device"]?["identifiers"] == ["boardbridge_hall"])
        let device = try HomeAssistantDiscovery(prefix: "ha", mode: .device, topics: topics)
        let one = device.hallDiscoveryMessages(base: "boardbridge", alertsTopic: topic, version: "1.2.3", hallURL: nil)
        #expect(one.map(\.topic) == ["ha/device/boardbridge_hall/config"])
        let config = try JSONValue(parsing: one[0].payload)
        #expect(config["components"]?.objectValue?.count == 4)
    }
}

extension HallAlerts {
    /// The summary of `broadcast` at `now`, its orphans looked for then (as the tick does).
    fileprivate static func summary(of broadcast: HallBroadcast, at now: Double) -> JSONValue {
        summary(of: broadcast, orphans: broadcast.orphans(at: now))
    }
}
