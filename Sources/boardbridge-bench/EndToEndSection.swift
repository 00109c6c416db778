import Contract
import Foundation
import JSON
import MQTT
import MainLoop

/// Section 3: end to end — `boardsim` → D-Bus → `boardbridge` → `mosquitto` → a subscriber
/// in the bench, at several board counts. Per scale: idle CPU and memory of the bridge
/// while every simulated Chessnut board streams its ~10 state frames a second, then the
/// latency of moves played by hand through boardsim's control interface, against a floor
/// measured on the same broker just before the bridge starts.
@MainActor
struct EndToEndSection: BenchSection {
    let number = 3
    let id = "e2e"
    let title = "End to end: boardsim → D-Bus → boardbridge → mosquitto → subscriber"

    /// Chessnut's state stream interval in boardsim (`ChessnutPersonality` default).
    static let streamInterval = 0.1
    /// The moves played on each board: UCI, the piece placed (FEN letter), the SAN.
    static let game: [(uci: String, piece: String, san: String)] = [
        ("e2e4", "P", "e4"), ("e7e5", "p", "e5"), ("g1f3", "N", "Nf3"), ("b8c6", "n", "Nc6"),
        ("f1c4", "B", "Bc4"), ("g8f6", "n", "Nf6"), ("d2d3", "P", "d3"), ("f8c5", "b", "Bc5"),
    ]

    func run(_ context: BenchContext) async throws {
        let warm = try await recordWarmSession(context: context)
        let scales = context.quick ? [1, 8] : [1, 8, 32, 64]
        for boards in scales {
            let rig = try BridgeRig(boards: boards)
            defer { rig.stop() }
            try await measure(rig: rig, context: context, warm: warm)
        }
    }

    /// The bridge's own work on a move in process with warm caches (``WarmSession``): the
    /// floor of its own time per move. Returns the median, in seconds.
    private func recordWarmSession(context: BenchContext) async throws -> Double {
        let warm = try await MainActor.run { try WarmSession.measure(games: context.quick ? 8 : 40, plies: 60) }
        let stats = Percentiles(warm.toPublish)
        context.record(
            BenchResult(
                key: "e2e.warm.handling",
                label: "A move in process, warm: frame → move handed over (p50)",
                value: stats.median * 1e6, unit: "µs",
                details: [
                    "p99_us": stats.p99 * 1e6, "moves": Double(warm.moves),
                    "whole_move_cpu_us": warm.cpuPerMove * 1e6,
                ],
                note: String(
                    format:
                        "%d moves of random games back to back; a move's whole work (lift, place, every message) %.0f µs of CPU",
                    warm.moves, warm.cpuPerMove * 1e6)))
        return stats.median
    }

