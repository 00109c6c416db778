import Foundation
import MQTT
import MainLoop

/// Section 2: the MQTT floor — what the broker hop alone costs, measured through the
/// project's `MQTT` wrapper (libmosquitto driven from the main queue), against a private
/// loopback `mosquitto` the section starts and stops itself.
///
/// Publisher and subscriber are two `MQTTClient`s in the bench process, each with its own
/// TCP connection to the broker: the same code path a bridge message takes out and an
/// in-process subscriber takes in, timed by one clock with no pipe or child process in
/// the way (see docs/benchmarks.md for why not `mosquitto_sub`).
@MainActor
struct FloorSection: BenchSection {
    /// How much work each measurement does.
    struct Plan {
        /// Timed round trips per QoS.
        var roundTrips: Int
        /// Untimed round trips first.
        var warmupRoundTrips: Int
        /// The pause between a message's arrival and the next publish.
        var gap: Duration
        /// Messages per throughput run.
        var throughputMessages: Int
        /// The most messages published and not yet received during a throughput run.
        var window: Int
        /// Payload bytes (about a board state JSON).
        var payloadSize: Int

        /// The plan for a full or a `--quick` run.
        init(quick: Bool) {
            roundTrips = quick ? 300 : 3000
            warmupRoundTrips = quick ? 30 : 200
            gap = .milliseconds(1)
            throughputMessages = quick ? 5000 : 50_000
            window = 1000
            payloadSize = 256
        }
    }

    let number = 2
    let id = "floor"
    let title = "Floors: thread wake-up per notification; loopback mosquitto through the MQTT wrapper"

    /// Measures the wake-up floor (no broker needed), then starts the broker and two clients,
    /// measures latency and throughput, stops everything.
    func run(_ context: BenchContext) async throws {
        try await WakeupFloor(quick: context.quick).run(context)
        let plan = Plan(quick: context.quick)
        let broker = try BenchBroker()
        try await broker.start()
        defer { broker.stop() }
        context.progress("mosquitto pid \(broker.process.pid) on port \(broker.port)")

        let tag = "\(getpid())"
        let subscriber = try makeClient(url: broker.url, id: "bench-sub-\(tag)")
        let publisher = try makeClient(url: broker.url, id: "bench-pub-\(tag)")
        defer {
            publisher.stop()
            subscriber.stop()
        }
        let probe = ArrivalProbe(subscriber: subscriber)
        defer { probe.close() }
        try subscriber.subscribe("bench/floor/#", qos: .atLeastOnce)
        subscriber.start()
        publisher.start()
        try await waitForConnection(subscriber, publisher)
        try await syncSubscription(probe: probe, publisher: publisher, topic: "bench/floor/sync")

        for qos in [MQTTQoS.atMostOnce, .atLeastOnce] {
            try subscriber.subscribe("bench/floor/#", qos: qos)
            try await syncSubscription(probe: probe, publisher: publisher, topic: "bench/floor/sync")
            try await latency(qos: qos, plan: plan, probe: probe, publisher: publisher, context: context)
        }
        for qos in [MQTTQoS.atMostOnce, .atLeastOnce] {
            try subscriber.subscribe("bench/floor/#", qos: qos)
            try await syncSubscription(probe: probe, publisher: publisher, topic: "bench/floor/sync")
            try await throughput(
                qos: qos, plan: plan, probe: probe, publisher: publisher, broker: broker, context: context)
        }
        _ = await publisher.flush(timeout: .seconds(5))
    }

    /// One message in flight: publish, wait for it at the subscriber, pause `plan.gap`.
    private func latency(
        qos: MQTTQoS, plan: Plan, probe: ArrivalProbe, publisher: MQTTClient, context: BenchContext
    ) async throws {
        let topic = "bench/floor/latency"
        var samples: [Duration] = []
        samples.reserveCapacity(plan.roundTrips)
        var sequence: UInt64 = 1_000_000
        for index in 0..<(plan.warmupRoundTrips + plan.roundTrips) {
            sequence += 1
            let payload = ArrivalProbe.payload(sequence: sequence, size: plan.payloadSize)
            var sent = ContinuousClock.now
            let arrival = try await probe.awaitArrival(of: sequence, timeout: .seconds(5)) {
                sent = ContinuousClock.now
                try publisher.publish(topic: topic, payload: payload, qos: qos)
            }
            guard let arrival else {
                throw BenchError(description: "\(qos) round trip \(index) lost (no message within 5 s)")
            }
            if index >= plan.warmupRoundTrips { samples.append(arrival - sent) }
            try await Task.sleep(for: plan.gap)
        }
        let stats = Percentiles(samples)
        let details: [String: Double] = [
            "p50_us": stats.median * 1e6, "p90_us": stats.p90 * 1e6, "p99_us": stats.p99 * 1e6,
            "p999_us": stats.p999 * 1e6, "max_us": stats.maximum * 1e6, "min_us": stats.minimum * 1e6,
            "mean_us": stats.mean * 1e6, "samples": Double(stats.count), "payload_bytes": Double(plan.payloadSize),
            "gap_ms": plan.gap.inSeconds * 1e3,
        ]
        context.record(
            BenchResult(
                key: "floor.latency.qos\(qos.rawValue)", label: "Round trip pub → broker → sub, \(qos) (p50)",
                value: stats.median * 1e6, unit: "µs", details: details,
                note: "\(stats.count) messages of \(plan.payloadSize) B, one in flight, "
                    + "\(Int(plan.gap.inSeconds * 1e3)) ms apart; publish() call to onMessage"))
    }

