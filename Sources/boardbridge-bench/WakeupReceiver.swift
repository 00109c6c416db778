import CMainQueue
import Foundation
import MainLoop

#if canImport(Glibc)
    import Glibc
#endif

/// The receiving side of the wake-up floor (``WakeupFloor``): one thread of its own that
/// waits for datagrams on the given sockets and reads one per ready descriptor, doing
/// nothing else, and counts its own CPU time, wake-ups and context switches between two
/// marks.
///
/// Two receivers are measured: ``Kind/bare`` calls `epoll_wait` (through the same thin C
/// wrapper `MainLoop` uses) and `recv` in a plain loop; ``Kind/poller`` is the bridge's own
/// `EpollPoller` with one handler per socket that does the `recv` the bridge's
/// `BlueZNotifySocket` does (without handing the bytes on). Both are level-triggered, both
/// read with `MSG_DONTWAIT` into a 1 KB buffer.
///
/// The marks come through a pipe watched by the same epoll instance: the first one takes the
/// start snapshot (after the warm-up), the second the end snapshot and ends the thread.
final class WakeupReceiver: @unchecked Sendable {
    /// Which receive loop runs.
    enum Kind: String, Sendable {
        /// `epoll_wait` + `recv`, nothing else.
        case bare
        /// `MainLoop.EpollPoller` with one `recv` handler per socket.
        case poller
    }

    /// The receiving thread's counters at one instant.
    struct Snapshot: Sendable {
        /// Wall clock.
        var time = ContinuousClock.now
        /// `CLOCK_THREAD_CPUTIME_ID`: user + system CPU of the thread.
        var cpuNanoseconds: UInt64 = 0
        /// `/proc/thread-self/schedstat`: on-CPU time, time spent runnable but waiting for a
        /// CPU, and the number of times it was scheduled in.
        var runNanoseconds: UInt64 = 0
        var waitNanoseconds: UInt64 = 0
        var timeslices: UInt64 = 0
        /// `/proc/thread-self/status`: `voluntary_ctxt_switches`, `nonvoluntary_ctxt_switches`.
        var voluntarySwitches: UInt64 = 0
        var involuntarySwitches: UInt64 = 0
        /// `epoll_wait` calls (or `poll` calls) that returned at least one data socket.
        var wakeUps: UInt64 = 0
        /// Datagrams read.
        var datagrams: UInt64 = 0
        /// `recv` calls that found nothing (`EAGAIN`).
        var emptyReads: UInt64 = 0
    }

    /// What a finished receiver measured (or why it stopped early).
    struct Outcome: Sendable {
        var start: Snapshot?
        var end: Snapshot?
        var failure: String?
    }

    /// The receive loop.
    let kind: Kind
    private let sockets: [Int32]
    private let markRead: Int32
    private let markWrite: Int32
    private let lock = NSLock()
    private var outcome: Outcome?
    private var waiter: CheckedContinuation<Outcome, Never>?