    private func measure(rig: BridgeRig, context: BenchContext, warm: Double) async throws {
        let boards = rig.boards
        let quick = context.quick
        try await rig.startSupport()
        let floor = try await FloorProbe.measure(rig: rig, roundTrips: quick ? 200 : 500)
        let forwarder = Percentiles(try await ForwarderFloor.measure(rig: rig, placements: quick ? 20 : 60))
        try rig.startBridge()
        guard let bridge = rig.bridge else { return }
        context.progress("\(boards) boards: boardbridge pid \(bridge.pid), boardsim pid \(rig.simulator?.pid ?? 0)")
        try await rig.waitUntilOnline(timeout: .seconds(60 + boards))
        try await Task.sleep(for: .seconds(1))

        // (a) Idle steady state.
        let idleSeconds: Duration = quick ? .seconds(5) : .seconds(10)
        let sentBefore = try await rig.notificationsSent()
        guard let idleStart = bridge.sample() else { throw BenchError(description: "boardbridge exited") }
        try await Task.sleep(for: idleSeconds)
        guard let idleEnd = bridge.sample() else { throw BenchError(description: "boardbridge exited") }
        let sentAfter = try await rig.notificationsSent()
        let usage = ProcessSampler.usage(from: idleStart, to: idleEnd)
        let nominal = Double(boards) * usage.wallSeconds / Self.streamInterval
        // What boardsim really sent (its own counters), not the nominal rate.
        let notifications = sentAfter > sentBefore ? Double(sentAfter - sentBefore) : nominal
        let perNotification = usage.cpuSeconds / notifications * 1e6
        let at64 = boards >= 64
        // Why runs differ: wake-ups per notification, and CPU migrations of the bridge's threads.
        var scheduling: [String: Double] = [:]
        if let before = idleStart.voluntarySwitches, let after = idleEnd.voluntarySwitches, after >= before {
            scheduling["wakeups_per_notification"] = Double(after - before) / max(notifications, 1)
        }
        if let before = idleStart.migrations, let after = idleEnd.migrations, after >= before {
            scheduling["migrations_per_second"] = Double(after - before) / max(usage.wallSeconds, 0.001)
        }
        context.record(
            BenchResult(
                key: "e2e.\(boards).cpu_per_notification", label: "\(boards) boards idle: bridge CPU per notification",
                value: perNotification, unit: "µs",
                goal: BenchGoal(direction: .atMost, threshold: 20, text: "≤ 20 µs"),
                details: [
                    "cpu_seconds": usage.cpuSeconds, "wall_seconds": usage.wallSeconds,
                    "notifications": notifications, "nominal_notifications": nominal,
                    "threads": Double(idleEnd.threads),
                ].merging(scheduling) { first, _ in first },
                note: String(
                    format: "%.0f notifications sent (%.1f per board per second)", notifications,
                    notifications / Double(boards) / max(usage.wallSeconds, 0.001))
                    + (scheduling["wakeups_per_notification"].map { String(format: "; %.2f wake-ups each", $0) } ?? "")
                    + (scheduling["migrations_per_second"].map { String(format: "; %.0f CPU migrations/s", $0) } ?? ""))
        )
        context.record(
            BenchResult(
                key: "e2e.\(boards).cpu_percent", label: "\(boards) boards idle: bridge CPU (% of one core)",
                value: usage.fractionOfCore * 100, unit: "%",
                goal: at64 ? BenchGoal(direction: .atMost, threshold: 2, text: "< 2 % at 64 boards") : nil))

        // (b) Moves.
        let movesStart = bridge.sample()
        let latency = try await playMoves(rig: rig, boards: min(boards, quick ? 4 : 16))
        if let movesStart, let movesEnd = bridge.sample(), latency.played > 0 {
            // The moves' own CPU: what the phase took beyond the idle stream's rate (all
            // boards keep streaming meanwhile), per move played.
            let phase = ProcessSampler.usage(from: movesStart, to: movesEnd)
            let idleRate = usage.cpuSeconds / max(usage.wallSeconds, 0.001)
            let beyondIdle = phase.cpuSeconds - idleRate * phase.wallSeconds
            context.record(
                BenchResult(
                    key: "e2e.\(boards).cpu_per_move", label: "\(boards) boards: bridge CPU per move",
                    value: max(0, beyondIdle) / Double(latency.played) * 1e6, unit: "µs",
                    goal: BenchGoal(direction: .atMost, threshold: 100, text: "≤ 100 µs"),
                    details: [
                        "phase_cpu_seconds": phase.cpuSeconds, "phase_wall_seconds": phase.wallSeconds,
                        "idle_cpu_seconds_per_second": idleRate, "moves": Double(latency.played),
                    ],
                    note: String(
                        format: "%d moves in %.1f s: %.1f ms of CPU, %.1f ms of it the idle stream's rate",
                        latency.played, phase.wallSeconds, phase.cpuSeconds * 1e3, idleRate * phase.wallSeconds * 1e3)))
        }
        try await recordHandling(rig: rig, context: context, warm: warm)
        let rss = bridge.sample().map { Double($0.peakRSSBytes) / 1_048_576 } ?? 0
        context.record(
            BenchResult(
                key: "e2e.\(boards).peak_rss", label: "\(boards) boards: bridge peak RSS (VmHWM)", value: rss,
                unit: "MB",
                goal: at64 ? BenchGoal(direction: .atMost, threshold: 20, text: "< 20 MB at 64 boards") : nil,
                details: ["rss_now_mb": Double(bridge.sample()?.rssBytes ?? 0) / 1_048_576]))
        let stats = Percentiles(latency.samples)
        let upper = Percentiles(latency.upperBounds)
        var details: [String: Double] = [
            "p50_us": stats.median * 1e6, "p90_us": stats.p90 * 1e6, "p99_us": stats.p99 * 1e6,
            "max_us": stats.maximum * 1e6, "min_us": stats.minimum * 1e6, "samples": Double(stats.count),
            "upper_p50_us": upper.median * 1e6, "upper_p99_us": upper.p99 * 1e6,
            "control_rtt_us": latency.controlRTT * 1e6, "exact_samples": Double(latency.exact),
            "estimate_error_bound_us": latency.controlRTT / 2 * 1e6,
            "floor_qos1_p50_us": floor.median * 1e6, "floor_qos1_p99_us": floor.p99 * 1e6,
        ]
        if floor.median > 0 {
            details["p50_over_floor_p50"] = stats.median / floor.median
            details["p99_over_floor_p99"] = stats.p99 / floor.p99
        }
        context.record(
            BenchResult(
                key: "e2e.\(boards).latency", label: "\(boards) boards: move latency board → subscriber (p50)",
                value: stats.median * 1e6, unit: "µs",
                goal: at64
                    ? BenchGoal(direction: .atMost, threshold: 2 * floor.median * 1e6, text: "≤ 2 × floor p50") : nil,
                details: details,
                note: String(
                    format:
                        "p99 %.0f µs, max %.0f µs; floor QoS 1 p50 %.0f / p99 %.0f µs; %d/%d timed from boardsim's emit",
                    stats.p99 * 1e6, stats.maximum * 1e6, floor.median * 1e6, floor.p99 * 1e6, latency.exact,
                    latency.samples.count)))
        context.record(
            BenchResult(
                key: "e2e.\(boards).forwarder_floor",
                label: "\(boards) boards: floor, board → minimal forwarder → subscriber (p50)",
                value: forwarder.median * 1e6, unit: "µs",
                details: [
                    "p99_us": forwarder.p99 * 1e6, "max_us": forwarder.maximum * 1e6,
                    "samples": Double(forwarder.count),
                ],
                note: String(
                    format: "p99 %.0f µs over %d placements (ForwarderFloor, before the bridge starts)",
                    forwarder.p99 * 1e6, forwarder.count)))
        if forwarder.median > 0 {
            context.record(
                BenchResult(
                    key: "e2e.\(boards).latency_over_forwarder",
                    label: "\(boards) boards: move latency p50 over the forwarder floor's p50",
                    value: stats.median / forwarder.median, unit: "×",
                    goal: BenchGoal(direction: .atMost, threshold: 1.2, text: "≤ 1.2×")))
        }
        context.record(
            BenchResult(
                key: "e2e.\(boards).latency_p99", label: "\(boards) boards: move latency (p99)",
                value: stats.p99 * 1e6, unit: "µs",
                goal: at64 ? BenchGoal(direction: .atMost, threshold: 1500, text: "< 1.5 ms at 64 boards") : nil))
        context.record(
            BenchResult(
                key: "e2e.\(boards).moves_bad", label: "\(boards) boards: moves lost or wrong",
                value: Double(latency.lost + latency.wrong), unit: "moves",
                goal: BenchGoal(direction: .atMost, threshold: 0, text: "0"),
                details: [
                    "played": Double(latency.played), "lost": Double(latency.lost), "wrong": Double(latency.wrong),
                ]))
        if boards == 8 { try await measureFlood(rig: rig, context: context, without: stats) }
        if !bridge.isRunning { throw BenchError(description: "boardbridge died:\n\(bridge.output.suffix(2000))") }
    }

