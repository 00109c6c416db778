import Foundation

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
/// ``WakeupReceiver`` thread reads the other ends, first the bare loop, then the bridge's
/// `EpollPoller`, each warmed up and then measured over the same window length.
@MainActor
struct WakeupFloor {
    /// The board counts measured.
    static let scales = [64, 8]
    /// The notification interval of every simulated board (a Chessnut streams at 10 Hz).
    static let intervalMilliseconds = 100
    /// A Chessnut Air state notification.
    static let datagramSize = 38

    /// Seconds measured per receiver.
    let window: Duration
    /// Seconds run before the window (the sender's first interval, queues drained).
    let warmup: Duration

    /// The timings for a full or a `--quick` run.
    init(quick: Bool) {
        window = quick ? .seconds(2) : .seconds(10)
        warmup = quick ? .milliseconds(500) : .seconds(1)
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
            ])
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

        for kind in [WakeupReceiver.Kind.bare, .poller] {
            let receiver = try WakeupReceiver(kind: kind, sockets: receiving)
            receiver.start()
            try await Task.sleep(for: warmup)
            let senderStart = sender.sample()
            receiver.mark()
            try await Task.sleep(for: window)
            receiver.mark()
            let senderEnd = sender.sample()
            let outcome = await receiver.finished()
            guard let start = outcome.start, let end = outcome.end, outcome.failure == nil else {
                throw BenchError(
                    description: "wake-up floor (\(boards), \(kind)): \(outcome.failure ?? "no measurement")"
                        + "; sender: \(sender.output.suffix(300))")
            }
            var senderUsage: CPUUsage?
            if let senderStart, let senderEnd { senderUsage = ProcessSampler.usage(from: senderStart, to: senderEnd) }
            context.record(result(boards: boards, kind: kind, start: start, end: end, sender: senderUsage))
        }
    }

    private func result(
        boards: Int, kind: WakeupReceiver.Kind, start: WakeupReceiver.Snapshot, end: WakeupReceiver.Snapshot,
        sender: CPUUsage?
    ) -> BenchResult {
        let seconds = (end.time - start.time).seconds
        let datagrams = Double(end.datagrams - start.datagrams)
        let perDatagram = { (value: UInt64) in datagrams > 0 ? Double(value) / datagrams : 0 }
        let wakeUps = end.wakeUps - start.wakeUps
        let cpu = end.cpuNanoseconds - start.cpuNanoseconds
        let expected = Double(boards) * 1000 / Double(Self.intervalMilliseconds)
        var details: [String: Double] = [
            "cpu_us_per_notification": perDatagram(cpu) / 1e3,
            "schedstat_cpu_us_per_notification": perDatagram(end.runNanoseconds &- start.runNanoseconds) / 1e3,
            "cpu_percent": seconds > 0 ? Double(cpu) / 1e9 / seconds * 100 : 0,
            "wakeups_per_notification": perDatagram(wakeUps),
            "voluntary_switches_per_notification": perDatagram(end.voluntarySwitches &- start.voluntarySwitches),
            "involuntary_switches_per_notification": perDatagram(end.involuntarySwitches &- start.involuntarySwitches),
            "timeslices_per_notification": perDatagram(end.timeslices &- start.timeslices),
            "run_delay_us_per_wakeup": wakeUps > 0
                ? Double(end.waitNanoseconds &- start.waitNanoseconds) / Double(wakeUps) / 1e3 : 0,
            "empty_reads": Double(end.emptyReads - start.emptyReads),
            "notifications": datagrams, "seconds": seconds,
            "notifications_per_second": seconds > 0 ? datagrams / seconds : 0,
            "expected_per_second": expected, "boards": Double(boards),
            "datagram_bytes": Double(Self.datagramSize),
        ]
        if let sender, datagrams > 0 {
            details["sender_cpu_us_per_notification"] = sender.cpuSeconds / datagrams * 1e6
        }
        let receiver = kind == .bare ? "bare epoll_wait + recv" : "MainLoop.EpollPoller + recv"
        return BenchResult(
            key: "floor.wakeup.\(boards)" + (kind == .bare ? "" : ".poller"),
            label: "Wake-up floor, \(boards) sockets × 10 Hz, \(kind == .bare ? "bare" : "our poller")",
            value: perDatagram(cpu) / 1e3, unit: "µs CPU/notification", details: details,
            note: "\(receiver) on one thread, sender in a child process; \(Int(datagrams)) datagrams in "
                + String(format: "%.1f s", seconds) + "; thread CPU time ÷ datagrams")
    }
}