    /// As fast as the pipeline goes, with at most `plan.window` messages not yet received.
    private func throughput(
        qos: MQTTQoS, plan: Plan, probe: ArrivalProbe, publisher: MQTTClient, broker: BenchBroker,
        context: BenchContext
    ) async throws {
        let topic = "bench/floor/throughput"
        let payload = ArrivalProbe.payload(sequence: 0, size: plan.payloadSize)
        let base = probe.received
        let brokerMonitor = ProcessMonitor(pid: broker.process.pid, interval: .milliseconds(100))
        let benchStart = ProcessSampler.sample()
        let start = ContinuousClock.now
        var published = 0
        var stalled = false
        while published < plan.throughputMessages {
            let limit = min(plan.throughputMessages, probe.received - base + plan.window)
            while published < limit {
                try publisher.publish(topic: topic, payload: payload, qos: qos)
                published += 1
            }
            guard published < plan.throughputMessages else { break }
            let resumeAt = base + published - plan.window / 2
            if !(await probe.awaitReceived(atLeast: resumeAt, stall: .seconds(5))) {
                stalled = true
                break
            }
        }
        let confirmed = await publisher.flush(timeout: .seconds(60))
        let confirmedAt = ContinuousClock.now
        if !stalled {
            stalled = !(await probe.awaitReceived(atLeast: base + published, stall: .seconds(5)))
        }
        let benchEnd = ProcessSampler.sample()
        let brokerSamples = brokerMonitor.stop()
        let delivered = probe.received - base
        let deliveredSeconds = ((probe.lastArrival ?? confirmedAt) - start).inSeconds
        let confirmedSeconds = (confirmedAt - start).inSeconds
        var details: [String: Double] = [
            "published": Double(published), "delivered": Double(delivered),
            "lost": Double(max(0, published - delivered)),
            "delivered_seconds": deliveredSeconds,
            "confirmed_per_second": confirmed && confirmedSeconds > 0 ? Double(published) / confirmedSeconds : 0,
            "payload_bytes": Double(plan.payloadSize), "window": Double(plan.window),
            "max_in_flight": Double(publisher.configuration.maximumInFlight),
        ]
        if let benchStart, let benchEnd, delivered > 0 {
            let usage = ProcessSampler.usage(from: benchStart, to: benchEnd)
            details["bench_cpu_us_per_message"] = usage.cpuSeconds / Double(delivered) * 1e6
            details["bench_cpu_cores"] = usage.fractionOfCore
        }
        if let first = brokerSamples.first, let last = brokerSamples.last, delivered > 0 {
            let usage = ProcessSampler.usage(from: first, to: last)
            details["broker_cpu_us_per_message"] = usage.cpuSeconds / Double(delivered) * 1e6
            details["broker_cpu_cores"] = usage.fractionOfCore
            details["broker_peak_cpu_cores_100ms"] = ProcessMonitor.peakCPU(brokerSamples)
            details["broker_peak_rss_mb"] = Double(last.peakRSSBytes) / 1_048_576
        }
        let rate = deliveredSeconds > 0 ? Double(delivered) / deliveredSeconds : 0
        context.record(
            BenchResult(
                key: "floor.throughput.qos\(qos.rawValue)", label: "Throughput pub → broker → sub, \(qos)",
                value: rate, unit: "msg/s", details: details,
                note: "\(published) messages of \(plan.payloadSize) B, ≤ \(plan.window) unreceived"
                    + (stalled ? "; STALLED: \(published - delivered) not received" : "")))
        if stalled {
            throw BenchError(description: "\(qos) throughput: \(published - delivered) of \(published) never arrived")
        }
    }

    private func makeClient(url: String, id: String) throws -> MQTTClient {
        var configuration = try MQTTConfiguration(url: url, clientID: id)
        configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(100), maximumDelay: .seconds(1))
        return try MQTTClient(configuration: configuration)
    }

    private func waitForConnection(_ clients: MQTTClient...) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while !clients.allSatisfy(\.state.isConnected) {
            guard ContinuousClock.now < deadline else {
                let states = clients.map { "\($0.configuration.clientID): \($0.state)" }.joined(separator: "; ")
                throw BenchError(description: "MQTT clients did not connect: \(states)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Publishes probes until one comes back: the subscription (re)made last is active.
    private func syncSubscription(probe: ArrivalProbe, publisher: MQTTClient, topic: String) async throws {
        for _ in 0..<100 {
            let sequence = probe.freshSequence()
            let payload = ArrivalProbe.payload(sequence: sequence, size: 8)
            let arrival = try await probe.awaitArrival(of: sequence, timeout: .milliseconds(100)) {
                try publisher.publish(topic: topic, payload: payload, qos: .atLeastOnce)
            }
            if arrival != nil { return }
        }
        throw BenchError(description: "the subscription on the floor topics never became active")
    }
}