    /// The bridge's own time over the moves just played, from its health report: the loop's
    /// wake-up for the frame completing a move → the move's PUBLISH handed over for sending
    /// (libmosquitto writes it to the socket in that call; the write is not counted).
    private func recordHandling(rig: BridgeRig, context: BenchContext, warm: Double) async throws {
        let report = try await rig.healthReport()
        typealias Key = HealthPayload.Key
        let handling = report[Key.process]?[Key.moveHandling]
        guard let median = handling?[Key.medianMicroseconds]?.doubleValue,
            let p99 = handling?[Key.p99Microseconds]?.doubleValue
        else { throw BenchError(description: "the health report times no move: \(report[Key.process] ?? .null)") }
        let boards = rig.boards
        let at64 = boards >= 64
        let details: [String: Double] = [
            "p50_us": median, "p99_us": p99, "max_us": handling?[Key.maximumMicroseconds]?.doubleValue ?? 0,
            "moves": handling?[Key.moves]?.doubleValue ?? 0,
            "warm_p50_us": warm * 1e6, "over_warm_p50": warm > 0 ? median / (warm * 1e6) : 0,
        ]
        context.record(
            BenchResult(
                key: "e2e.\(boards).handling",
                label: "\(boards) boards: bridge's own time per move, frame → PUBLISH (p50)",
                value: median, unit: "µs",
                goal: at64 ? BenchGoal(direction: .atMost, threshold: 30, text: "≤ 30 µs at 64 boards") : nil,
                details: details,
                note: String(
                    format:
                        "p99 %.0f µs, max %.0f µs over %.0f moves (the bridge's health report); %.1f× the same work warm",
                    p99, details["max_us"] ?? 0, details["moves"] ?? 0, details["over_warm_p50"] ?? 0)))
        context.record(
            BenchResult(
                key: "e2e.\(boards).handling_p99", label: "\(boards) boards: bridge's own time per move (p99)",
                value: p99, unit: "µs",
                goal: at64 ? BenchGoal(direction: .atMost, threshold: 150, text: "≤ 150 µs at 64 boards") : nil))
    }