    /// A receiver for `sockets` (non-blocking, owned by the caller); ``start()`` runs it.
    init(kind: Kind, sockets: [Int32]) throws {
        self.kind = kind
        self.sockets = sockets
        var ends: [Int32] = [-1, -1]
        // pipe2 is not visible from Swift; children are spawned from the main actor, as this is.
        guard pipe(&ends) == 0 else {
            throw BenchError(description: "wake-up floor: pipe failed (errno \(errno))")
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        markRead = ends[0]
        markWrite = ends[1]
    }

    deinit {
        close(markRead)
        close(markWrite)
    }

    /// Starts the receiving thread.
    func start() {
        let thread = Thread { [self] in finish(receive()) }
        thread.name = "wakeup-\(kind.rawValue)"
        thread.start()
    }

    /// Asks the thread to take its next snapshot (the first: start; the second: end, and stop).
    func mark() {
        var byte: UInt8 = 1
        _ = write(markWrite, &byte, 1)
    }

    /// Waits until the thread has stopped and returns what it measured.
    func finished() async -> Outcome {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let outcome {
                lock.unlock()
                continuation.resume(returning: outcome)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }

    private func finish(_ result: Outcome) {
        lock.lock()
        outcome = result
        let continuation = waiter
        waiter = nil
        lock.unlock()
        continuation?.resume(returning: result)
    }

    // MARK: - The receiving thread

    /// The mutable state of one run, touched only by the receiving thread.
    private final class Run {
        var counters = Snapshot()
        var start: Snapshot?
        var end: Snapshot?
        var failure: String?
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
        var done: Bool { end != nil || failure != nil }
        deinit { buffer.deallocate() }
    }

    private func receive() -> Outcome {
        let run = Run()
        switch kind {
        case .bare: receiveBare(run)
        case .poller: receiveWithPoller(run)
        }
        return Outcome(start: run.start, end: run.end, failure: run.failure)
    }

    private func receiveBare(_ run: Run) {
        let epoll = cmq_epoll_create()
        guard epoll >= 0 else {
            run.failure = "epoll_create1 failed (errno \(errno))"
            return
        }
        defer { close(epoll) }
        for fd in sockets + [markRead] where cmq_epoll_watch(epoll, fd, UInt64(UInt32(bitPattern: fd)), 0) != 0 {
            run.failure = "epoll_ctl(ADD, \(fd)) failed (errno \(errno))"
            return
        }
        var keys = [UInt64](repeating: 0, count: 64)
        while !run.done {
            let ready = keys.withUnsafeMutableBufferPointer { cmq_epoll_wait(epoll, $0.baseAddress, 64, -1) }
            guard ready > 0 else { continue }
            var woke = false
            for index in 0..<Int(ready) {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: keys[index]))
                if fd == markRead {
                    takeMark(run)
                } else {
                    woke = true
                    readOne(fd, run)
                }
            }
            if woke { run.counters.wakeUps += 1 }
        }
    }

    private func receiveWithPoller(_ run: Run) {
        guard let poller = EpollPoller() else {
            run.failure = "EpollPoller: epoll_create1 failed (errno \(errno))"
            return
        }
        for fd in sockets where !poller.add(fd, handler: { [unowned self] in readOne(fd, run) }) {
            run.failure = "EpollPoller.add(\(fd)) failed (errno \(errno))"
            return
        }
        var marked = false
        poller.add(markRead) { [unowned self] in
            marked = true
            takeMark(run)
        }
        while !run.done {
            marked = false
            let handled = poller.poll(timeoutMilliseconds: -1)
            if handled > (marked ? 1 : 0) { run.counters.wakeUps += 1 }
        }
    }

    private func readOne(_ fd: Int32, _ run: Run) {
        let count = recv(fd, run.buffer, 1024, Int32(MSG_DONTWAIT))
        if count > 0 {
            run.counters.datagrams += 1
        } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            run.counters.emptyReads += 1
        } else if run.failure == nil {
            run.failure = count == 0 ? "socket \(fd) closed by the sender" : "recv(\(fd)) failed (errno \(errno))"
        }
    }

    /// Start snapshot: /proc first, the CPU clock last; end snapshot: the CPU clock first.
    private func takeMark(_ run: Run) {
        var byte: UInt8 = 0
        while read(markRead, &byte, 1) == 1 {}
        var snapshot = run.counters
        if run.start == nil {
            readProc(into: &snapshot)
            snapshot.cpuNanoseconds = threadCPUNanoseconds()
            snapshot.time = .now
            run.start = snapshot
        } else {
            snapshot.cpuNanoseconds = threadCPUNanoseconds()
            snapshot.time = .now
            readProc(into: &snapshot)
            run.end = snapshot
        }
    }

    private func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    private func readProc(into snapshot: inout Snapshot) {
        if let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) {
            let fields = text.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
            if fields.count >= 3 {
                snapshot.runNanoseconds = fields[0]
                snapshot.waitNanoseconds = fields[1]
                snapshot.timeslices = fields[2]
            }
        }
        if let text = try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8) {
            let fields = ProcessSampler.statusFields(text)
            snapshot.voluntarySwitches = fields["voluntary_ctxt_switches"] ?? 0
            snapshot.involuntarySwitches = fields["nonvoluntary_ctxt_switches"] ?? 0
        }
    }
}
