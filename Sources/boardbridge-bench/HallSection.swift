import Foundation
import MQTT
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Section 5: the hall view (`boardbridge hall`) at tournament scale: 512 boards over 8
/// nodes, a move every ~30 s per board with bursts (a quarter of the boards at once, as
/// after a time-control), 20 connected SSE clients. Measures the time from the MQTT publish
/// to the event read by each client (the hall's write plus loopback), the hall's CPU, RSS
/// and the bytes per update; then the cost of a `/metrics` scrape (HallMetricsScrape.swift).
@MainActor
struct HallSection: BenchSection {
    let number = 5
    let id = "hall"
    let title = "Hall view: 512 boards over 8 nodes, 20 SSE clients"

    static let boards = 512
    static let nodes = 8
    static let clients = 20

    func run(_ context: BenchContext) async throws {
        let broker = try BenchBroker()
        try await broker.start()
        defer { broker.stop() }
        let executable = URL(fileURLWithPath: BridgeRig.executablePath()).deletingLastPathComponent()
            .appendingPathComponent("boardbridge").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError(description: "no boardbridge next to the bench (\(executable))")
        }
        let folder = try TestTools.temporaryDirectory("bench-hall")
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = TestTools.freeLoopbackPort()
        let config = folder.appendingPathComponent("hall.yaml")
        try "mqtt:\n  url: \(broker.url)\nhall:\n  port: \(port)\nlogging:\n  level: warning\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let hall = BenchProcess(name: "hall", executable: executable, arguments: ["hall", "--config", config.path])
        try hall.start()
        defer { _ = hall.stop() }
        let publisher = try MQTTClient(
            configuration: try MQTTConfiguration(url: broker.url, clientID: "bench-hall-\(getpid())"))
        defer { publisher.stop() }
        publisher.start()
        try await Self.until("the hall listening and the publisher connected") {
            TestTools.acceptsConnections(port: port) && publisher.state.isConnected
        }
        for node in 0..<Self.nodes {
            let ids = stride(from: node, to: Self.boards, by: Self.nodes).map { "{\"id\":\"t\($0)\"}" }
            try publisher.publish(
                topic: "boardbridge/bridge/n\(node)/info",
                payload: Array("{\"node\":\"n\(node)\",\"boards\":[\(ids.joined(separator: ","))]}".utf8),
                qos: .atLeastOnce, retain: true)
        }
        var plies = [Int](repeating: 0, count: Self.boards)
        for board in 0..<Self.boards { try publish(publisher, board: board, ply: 0) }
        let readers = (0..<Self.clients).map { _ in SSEReader(port: port) }
        defer { readers.forEach { $0.stop() } }
        try await Self.until("every client's snapshot") { readers.allSatisfy { $0.snapshots > 0 } }
        try await Task.sleep(for: .seconds(1))
        readers.forEach { $0.reset() }
        guard let start = hall.sample() else { throw BenchError(description: "the hall exited") }
        // Tournament pace: each board moves every ~30 s (17 moves/s over 512 boards); every
        // 5 s a burst of a quarter of the boards moves at once.
        let seconds = context.quick ? 6 : 30
        let began = ContinuousClock.now
        var sent = 0
        var random = SeededGenerator(seed: 21)
        var tick = 0
        while ContinuousClock.now - began < .seconds(seconds) {
            tick += 1
            let burst = tick % 50 == 0
            for _ in 0..<(burst ? Self.boards / 4 : Int.random(in: 1...3, using: &random)) {
                let board = Int.random(in: 0..<Self.boards, using: &random)
                plies[board] += 1
                try publish(publisher, board: board, ply: plies[board])
                sent += 1
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(2))
        guard let end = hall.sample() else { throw BenchError(description: "the hall exited") }
        let usage = ProcessSampler.usage(from: start, to: end)
        let latencies = readers.flatMap { $0.latencies() }
        let received = latencies.count
        let stats = Percentiles(latencies)
        let bytes = readers.map(\.bytes).reduce(0, +)
        let note =
            "\(Self.boards) boards, \(Self.nodes) nodes, \(Self.clients) SSE clients, \(sent) moves in \(seconds) s"
        context.record(
            BenchResult(
                key: "hall.latency.p50", label: "MQTT publish → SSE event read, p50", value: stats.median * 1e3,
                unit: "ms", details: ["events": Double(received), "expected": Double(sent * Self.clients)], note: note))
        context.record(
            BenchResult(
                key: "hall.latency.p99", label: "MQTT publish → SSE event read, p99", value: stats.p99 * 1e3,
                unit: "ms", goal: BenchGoal(direction: .atMost, threshold: 50, text: "< 50 ms"),
                details: ["max_ms": stats.maximum * 1e3]))
        context.record(
            BenchResult(
                key: "hall.cpu", label: "hall CPU under load", value: usage.fractionOfCore * 100, unit: "% of a core",
                goal: BenchGoal(direction: .atMost, threshold: 2, text: "< 2 %")))
        context.record(
            BenchResult(
                key: "hall.rss", label: "hall RSS at 512 boards", value: Double(end.rssBytes) / 1_048_576, unit: "MB",
                goal: BenchGoal(direction: .atMost, threshold: 30, text: "< 30 MB"),
                details: ["peak_mb": Double(end.peakRSSBytes) / 1_048_576]))
        context.record(
            BenchResult(
                key: "hall.bytes_per_update", label: "SSE bytes per board update and client",
                value: received > 0 ? Double(bytes) / Double(received) : 0, unit: "B"))
        if received < sent * Self.clients {
            throw BenchError(description: "\(sent * Self.clients - received) SSE events missing")
        }
        try await measureMetrics(context, publisher: publisher, port: port, hall: hall)
    }