    /// (c) Four boards' moves while the last board's command topic is flooded with large
    /// commands, against the moves without the flood (`without`, from (b)).
    private func measureFlood(rig: BridgeRig, context: BenchContext, without: Percentiles) async throws {
        let commands = context.quick ? 2_000 : 5_000
        let latency = try await playMovesUnderFlood(rig: rig, boards: 4, commands: commands)
        let stats = Percentiles(latency.samples)
        let megabytes = Double(commands * Self.floodCommandBytes) / 1e6
        context.record(
            BenchResult(
                key: "e2e.8.flood.latency_max",
                label: "8 boards: move latency under a flood of large commands on another board (max)",
                value: stats.maximum * 1e6, unit: "µs",
                goal: BenchGoal(
                    direction: .atMost, threshold: (without.maximum + 1) * 1e6, text: "≤ 1 s over the max without"),
                details: [
                    "p50_us": stats.median * 1e6, "p99_us": stats.p99 * 1e6, "samples": Double(stats.count),
                    "without_p50_us": without.median * 1e6, "without_max_us": without.maximum * 1e6,
                    "flood_commands": Double(commands), "flood_mb": megabytes,
                    "played": Double(latency.played), "lost": Double(latency.lost), "wrong": Double(latency.wrong),
                ],
                note: String(
                    format: "p50 %.0f µs (%.0f without); %d commands of 60 KB (%.0f MB) on b08", stats.median * 1e6,
                    without.median * 1e6, commands, megabytes)))
        context.record(
            BenchResult(
                key: "e2e.8.flood.moves_bad", label: "8 boards under the flood: moves lost or wrong",
                value: Double(latency.lost + latency.wrong), unit: "moves",
                goal: BenchGoal(direction: .atMost, threshold: 0, text: "0")))
    }

    /// The outcome of the move phase.
    struct MoveLatency {
        var samples: [Double] = []
        var upperBounds: [Double] = []
        var controlRTT = 0.0
        /// Samples timed from boardsim's own emit time (the others are estimates).
        var exact = 0
        var played = 0
        var lost = 0
        var wrong = 0
    }

