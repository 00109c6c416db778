import Contract
import Foundation
import JSON
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #20 (health): a board that stays connected but sends nothing (`boardsim ctl
    /// lose 1000`, more than it sends meanwhile: the adapter hang) is reported stalled — a `stalled`
    /// event, `connection` reason `stalled`, `stalled: true` in the health report — and its
    /// link is recycled through the reconnect policy; an idle board beside it is asked for
    /// its battery half-way and answers, so it is never taken for a stalled one. The report
    /// also comes on request, and its figures are Home Assistant diagnostic entities.
    @Test func stalledBoardIsReportedAndItsLinkRecycled() async throws {
        let stalling = HallBoard(id: "stall-1", family: "chessnut", address: "AA:BB:CC:00:20:01")
        let idle = HallBoard(id: "idle-1", family: "chessnut", address: "AA:BB:CC:00:20:02")
        let hall = try await Hall(
            boards: [stalling, idle],
            settings: HallSettings(reconnectDelays: [1], homeAssistant: true, health: (interval: 2, stallAfter: 4)))
        defer { hall.stop() }
        let healthTopic = "\(Hall.base)/bridge/\(Hall.node)/health"
        func reports(since mark: Int) -> [JSONValue] { hall.recorder.json(on: healthTopic, since: mark) }
        func figures(_ report: JSONValue, _ board: String) -> JSONValue? { report["boards"]?[board] }

        // Retained reports every interval, with every section.
        try await waitUntil("a health report with both boards ready", context: hall.report) {
            reports(since: 0).contains { figures($0, idle.id)?["connection"] == "ready" }
        }
        let first = try #require(reports(since: 0).last)
        #expect(first["process"]?["uptime"]?.doubleValue != nil)
        #expect((first["process"]?["rss_bytes"]?.intValue ?? 0) > 1_000_000)
        #expect(first["mqtt"]?["connected"] == true)
        #expect(first["state_directory"]?["writable"] == true)
        #expect((first["state_directory"]?["free_bytes"]?.intValue ?? 0) > 0)
        #expect(first["state_directory"]?["problem"] == false)
        #expect(figures(first, stalling.id)?["protocol_violations"]?["missing_acks"] == 0)

        // The stall: connected, nothing arrives.
        let mark = hall.recorder.mark
        try await hall.ctl("lose", stalling.id, "1000")
        try await waitUntil("a stalled event", context: hall.report) {
            hall.eventTypes(stalling.id, since: mark).contains("stalled")
        }
        try await hall.ctl("lose", stalling.id, "0")
        let stalledEvent = hall.recorder.json(on: hall.topic(stalling.id, "event"), since: mark)
            .first { $0["event_type"] == "stalled" }
        #expect((stalledEvent?["silent_for"]?.doubleValue ?? 0) >= 4)
        #expect(reports(since: mark).contains { figures($0, stalling.id)?["stalled"] == true })

        // Recycled per the reconnect policy: reconnecting with reason `stalled`, then ready.
        try await hall.waitUntilReady(stalling.id, since: mark)
        let connections = hall.recorder.json(on: hall.topic(stalling.id, "connection"), since: mark)
        let recycled = connections.first { $0["state"] == "reconnecting" }
        #expect(recycled?["reason"] == "stalled")
        #expect(recycled?["last_error"]?.stringValue?.hasPrefix("stalled") == true)
        #expect(recycled?["attempt"] == 1)
        #expect(connections.last?["reason"] == .null)
        try await waitUntil("a report after the recycle", context: hall.report) {
            reports(since: mark).contains {
                figures($0, stalling.id)?["reconnects"] == 1 && figures($0, stalling.id)?["stalled"] == false
                    && figures($0, stalling.id)?["connection"] == "ready"
            }
        }

        // The idle board, silent as long, answered its probe: never stalled.
        #expect(!hall.eventTypes(idle.id, since: 0).contains("stalled"))
        #expect(reports(since: 0).allSatisfy { figures($0, idle.id)?["stalled"] == false })
        #expect(reports(since: 0).allSatisfy { figures($0, idle.id)?["stalls"] == 0 })

        // The adapter goes away and comes back: an adapter reset for each of its boards.
        let powered = hall.recorder.mark
        try await hall.ctl("power", "hci0", "false")
        try await waitUntil("both boards powered_off", context: hall.report) {
            [stalling.id, idle.id].allSatisfy { hall.connectionStates($0, since: powered).contains("powered_off") }
        }
        try await hall.ctl("power", "hci0", "true")
        for board in [stalling.id, idle.id] { try await hall.waitUntilReady(board, since: powered) }
        try await waitUntil("adapter resets counted", context: hall.report) {
            reports(since: powered).contains { report in
                [stalling.id, idle.id].allSatisfy { figures(report, $0)?["adapter_resets"] == 1 }
            }
        }

        // On request: the response carries the report, and it is published retained.
        let asked = hall.recorder.mark
        try hall.recorder.publish("\(Hall.base)/bridge/\(Hall.node)/request/health", #"{"transaction":7}"#)
        let responseTopic = "\(Hall.base)/bridge/\(Hall.node)/response/health"
        try await waitUntil("the health response", context: hall.report) {
            !hall.recorder.json(on: responseTopic, since: asked).isEmpty
        }
        let response = try #require(hall.recorder.json(on: responseTopic, since: asked).first)
        #expect(response["status"] == "ok")
        #expect(response["transaction"] == 7)
        #expect(figures(response["data"] ?? .null, stalling.id)?["stalls"] == 1)
        #expect(!reports(since: asked).isEmpty)

        // Home Assistant: diagnostic entities on the board and bridge devices, reading the report.
        let stalledEntity = try #require(
            hall.recorder.messages.last {
                $0.topic == "homeassistant/binary_sensor/\(Hall.base)_board_\(stalling.id)/health_stalled/config"
            })
        let stalledConfig = try JSONValue(parsing: stalledEntity.text)
        #expect(stalledConfig["state_topic"]?.stringValue == healthTopic)
        #expect(stalledConfig["device_class"] == "problem")
        #expect(stalledConfig["entity_category"] == "diagnostic")
        let directoryEntity = hall.recorder.messages.last {
            $0.topic == "homeassistant/binary_sensor/\(Hall.base)_bridge_\(Hall.node)/health_state_directory/config"
        }
        #expect(directoryEntity != nil)
    }
}

