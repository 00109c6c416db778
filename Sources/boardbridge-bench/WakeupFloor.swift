import Foundation
import MainLoop

#if canImport(Glibc)
    import Glibc
#endif

/// The wake-up floor: what a bare receiver costs per notification on this machine when it
/// does nothing but wait in `epoll_wait` and `recv` one datagram per ready socket, under
/// the bridge's arrival pattern (boards × 10 notifications/s, independent phases, one
/// 38-byte datagram each on its own `AF_UNIX` `SOCK_SEQPACKET` socket, sent by another
/// process) — the part of the bridge's CPU per notification that is the kernel waking a
/// sleeping thread, not the bridge's code.
///
/// Per scale: `boards` socket pairs; a child process (the bench itself in
/// ``WakeupSender`` mode, tracked by PID like every child) sends on one end of each; a
/// ``WakeupReceiver`` thread reads the other ends: the bare loop and the bridge's
/// `EpollPoller` take turns in segments (a fresh thread each, warmed up, then measured), so
/// both see the same sender and the same drift of the machine's load.
@MainActor
struct WakeupFloor {
    /// The board counts measured.
    static let scales = [64, 8]
    /// The notification interval of every simulated board (a Chessnut streams at 10 Hz).
    static let intervalMilliseconds = 100
    /// A Chessnut Air state notification.
    static let datagramSize = 38

    /// Time measured per receiver loop, over all its segments.
    let window: Duration
    /// Segments per loop: the two loops take turns (bare, poller, poller, bare, …), each
    /// segment on a fresh receiver thread.
    let rounds: Int
    /// Time run before each segment (the sender's first interval, queues drained).
    let warmup: Duration

    /// The timings for a full or a `--quick` run.
    init(quick: Bool) {
        window = quick ? .seconds(2) : .seconds(10)
        rounds = quick ? 2 : 4
        warmup = .milliseconds(500)
    }