    /// Plays ``game`` on the first `boards` boards, one placement at a time (move k on every
    /// board, then move k + 1). Each move: `Lift(from)`, 20 ms, `Place(to)`. The latency runs
    /// from the instant boardsim sent the frame completing the move (its `Place` reply, in
    /// `CLOCK_BOOTTIME` nanoseconds) to the subscriber's arrival time on the same clock; only
    /// when boardsim reports no emit time is it estimated (the instant before the `Place`
    /// call plus half a control round trip).
    func playMoves(rig: BridgeRig, boards: Int) async throws -> MoveLatency {
        var result = MoveLatency()
        var arrivals: [String: [(time: ContinuousClock.Instant, boot: UInt64, payload: String)]] = [:]
        rig.onMessage = { message, time in
            let boot = BootClock.nanoseconds()
            guard message.topic.hasSuffix("/move") else { return }
            arrivals[message.topic, default: []].append((time, boot, message.payloadString ?? ""))
        }
        defer { rig.onMessage = nil }
        // Calibrate the control call: median round trip of a cheap call.
        var trips: [Duration] = []
        for _ in 0..<50 {
            let start = ContinuousClock.now
            try await rig.controlCall("Placement", [rig.boardIDs[0]])
            trips.append(ContinuousClock.now - start)
        }
        result.controlRTT = Percentiles(trips).median
        var failed: Set<String> = []
        for (ply, move) in Self.game.enumerated() {
            for board in rig.boardIDs.prefix(boards) where !failed.contains(board) {
                let topic = "boardbridge/\(board)/move"
                let before = arrivals[topic]?.count ?? 0
                try await rig.controlCall("Lift", [board, String(move.uci.prefix(2))])
                try await Task.sleep(for: .milliseconds(20))
                let sent = ContinuousClock.now
                let reply = try await rig.controlCall(
                    "Place", [board, String(move.uci.dropFirst(2).prefix(2)), move.piece])
                // boardsim's own record of when it sent the completing frame (0: unknown).
                let emitted = reply.first?.uint64Value ?? 0
                result.played += 1
                let deadline = ContinuousClock.now + .seconds(5)
                while (arrivals[topic]?.count ?? 0) <= before, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                }
                guard let arrival = arrivals[topic], arrival.count > before else {
                    result.lost += 1
                    failed.insert(board)
                    continue
                }
                let received = arrival[before]
                let fields = Self.fields(received.payload)
                if fields.uci != move.uci || fields.san != move.san || fields.ply != ply + 1 {
                    result.wrong += 1
                    failed.insert(board)
                }
                let upper = (received.time - sent).inSeconds
                result.upperBounds.append(upper)
                if emitted > 0, received.boot >= emitted {
                    result.samples.append(Double(received.boot - emitted) / 1e9)
                    result.exact += 1
                } else {
                    result.samples.append(upper - result.controlRTT / 2)
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return result
    }

    private static func fields(_ payload: String) -> (uci: String?, san: String?, ply: Int?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else {
            return (nil, nil, nil)
        }
        return (object["uci"] as? String, object["san"] as? String, (object["ply"] as? NSNumber)?.intValue)
    }
}

/// A quick QoS 1 floor on the rig's broker, measured before the bridge starts: a publisher
/// client in the bench, the rig's subscriber on `bench/floor/#`, one message in flight.
@MainActor
enum FloorProbe {
    /// The round-trip percentiles of `roundTrips` 256-byte QoS 1 messages (after 50 untimed).
    static func measure(rig: BridgeRig, roundTrips: Int) async throws -> Percentiles {
        guard let broker = rig.broker, let subscriber = rig.subscriber else { return Percentiles([Double]()) }
        var configuration = try MQTTConfiguration(url: broker.url, clientID: "bench-e2e-pub-\(getpid())")
        configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let publisher = try MQTTClient(configuration: configuration)
        defer { publisher.stop() }
        var lastSequence: UInt64 = 0
        var arrivedAt: ContinuousClock.Instant?
        rig.onMessage = { message, time in
            guard message.topic.hasPrefix("bench/floor"), let sequence = ArrivalProbe.sequence(in: message.payload)
            else { return }
            if sequence == lastSequence { arrivedAt = time }
        }
        defer { rig.onMessage = nil }
        try subscriber.subscribe("bench/floor/#", qos: .atLeastOnce)
        publisher.start()
        let deadline = ContinuousClock.now + .seconds(15)
        while !publisher.state.isConnected {
            guard ContinuousClock.now < deadline else {
                throw BenchError(description: "floor publisher did not connect")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        var samples: [Duration] = []
        var sequence: UInt64 = 0
        var misses = 0
        while samples.count < roundTrips {
            sequence += 1
            lastSequence = sequence
            arrivedAt = nil
            let sent = ContinuousClock.now
            try publisher.publish(
                topic: "bench/floor/e2e", payload: ArrivalProbe.payload(sequence: sequence, size: 256),
                qos: .atLeastOnce)
            let limit = sent + .seconds(2)
            while arrivedAt == nil, ContinuousClock.now < limit { try await Task.sleep(for: .microseconds(200)) }
            guard let arrival = arrivedAt else {
                misses += 1
                // The first messages may precede the subscription.
                if misses > 20 { throw BenchError(description: "floor messages lost") }
                continue
            }
            if sequence > 50 { samples.append(arrival - sent) }
            try await Task.sleep(for: .milliseconds(1))
        }
        subscriber.unsubscribe("bench/floor/#")
        return Percentiles(samples)
    }
}