extension EndToEndTests {
    /// Issue #16 (read-only and full state directory): the bridge runs in a mount namespace
    /// of its own with a 256 KiB tmpfs on its state directory (`unshare -m`: as root, chmod
    /// would not stop a write). Filled up, then remounted read-only, the directory is
    /// reported — `state_directory` in the health report (`writable`, `errors`,
    /// `last_error`, `problem`) and the bridge's Home Assistant problem sensor — while moves
    /// are still published; writable again, the next save carries the move made meanwhile
    /// and the problem clears.
    @Test func fullAndReadOnlyStateDirectoryAreReported() async throws {
        let board = HallBoard(id: "saved-1", family: "chessnut", address: "AA:BB:CC:00:20:11")
        let hall = try await Hall(
            boards: [board],
            settings: HallSettings(
                homeAssistant: true, health: (interval: 1, stallAfter: 0), stateDirectoryTmpfs: "size=256k"))
        defer { hall.stop() }
        let state = hall.directory.appendingPathComponent("state").path
        let healthTopic = "\(Hall.base)/bridge/\(Hall.node)/health"
        func directory(since mark: Int) -> [JSONValue] {
            hall.recorder.json(on: healthTopic, since: mark).compactMap { $0["state_directory"] }
        }
        try await waitUntil("a healthy state directory", context: hall.report) {
            directory(since: 0).contains { $0["writable"] == true && $0["problem"] == false }
        }
        let free = directory(since: 0).last?["free_bytes"]?.intValue ?? 0
        #expect(free > 100_000 && free <= 262_144, "free bytes \(free)")

        // Full: the moves are published, every failed save is counted and reported.
        try await hall.inBridgeNamespace("head -c 1048576 /dev/zero > '\(state)/filler'; df '\(state)' >&2; true")
        var mark = hall.recorder.mark
        // A new game rewrites the saved game whole: a new file, which a full disk refuses
        // (an append may still fit in the journal's last page).
        try hall.recorder.publish(hall.topic(board.id, "set"), #"{"new_game":{}}"#)
        try await waitUntil("the new game", context: hall.report) {
            hall.eventTypes(board.id, since: mark).contains("game_start")
        }
        try await hall.play(board.id, ["e2e4", "e7e5"])
        try await hall.waitForMoves(board.id, count: 2, since: mark)
        try await waitUntil("a full state directory reported", context: hall.report) {
            directory(since: mark).contains {
                $0["problem"] == true && $0["writable"] == false && ($0["errors"]?.intValue ?? 0) >= 1
                    && $0["last_error"]?.stringValue?.lowercased().contains("space") == true
            }
        }
        #expect(hall.bridge.output.contains("saved game: failed"))

        // Read-only: a read-only bind mount over the directory (tmpfs itself cannot be
        // remounted read-only while the journal is open for writing).
        try await hall.inBridgeNamespace(
            "rm -f '\(state)/filler' && mount --bind '\(state)' '\(state)' && mount -o remount,bind,ro '\(state)'")
        mark = hall.recorder.mark
        try await hall.play(board.id, ["g1f3"])
        try await hall.waitForMoves(board.id, count: 1, since: mark)
        try await waitUntil("a read-only state directory reported", context: hall.report) {
            directory(since: mark).contains {
                $0["writable"] == false && $0["problem"] == true
                    && $0["last_error"]?.stringValue?.lowercased().contains("read-only") == true
            }
        }

        // Writable again: the next save carries the move made while read-only.
        try await hall.inBridgeNamespace("umount '\(state)'")
        mark = hall.recorder.mark
        try await hall.play(board.id, ["b8c6"])
        try await hall.waitForMoves(board.id, count: 1, since: mark)
        try await waitUntil("the problem cleared", context: hall.report) {
            directory(since: mark).contains { $0["writable"] == true && $0["problem"] == false }
        }
        try await hall.inBridgeNamespace(
            #"cat '\#(state)/\#(board.id).json' '\#(state)/\#(board.id).journal' | grep -q '"san":"Nf3"'"#)

        // The bridge device's problem sensor reads the report.
        let sensor = try #require(
            hall.recorder.messages.last {
                $0.topic == "homeassistant/binary_sensor/\(Hall.base)_bridge_\(Hall.node)/health_state_directory/config"
            })
        let config = try JSONValue(parsing: sensor.text)
        #expect(config["state_topic"]?.stringValue == healthTopic)
        #expect(config["device_class"] == "problem")
    }
}

extension EndToEndTests {
    /// Issue #33 (the bridge's own latency): the health report times the moves the bridge
    /// publishes — from the loop's wake-up for the frame that completed each move to the
    /// move's PUBLISH handed over for sending — over the latest moves. Nothing before
    /// the first move; after the opening, its four moves.
    @Test func theHealthReportTimesTheMovesPublished() async throws {
        let board = HallBoard(id: "timed-1", family: "chessnut", address: "AA:BB:CC:00:21:01")
        let hall = try await Hall(boards: [board], settings: HallSettings(health: (interval: 600, stallAfter: 0)))
        defer { hall.stop() }
        let responseTopic = "\(Hall.base)/bridge/\(Hall.node)/response/health"
        func askForReport(_ transaction: Int) async throws -> JSONValue {
            let asked = hall.recorder.mark
            try hall.recorder.publish(
                "\(Hall.base)/bridge/\(Hall.node)/request/health", #"{"transaction":\#(transaction)}"#)
            try await waitUntil("the health response \(transaction)", context: hall.report) {
                !hall.recorder.json(on: responseTopic, since: asked).isEmpty
            }
            return try #require(hall.recorder.json(on: responseTopic, since: asked).first?["data"])
        }

        try await hall.waitUntilReady(board.id)
        let before = try await askForReport(1)
        #expect(before["process"]?["move_handling"] == .null)

        _ = try await hall.playOpening(board.id)
        let after = try await askForReport(2)
        let handling = try #require(after["process"]?["move_handling"])
        #expect(handling["moves"] == 4)
        #expect(handling["total"] == 4)
        let median = try #require(handling["p50_us"]?.doubleValue)
        let p99 = try #require(handling["p99_us"]?.doubleValue)
        let maximum = try #require(handling["max_us"]?.doubleValue)
        #expect(median > 0)
        #expect(median <= p99)
        #expect(p99 <= maximum)
    }
}