    private func publish(_ publisher: MQTTClient, board: Int, ply: Int) throws {
        let micros = Int(Date().timeIntervalSince1970 * 1e6)
        let payload = """
            {"board":"t\(board)","fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",\
            "turn":"black","ply":\(ply),"move_number":\(ply / 2 + 1),"last_move":{"uci":"g1f3","san":"Nf3"},\
            "sync":{"state":"in_sync","squares":[],"reason":null},\
            "clock":{"white":5400,"black":5390,"running":"black","paused":false},\
            "game":{"round":"1","board":"\(board + 1)","white":"White \(board)","black":"Black \(board)"},\
            "result":"*","bench_sent":\(micros)}
            """
        try publisher.publish(
            topic: "boardbridge/t\(board)", payload: Array(payload.utf8), qos: .atLeastOnce, retain: true)
    }

    private static func until(_ what: String, _ condition: @MainActor () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw BenchError(description: "timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// One SSE client on its own thread: reads `/api/events`, and for every `board` event
/// notes the time since the `bench_sent` microseconds in its data.
final class SSEReader: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Double] = []
    private var snapshotCount = 0
    private var byteCount = 0
    private var stopped = false
    private var descriptor: Int32 = -1

    init(port: UInt16) {
        Thread.detachNewThread { [self] in read(port: port) }
    }

    var snapshots: Int { lock.withLock { snapshotCount } }
    var bytes: Int { lock.withLock { byteCount } }
    func latencies() -> [Double] { lock.withLock { samples } }

    func reset() {
        lock.withLock {
            samples = []
            byteCount = 0
        }
    }

    func stop() {
        lock.withLock {
            stopped = true
            if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func read(port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        lock.withLock { descriptor = fd }
        defer { close(fd) }
        guard connected else { return }
        let request = Array("GET /api/events HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return }
            let now = Date().timeIntervalSince1970
            pending.append(contentsOf: buffer[..<n])
            // Events end with an empty line; each board event is one `data:` line. One pass
            // over what arrived, one compaction per read: the reader must not be the bottleneck
            // it measures (copying the buffer per event cost tens of milliseconds in a burst).
            let (found, snapshot, consumed) = Self.scan(pending, receivedAt: now)
            pending.removeFirst(consumed)
            lock.withLock {
                samples.append(contentsOf: found)
                snapshotCount += snapshot
                byteCount += n
            }
            if lock.withLock({ stopped }) { return }
        }
    }

    /// The latencies of the board events and the count of snapshots among the complete events
    /// in `bytes`, and how many bytes those events took.
    private static func scan(_ bytes: [UInt8], receivedAt now: Double) -> ([Double], Int, Int) {
        let boardEvent = Array("event: board".utf8)
        let snapshotEvent = Array("event: snapshot".utf8)
        let marker = Array("\"bench_sent\":".utf8)
        var found: [Double] = []
        var snapshots = 0
        var eventStart = 0
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == 10, bytes[index + 1] == 10 else {
                index += 1
                continue
            }
            let event = bytes[eventStart..<index]
            // Found anywhere in the event: the first one follows the response head, and a chunk
            // size line may stand before any of them.
            if find(snapshotEvent, in: event) != nil {
                snapshots += 1
            } else if find(boardEvent, in: event) != nil, let at = find(marker, in: event) {
                var value = 0
                var digit = at + marker.count
                while digit < event.endIndex, event[digit] >= 48, event[digit] <= 57 {
                    value = value * 10 + Int(event[digit] - 48)
                    digit += 1
                }
                found.append(now - Double(value) / 1e6)
            }
            index += 2
            eventStart = index
        }
        return (found, snapshots, eventStart)
    }

    /// The absolute index in `haystack`'s base array where `needle` starts.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.startIndex
        while start <= haystack.endIndex - needle.count {
            if haystack[start] == needle[0], haystack[start..<start + needle.count].elementsEqual(needle) {
                return start
            }
            start += 1
        }
        return nil
    }
}
