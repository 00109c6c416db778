import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #30 (3): what only the hall sees (a board silent in a running round, a timed game
/// without clock times) reaches MQTT as a retained summary and Home Assistant as a device
/// of its own; the summary says `offline` when the hall stops, and its last will when the
/// hall dies.
@Suite(.enabled(if: TestTools.available("mosquitto", "mosquitto_sub")))
struct HallAlertsTests {
    static let alertsTopic = "boardbridge/bridge/hall/broadcast/alerts"

    @Test func theHallsAlertsReachMQTTAndHomeAssistantAndSayWhenTheHallIsGone() async throws {
        let broker = try MosquittoBroker()
        try await broker.start()
        defer { broker.stop() }
        let folder = try TestTools.temporaryDirectory("hall-alerts")
        defer { try? FileManager.default.removeItem(at: folder) }
        try "board,board_id,white,black\n1,b1,\"Doe, John\",\"Moe, Max\"\n2,b2,\"Roe, Rich\",\"Poe, Ed\"\n".write(
            to: folder.appendingPathComponent("round.csv"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("hall.yaml")
        try """
        mqtt:
          url: \(broker.url)
        homeassistant:
          enabled: true
          discovery_prefix: ha
        hall:
          port: \(TestTools.freeLoopbackPort())
          audit_file: \(folder.path)/audit.jsonl
          broadcast:
            orphan_after: 10
            rounds:
              - round: "1"
                pairings_file: round.csv
                time_control: 5400+30
                running: true

        """.write(to: config, atomically: true, encoding: .utf8)
        let boardbridge = try TestTools.product("boardbridge")
        let hall = ManagedProcess(executable: boardbridge, arguments: ["hall", "--config", config.path])
        try hall.start()
        defer { hall.stop() }
        #expect(await hall.output(containing: "hall listening", within: .seconds(20)), "\(hall.output)")

        // Nothing heard from either board for orphan_after: both are silent boards.
        var summary: [String: Any] = [:]
        let orphaned = await eventuallyAsync(timeout: .seconds(40)) {
            summary = (try? await retained(Self.alertsTopic, broker: broker)) ?? [:]
            return summary["orphan_boards"] as? Int == 2
        }
        #expect(orphaned, "\(summary)")
        #expect(summary["state"] as? String == "online")
        #expect(summary["count"] as? Int == 2)
        #expect(summary["games_without_clock_times"] as? Int == 0)
        let alerts = summary["alerts"] as? [[String: Any]] ?? []
        #expect(alerts.map { $0["alert"] as? String } == ["orphan_board", "orphan_board"])
        #expect(alerts.map { $0["board_id"] as? String } == ["b1", "b2"])
        #expect(alerts.allSatisfy { $0["round"] as? String == "1" })

        // The hall device in Home Assistant, available while the summary says online.
        let attention = try await retained("ha/binary_sensor/boardbridge_hall/attention/config", broker: broker)
        #expect(attention["state_topic"] as? String == Self.alertsTopic)
        #expect(attention["device_class"] as? String == "problem")
        let availability = attention["availability"] as? [[String: Any]] ?? []
        #expect(availability.first?["topic"] as? String == Self.alertsTopic)
        #expect((attention["device"] as? [String: Any])?["name"] as? String == "BoardBridge hall")
        let sensor = try await retained("ha/sensor/boardbridge_hall/alerts/config", broker: broker)
        #expect(sensor["json_attributes_topic"] as? String == Self.alertsTopic)

        // A stop says offline.
        #expect(await hall.terminate() == 0)
        let stopped = try await retained(Self.alertsTopic, broker: broker)
        #expect(stopped["state"] as? String == "offline", "\(stopped)")
        #expect(stopped["count"] as? Int == 0)

        // Started again: online, with its alerts; killed: its last will says offline.
        let again = ManagedProcess(executable: boardbridge, arguments: ["hall", "--config", config.path])
        try again.start()
        defer { again.stop() }
        #expect(await again.output(containing: "hall listening", within: .seconds(20)), "\(again.output)")
        #expect(
            await eventuallyAsync(timeout: .seconds(20)) {
                (try? await retained(Self.alertsTopic, broker: broker))?["state"] as? String == "online"
            })
        again.send(signal: SIGKILL)
        #expect(await again.exitStatus(within: .seconds(10)) != nil)
        #expect(
            await eventuallyAsync(timeout: .seconds(20)) {
                (try? await retained(Self.alertsTopic, broker: broker))?["state"] as? String == "offline"
            })
    }

    /// The retained JSON object on `topic` (empty when none comes within 3 s).
    private func retained(_ topic: String, broker: MosquittoBroker) async throws -> [String: Any] {
        let sub = ManagedProcess(
            executable: try TestTools.require("mosquitto_sub"),
            arguments: ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-C", "1", "-W", "3"])
        try sub.start()
        _ = await sub.exitStatus(within: .seconds(10))
        let line = sub.output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }
}
