import Contract
import Foundation
import HTTP
import JSON
import TestSupport
import Testing

@testable import Hall

@Suite("HallHealth: every node's health report in the hall, /metrics, and boards of offline hosts")
struct HallHealthTests {
    static let t0 = ISO8601Timestamp.milliseconds("2026-05-01T14:00:00.000Z")!

    /// A report as the bridge makes it (``HealthPayload/json``), for `boards` at `time`.
    static func report(
        _ boards: [HealthPayload.Board], at time: Double, rss: Int = 21_000_000, queued: Int = 3
    )
        -> String
    {
        HealthPayload(
            process: .init(
                uptime: 120, cpuPercent: 1.5, rssBytes: rss,
                moveHandling: .init(median: 236e-6, p99: 612e-6, maximum: 0.0014, moves: 40, total: 40)),
            broker: .init(connected: true, queued: queued, published: 900, dropped: 2),
            stateDirectory: .init(
                path: "/var/lib/boardbridge", writable: true, freeBytes: 1 << 30, errors: 0, lastError: nil,
                lastErrorAt: nil, problem: false),
            boards: boards, timestamp: Date(timeIntervalSince1970: time / 1000)
        ).json.encodedString()
    }

    static func board(
        _ id: String, stalled: Bool = false, rssi: Int? = -61, reconnects: Int = 0, since: Double? = 1.5
    ) -> HealthPayload.Board {
        HealthPayload.Board(
            id: id, connection: stalled ? "ready" : "ready", rssi: rssi, notificationsPerSecond: 0.25,
            secondsSinceLastFrame: since, stalled: stalled, stalls: stalled ? 1 : 0, reconnects: reconnects,
            adapterResets: 0, missingAcks: 4, malformedFrames: 0, batteryPercent: 80)
    }

    @discardableResult
    static func apply(_ model: inout HallModel, _ topic: String, _ payload: String, at now: Double) -> [HallChange] {
        (try? model.apply(topic: "boardbridge/" + topic, payload: Array(payload.utf8), now: now).get()) ?? []
    }

