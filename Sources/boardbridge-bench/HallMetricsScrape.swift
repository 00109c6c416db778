import Curl
import Foundation
import MQTT
import MainLoop

/// Section 5, part two: the cost of a Prometheus scrape of the hall's `/metrics` at 512
/// boards over 8 nodes (a retained health report per node, as the bridges publish them).
/// Compared with as many requests for one board's JSON (`/api/boards/t0`), the floor
/// of an HTTP round trip through the same server and loop, measured in the same run.
extension HallSection {
    static let scrapes = 40

    func measureMetrics(_ context: BenchContext, publisher: MQTTClient, port: UInt16, hall: BenchProcess) async throws {
        for node in 0..<Self.nodes {
            let boards = stride(from: node, to: Self.boards, by: Self.nodes).map { board in
                """
                "t\(board)":{"connection":"ready","rssi":-\(50 + board % 30),"notifications_per_second":0.4,\
                "seconds_since_last_frame":\(board % 40).5,"stalled":\(board % 97 == 0),"stalls":0,\
                "reconnects":\(board % 3),"adapter_resets":0,\
                "protocol_violations":{"missing_acks":\(board % 5),"malformed_frames":0},"battery":80}
                """
            }
            let report = """
                {"process":{"uptime":3600,"cpu_percent":1.2,"rss_bytes":24000000},\
                "mqtt":{"connected":true,"queued":0,"published":100000,"dropped":0},\
                "state_directory":{"path":"/var/lib/boardbridge","writable":true,"free_bytes":1000000000,\
                "errors":0,"last_error":null,"last_error_at":null,"problem":false},\
                "boards":{\(boards.joined(separator: ","))},"timestamp":"\(Self.timestamp())"}
                """
            try publisher.publish(
                topic: "boardbridge/bridge/n\(node)/state", payload: Array(#"{"state":"online"}"#.utf8),
                qos: .atLeastOnce, retain: true)
            try publisher.publish(
                topic: "boardbridge/bridge/n\(node)/health", payload: Array(report.utf8), qos: .atLeastOnce,
                retain: true)
        }
        let curl = CurlClient(label: "bench.hall.metrics")
        let metricsURL = "http://127.0.0.1:\(port)/metrics"
        let floorURL = "http://127.0.0.1:\(port)/api/boards/t0"
        func get(_ url: String) async throws -> (seconds: Double, body: [UInt8]) {
            let began = ContinuousClock.now
            let response = try await curl.perform(CurlRequest(url: url, maxResponseBytes: 16 << 20)).get()
            guard response.status == 200 else { throw BenchError(description: "\(url): HTTP \(response.status)") }
            let elapsed = ContinuousClock.now - began
            return (elapsed.inSeconds, response.body)
        }
        // Every board of every node listed, up: the reports are in.
        let deadline = ContinuousClock.now + .seconds(30)
        var body: [UInt8] = []
        while true {
            body = try await get(metricsURL).body
            let text = String(decoding: body, as: UTF8.self)
            let stalled = text.split(separator: "\n").filter { $0.hasPrefix("boardbridge_board_stalled{") }.count
            if stalled == Self.boards, !text.contains("boardbridge_up{node=\"n0\"} 0") { break }
            guard ContinuousClock.now < deadline else {
                throw BenchError(description: "/metrics lists \(stalled) of \(Self.boards) boards")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Scrapes, then as many floor requests: the hall's CPU of each run.
        func run(_ url: String) async throws -> (seconds: [Double], cpu: Double) {
            guard let start = hall.sample() else { throw BenchError(description: "the hall exited") }
            var seconds: [Double] = []
            for _ in 0..<Self.scrapes { seconds.append(try await get(url).seconds) }
            guard let end = hall.sample() else { throw BenchError(description: "the hall exited") }
            return (seconds, ProcessSampler.usage(from: start, to: end).cpuSeconds / Double(Self.scrapes))
        }
        let (scrape, scrapeCPU) = try await run(metricsURL)
        let (floor, floorCPU) = try await run(floorURL)
        let scrapeStats = Percentiles(scrape)
        let floorStats = Percentiles(floor)
        let lines = body.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        let note =
            "\(Self.boards) boards over \(Self.nodes) nodes, \(Self.scrapes) scrapes and \(Self.scrapes) floor requests"
        context.record(
            BenchResult(
                key: "hall.metrics.scrape_p50", label: "/metrics scrape at 512 boards, p50",
                value: scrapeStats.median * 1e3, unit: "ms",
                details: ["p99_ms": scrapeStats.p99 * 1e3, "bytes": Double(body.count), "lines": Double(lines)],
                note: note))
        context.record(
            BenchResult(
                key: "hall.metrics.floor_p50", label: "floor: one board's JSON through the same server, p50",
                value: floorStats.median * 1e3, unit: "ms", details: ["p99_ms": floorStats.p99 * 1e3]))
        context.record(
            BenchResult(
                key: "hall.metrics.over_floor", label: "/metrics scrape above the floor, p50",
                value: max(0, scrapeStats.median - floorStats.median) * 1e3, unit: "ms",
                goal: BenchGoal(direction: .atMost, threshold: 50, text: "< 50 ms")))
        context.record(
            BenchResult(
                key: "hall.metrics.cpu_per_scrape", label: "hall CPU per /metrics scrape",
                value: scrapeCPU * 1e3, unit: "ms", details: ["floor_ms": floorCPU * 1e3]))
    }

    static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