    /// Measures every scale and records `floor.wakeup.<boards>` (bare) and
    /// `floor.wakeup.<boards>.poller`.
    func run(_ context: BenchContext) async throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        for boards in Self.scales {
            try await measure(boards: boards, executable: executable, context: context)
        }
    }

    private func measure(boards: Int, executable: String, context: BenchContext) async throws {
        var receiving: [Int32] = []
        var sending: [Int32] = []
        defer { (receiving + sending).forEach { _ = close($0) } }
        for _ in 0..<boards {
            var pair: [Int32] = [-1, -1]
            let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
                throw BenchError(description: "wake-up floor: socketpair failed (errno \(errno))")
            }
            _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
            receiving.append(pair[0])
            sending.append(pair[1])
        }
        let sender = BenchProcess(
            name: "wakeup-sender", executable: executable,
            arguments: [
                WakeupSender.argument, "\(Self.intervalMilliseconds)", "\(Self.datagramSize)", "\(boards)",
                sending.map(String.init).joined(separator: ","),
            ], inheritingDescriptors: true)
        // The child inherits exactly the sending ends (everything else is close-on-exec or
        // was opened without being meant for it); the bench then closes its copies.
        for fd in sending { _ = fcntl(fd, F_SETFD, 0) }
        do {
            try sender.start()
        } catch {
            throw BenchError(description: "wake-up floor: cannot start the sender: \(error)")
        }
        defer { sender.stop(grace: 1) }
        sending.forEach { _ = close($0) }
        sending = []
        context.progress("wake-up floor: \(boards) sockets, sender pid \(sender.pid)")

        var totals: [WakeupReceiver.Kind: WakeupTotals] = [.bare: WakeupTotals(), .poller: WakeupTotals()]
        for round in 0..<rounds {
            // Alternate the order, so that neither loop always runs first or on a drifting load.
            let order: [WakeupReceiver.Kind] = round.isMultiple(of: 2) ? [.bare, .poller] : [.poller, .bare]
            for kind in order {
                let part = try await segment(kind, sockets: receiving, sender: sender)
                totals[kind, default: WakeupTotals()].add(part)
                context.progress(
                    "  \(kind): " + String(format: "%.1f µs CPU/notification", part.microsecondsPerNotification))
            }
        }
        for kind in [WakeupReceiver.Kind.bare, .poller] {
            context.record(result(boards: boards, kind: kind, totals: totals[kind, default: WakeupTotals()]))
        }
    }

    /// One receiver thread: warm-up, then one measured segment.
    private func segment(
        _ kind: WakeupReceiver.Kind, sockets: [Int32], sender: BenchProcess
    ) async throws
        -> WakeupTotals
    {
        let receiver = try WakeupReceiver(kind: kind, sockets: sockets)
        receiver.start()
        try await Task.sleep(for: warmup)
        let senderStart = sender.sample()
        receiver.mark()
        try await Task.sleep(for: window / rounds)
        receiver.mark()
        let senderEnd = sender.sample()
        let outcome = await receiver.finished()
        guard let start = outcome.start, let end = outcome.end, outcome.failure == nil else {
            throw BenchError(
                description: "wake-up floor (\(sockets.count), \(kind)): \(outcome.failure ?? "no measurement")"
                    + "; sender: \(sender.output.suffix(300))")
        }
        var totals = WakeupTotals(start: start, end: end)
        if let senderStart, let senderEnd {
            totals.senderCPUSeconds = ProcessSampler.usage(from: senderStart, to: senderEnd).cpuSeconds
        }
        return totals
    }

    private func result(boards: Int, kind: WakeupReceiver.Kind, totals: WakeupTotals) -> BenchResult {
        let seconds = totals.seconds
        let datagrams = Double(totals.counters.datagrams)
        let perDatagram = { (value: UInt64) in datagrams > 0 ? Double(value) / datagrams : 0 }
        let expected = Double(boards) * 1000 / Double(Self.intervalMilliseconds)
        let details: [String: Double] = [
            "cpu_us_per_notification": perDatagram(totals.counters.cpuNanoseconds) / 1e3,
            "schedstat_cpu_us_per_notification": perDatagram(totals.counters.runNanoseconds) / 1e3,
            "cpu_percent": seconds > 0 ? Double(totals.counters.cpuNanoseconds) / 1e9 / seconds * 100 : 0,
            "wakeups_per_notification": perDatagram(totals.counters.wakeUps),
            "voluntary_switches_per_notification": perDatagram(totals.counters.voluntarySwitches),
            "involuntary_switches_per_notification": perDatagram(totals.counters.involuntarySwitches),
            "timeslices_per_notification": perDatagram(totals.counters.timeslices),
            "run_delay_us_per_wakeup": totals.counters.wakeUps > 0
                ? Double(totals.counters.waitNanoseconds) / Double(totals.counters.wakeUps) / 1e3 : 0,
            "empty_reads": Double(totals.counters.emptyReads),
            "notifications": datagrams, "seconds": seconds, "segments": Double(totals.segments),
            "notifications_per_second": seconds > 0 ? datagrams / seconds : 0,
            "expected_per_second": expected, "boards": Double(boards),
            "datagram_bytes": Double(Self.datagramSize),
            "sender_cpu_us_per_notification": datagrams > 0 ? totals.senderCPUSeconds / datagrams * 1e6 : 0,
            "best_segment_us_per_notification": totals.bestSegment,
            "worst_segment_us_per_notification": totals.worstSegment,
        ]
        let receiver = kind == .bare ? "bare epoll_wait + recv" : "MainLoop.EpollPoller + recv"
        return BenchResult(
            key: "floor.wakeup.\(boards)" + (kind == .bare ? "" : ".poller"),
            label: "Wake-up floor, \(boards) sockets × 10 Hz, \(kind == .bare ? "bare" : "our poller")",
            value: totals.microsecondsPerNotification, unit: "µs CPU/notification", details: details,
            note: "\(receiver) on one thread, sender in a child process; \(Int(datagrams)) datagrams in "
                + String(format: "%.1f s", seconds) + " (\(totals.segments) segments); thread CPU time ÷ datagrams")
    }
}

/// The receiver's counters summed over the measured segments of one loop kind.
struct WakeupTotals {
    var segments = 0
    var seconds = 0.0
    /// The summed counters (their `time` is not used).
    var counters = WakeupReceiver.Snapshot()
    var senderCPUSeconds = 0.0
    /// The lowest and highest CPU per notification of a single segment, in µs.
    var bestSegment = Double.infinity
    var worstSegment = 0.0

    init() {}

    /// Receiver CPU per datagram over everything summed here, in µs.
    var microsecondsPerNotification: Double {
        counters.datagrams > 0 ? Double(counters.cpuNanoseconds) / Double(counters.datagrams) / 1e3 : 0
    }

    /// The difference between two snapshots of one segment.
    init(start: WakeupReceiver.Snapshot, end: WakeupReceiver.Snapshot) {
        segments = 1
        seconds = (end.time - start.time).inSeconds
        counters = end.since(start)
        bestSegment = microsecondsPerNotification
        worstSegment = bestSegment
    }

    /// Adds another segment.
    mutating func add(_ other: WakeupTotals) {
        segments += other.segments
        seconds += other.seconds
        counters.add(other.counters)
        senderCPUSeconds += other.senderCPUSeconds
        bestSegment = min(bestSegment, other.bestSegment)
        worstSegment = max(worstSegment, other.worstSegment)
    }
}