    /// Two nodes: hall-a (b1, b2) and hall-b (b3), both online with a fresh report.
    static func world() -> HallModel {
        var model = HallModel(base: "boardbridge")
        apply(
            &model, "bridge/hall-a/info", #"{"boards":[{"id":"b1"},{"id":"b2"}],"config":{"health":{"interval":10}}}"#,
            at: t0)
        apply(&model, "bridge/hall-b/info", #"{"boards":[{"id":"b3"}]}"#, at: t0)
        for node in ["hall-a", "hall-b"] { apply(&model, "bridge/\(node)/state", #"{"state":"online"}"#, at: t0) }
        apply(
            &model, "bridge/hall-a/health", report([board("b1"), board("b2", stalled: true, rssi: nil)], at: t0), at: t0
        )
        apply(&model, "bridge/hall-b/health", report([board("b3", reconnects: 7, since: nil)], at: t0), at: t0)
        return model
    }

    @Test("a health report reaches the node and its boards, in the served JSON")
    func reportInModel() throws {
        let model = Self.world()
        #expect(model.nodes["hall-a"]?.up == true)
        #expect(model.nodes["hall-a"]?.healthInterval == 10)
        let node = HallJSON.node(model.nodes["hall-a"]!)
        #expect(node["up"] == true)
        #expect(node["health"]?["rss_bytes"] == 21_000_000)
        #expect(node["health"]?["mqtt_queued"] == 3)
        let b2 = HallJSON.board(model.boards["b2"]!, model: model)
        #expect(b2["health"]?["stalled"] == true)
        #expect(b2["health"]?["rssi"] == .null)
        #expect(HallJSON.board(model.boards["b3"]!, model: model)["health"]?["reconnects"] == 7)
    }

    @Test("a new report sends only the boards whose figures changed")
    func onlyChangedBoards() {
        var model = Self.world()
        let report = Self.report([Self.board("b1"), Self.board("b2", stalled: false, rssi: -70)], at: Self.t0 + 1000)
        let changes = Self.apply(&model, "bridge/hall-a/health", report, at: Self.t0 + 1000)
        #expect(changes.contains(.node("hall-a")))
        #expect(changes.contains(.board("b2")))
        #expect(!changes.contains(.board("b1")))
        #expect(model.health(of: "b2")?.stalled == false)
    }

    @Test("a node is down when offline or when its report is older than three intervals")
    func staleAndOffline() {
        var model = Self.world()
        // hall-a reports every 10 s: stale after 30 s; hall-b says nothing: 60 s, so 180 s.
        #expect(model.refreshHealth(now: Self.t0 + 29_000).isEmpty)
        let changes = model.refreshHealth(now: Self.t0 + 31_000)
        #expect(
            changes.contains(.node("hall-a")) && changes.contains(.board("b1")) && !changes.contains(.node("hall-b")))
        #expect(model.nodes["hall-a"]?.up == false && model.nodes["hall-b"]?.up == true)
        #expect(model.refreshHealth(now: Self.t0 + 31_000).isEmpty, "reported once")
        let offline = Self.apply(&model, "bridge/hall-b/state", #"{"state":"offline"}"#, at: Self.t0 + 32_000)
        #expect(model.nodes["hall-b"]?.up == false)
        #expect(offline == [.node("hall-b"), .board("b3")], "each change once")
        // A retained report that is old already when it arrives (a hall started late) is stale.
        var late = HallModel(base: "boardbridge")
        Self.apply(&late, "bridge/hall-c/health", Self.report([], at: Self.t0), at: Self.t0 + 600_000)
        #expect(late.isUp("hall-c", now: Self.t0 + 600_000) == false)
        // A report from a clock running ahead does not stay fresh for longer.
        Self.apply(&late, "bridge/hall-c/health", Self.report([], at: Self.t0 + 3_600_000), at: Self.t0 + 600_000)
        #expect(late.isUp("hall-c", now: Self.t0 + 600_000 + 179_000) == true)
        #expect(late.isUp("hall-c", now: Self.t0 + 600_000 + 181_000) == false)
    }

    @Test("a board of an offline host is offline and a command for it is refused with the node's name")
    func offlineHost() {
        var model = Self.world()
        Self.apply(&model, "b3/availability", #"{"state":"online"}"#, at: Self.t0)
        #expect(model.offlineNode(of: "b3") == nil)
        Self.apply(&model, "bridge/hall-b/state", #"{"state":"offline"}"#, at: Self.t0 + 1000)
        #expect(model.offlineNode(of: "b3") == "hall-b")
        #expect(model.offlineNode(of: "b1") == nil)
        let b3 = HallJSON.board(model.boards["b3"]!, model: model)
        #expect(b3["availability"] == "offline" && b3["host"] == "offline" && b3["attention"] == true)
        Self.apply(&model, "bridge/hall-b/state", #"{"state":"online"}"#, at: Self.t0 + 2000)
        #expect(model.offlineNode(of: "b3") == nil)
        #expect(HallJSON.board(model.boards["b3"]!, model: model)["availability"] == "online")
    }

    @Test("/metrics: every family once with HELP and TYPE, every node and board, stale and offline nodes up 0")
    func metrics() throws {
        var model = Self.world()
        var families = try PrometheusTextParser.parse(HallMetrics.render(model, now: Self.t0 + 1000))
        func family(_ name: String) -> PrometheusTextParser.Family? { families.first { $0.name == name } }
        func value(_ name: String, _ labels: [String: String]) -> Double? {
            family(name)?.samples.first { $0.labels == labels }?.value
        }
        let expected: [String: String] = [
            "boardbridge_up": "gauge", "boardbridge_process_rss_bytes": "gauge", "boardbridge_mqtt_queued": "gauge",
            "boardbridge_mqtt_dropped_total": "counter", "boardbridge_state_directory_problem": "gauge",
            "boardbridge_board_stalled": "gauge", "boardbridge_board_notifications_per_second": "gauge",
            "boardbridge_board_reconnects_total": "counter", "boardbridge_board_missing_acks_total": "counter",
            "boardbridge_board_rssi_dbm": "gauge", "boardbridge_board_seconds_since_last_frame": "gauge",
            "boardbridge_move_handling_p50_seconds": "gauge", "boardbridge_move_handling_p99_seconds": "gauge",
        ]
        for (name, type) in expected {
            #expect(family(name)?.type == type, "\(name)")
            #expect(family(name)?.help?.isEmpty == false, "\(name)")
        }
        #expect(value("boardbridge_up", ["node": "hall-a"]) == 1)
        #expect(value("boardbridge_process_rss_bytes", ["node": "hall-a"]) == 21_000_000)
        #expect(value("boardbridge_move_handling_p50_seconds", ["node": "hall-a"]) == 0.000236)
        #expect(value("boardbridge_move_handling_p99_seconds", ["node": "hall-a"]) == 0.000612)
        #expect(value("boardbridge_mqtt_dropped_total", ["node": "hall-b"]) == 2)
        #expect(value("boardbridge_board_stalled", ["node": "hall-a", "board": "b2"]) == 1)
        #expect(value("boardbridge_board_stalled", ["node": "hall-a", "board": "b1"]) == 0)
        #expect(value("boardbridge_board_rssi_dbm", ["node": "hall-a", "board": "b1"]) == -61)
        #expect(value("boardbridge_board_rssi_dbm", ["node": "hall-a", "board": "b2"]) == nil, "unknown: no sample")
        #expect(value("boardbridge_board_reconnects_total", ["node": "hall-b", "board": "b3"]) == 7)
        #expect(value("boardbridge_board_notifications_per_second", ["node": "hall-a", "board": "b1"]) == 0.25)
        #expect(value("boardbridge_board_seconds_since_last_frame", ["node": "hall-a", "board": "b1"]) == 1.5)
        #expect(value("boardbridge_health_report_age_seconds", ["node": "hall-a"]) == 1)
        #expect(family("boardbridge_board_stalled")?.samples.count == 3)

        // hall-a's report goes stale, hall-b goes offline: both up 0, none of their figures.
        Self.apply(&model, "bridge/hall-b/state", #"{"state":"offline"}"#, at: Self.t0 + 1000)
        families = try PrometheusTextParser.parse(HallMetrics.render(model, now: Self.t0 + 40_000))
        #expect(value("boardbridge_up", ["node": "hall-a"]) == 0)
        #expect(value("boardbridge_up", ["node": "hall-b"]) == 0)
        #expect(family("boardbridge_board_stalled")?.samples.isEmpty == true)
        #expect(family("boardbridge_process_rss_bytes")?.samples.isEmpty == true)
        // A node seen only through its state (no report yet) is listed, down.
        Self.apply(&model, "bridge/hall-z/state", #"{"state":"online"}"#, at: Self.t0 + 40_000)
        families = try PrometheusTextParser.parse(HallMetrics.render(model, now: Self.t0 + 40_000))
        #expect(value("boardbridge_up", ["node": "hall-z"]) == 0)
        #expect(try PrometheusTextParser.parse(HallMetrics.render(HallModel(base: "b"), now: 0)).count == 17)
    }

    @Test("label values and help texts are escaped as the format says; values read back exactly")
    func escaping() throws {
        let hostile = "a\"b\\c\nd}{,=é"
        var text = ""
        HallMetrics.header(&text, "m", "gauge", "two\nlines \\ here")
        HallMetrics.sample(&text, "m", [("node", hostile), ("board", "")], 0.1)
        HallMetrics.sample(&text, "m", [("node", "x")], -1e-300)
        HallMetrics.sample(&text, "m", [("node", "y")], .nan)
        HallMetrics.sample(&text, "m", [("node", "z")], -.infinity)
        HallMetrics.sample(&text, "m", [("node", "w")], 123_456_789_012)
        let family = try #require(try PrometheusTextParser.parse(text).first)
        #expect(family.help == "two\nlines \\ here")
        #expect(family.samples[0].labels == ["node": hostile, "board": ""])
        #expect(family.samples[0].value == 0.1)
        #expect(family.samples[1].value == -1e-300)
        #expect(family.samples[2].value.isNaN)
        #expect(family.samples[3].value == -.infinity)
        #expect(text.contains("m{node=\"w\"} 123456789012\n"))
        // The strict parser refuses what the format does not allow.
        for bad in [
            "m 1\n", "# TYPE m gauge\nm{a=\"\\x\"} 1\n", "# TYPE m gauge\nm 1\nm 2\n", "# TYPE m gauge\nm 1",
            "# TYPE m gauge\n# TYPE n gauge\nn 1\nm 1\n", "# TYPE m gauge\nm{a=\"1\"} one\n",
        ] {
            #expect(throws: PrometheusTextParser.Failure.self, "\(bad)") { try PrometheusTextParser.parse(bad) }
        }
    }

    @Test("random health reports never break the exposition and the model stays bounded", arguments: [4, 5, 6])
    func fuzz(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var model = HallModel(base: "boardbridge")
        let values: [JSONValue] = [
            .null, true, "ready", 0, -1, 1e300, -0.5, 12_345_678_901_234_567, [], ["x": 1], "\"\\\n",
        ]
        let keys = [
            "rssi", "stalled", "reconnects", "notifications_per_second", "seconds_since_last_frame", "connection",
        ]
        let ids = ["b1", "b2", "<x>", "b 3", "b\"4", String(repeating: "z", count: 80)]
        for step in 0..<400 {
            var boards = JSONObject()
            for id in ids where Bool.random(using: &random) {
                var board = JSONObject()
                for key in keys where Bool.random(using: &random) { board[key] = values.randomElement(using: &random)! }
                board["protocol_violations"] = ["missing_acks": values.randomElement(using: &random)!]
                boards[id] = Bool.random(using: &random) ? .object(board) : values.randomElement(using: &random)!
            }
            let report: JSONValue = [
                "process": ["rss_bytes": values.randomElement(using: &random)!],
                "mqtt": [
                    "queued": values.randomElement(using: &random)!, "dropped": values.randomElement(using: &random)!,
                ],
                "state_directory": ["problem": values.randomElement(using: &random)!],
                "boards": Bool.random(using: &random) ? .object(boards) : values.randomElement(using: &random)!,
                "timestamp": Bool.random(using: &random) ? "2026-05-01T14:00:00.000Z" : "garbage",
            ]
            let node = ["hall-a", "hall-b", "h\"c"].randomElement(using: &random)!
            let payload = Bool.random(using: &random) ? report.encodedString() : "{\"boards\":"
            _ = model.apply(
                topic: "boardbridge/bridge/\(node)/health", payload: Array(payload.utf8), now: Self.t0 + Double(step))
            let families = try PrometheusTextParser.parse(HallMetrics.render(model, now: Self.t0 + Double(step)))
            let labels = families.flatMap { $0.samples.compactMap { $0.labels["board"] } }
            #expect(labels.allSatisfy { (try? Topics.validateBoardID($0)) != nil })
        }
        #expect(model.nodes.count <= 2, "an invalid node name is refused")
    }

    @Test("GET /metrics is routed; the page carries the health script after its own, before </body>")
    func routeAndPage() throws {
        let router = HallRouter(password: nil)
        #expect(router.route(HTTPRequest(method: "GET", path: "/metrics")) == .metrics)
        let page = String(decoding: HallPage.response.body, as: UTF8.self)
        let health = try #require(page.range(of: "const baseStatus = statusOf"))
        let own = try #require(page.range(of: "function statusOf("))
        let end = try #require(page.range(of: "</body>", options: .backwards))
        #expect(own.upperBound < health.lowerBound && health.upperBound < end.lowerBound)
        #expect(page.components(separatedBy: "<script>").count == 3)
    }

    @Test("a command another client sends to a board of an offline host is answered with an error naming the host")
    func offlineAnswer() throws {
        var model = Self.world()
        let topics = try Topics(base: "boardbridge", node: "hall")
        let command = Array(#"{"leds":["e2"],"transaction":"t-7"}"#.utf8)
        #expect(model.offlineAnswer(topic: "boardbridge/b3/set", payload: command, topics: topics) == nil)
        Self.apply(&model, "bridge/hall-b/state", #"{"state":"offline"}"#, at: Self.t0)
        let answer = try #require(model.offlineAnswer(topic: "boardbridge/b3/set", payload: command, topics: topics))
        #expect(answer.topic == "boardbridge/b3/response")
        #expect(answer.json["status"] == "error" && answer.json["transaction"] == "t-7")
        #expect(answer.json["error"]?.stringValue?.hasPrefix("node hall-b offline") == true)
        let named = model.offlineAnswer(topic: "boardbridge/b3/set/leds", payload: Array("e2".utf8), topics: topics)
        #expect(named?.json["status"] == "error" && named?.json["transaction"] == nil)
        #expect(model.offlineAnswer(topic: "boardbridge/b1/set", payload: command, topics: topics) == nil)
        #expect(model.offlineAnswer(topic: "boardbridge/b3/response", payload: command, topics: topics) == nil)
        #expect(model.offlineAnswer(topic: "boardbridge/b9/set", payload: command, topics: topics) == nil)
        let nested = Array(#"{"leds":[],"transaction":{"a":1}}"#.utf8)
        #expect(
            model.offlineAnswer(topic: "boardbridge/b3/set", payload: nested, topics: topics)?.json["transaction"]
                == nil)
    }
}
