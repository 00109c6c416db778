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

        /// Every counter above (not the time): differences and sums go over all of them.
        static var counters: [WritableKeyPath<Snapshot, UInt64>] {
            [
                \.cpuNanoseconds, \.runNanoseconds, \.waitNanoseconds, \.timeslices, \.voluntarySwitches,
                \.involuntarySwitches, \.wakeUps, \.datagrams, \.emptyReads,
            ]
        }

        /// Each counter's increase since `earlier` (wrapping); the time is `self`'s.
        func since(_ earlier: Snapshot) -> Snapshot {
            var difference = self
            for counter in Self.counters {
                difference[keyPath: counter] = self[keyPath: counter] &- earlier[keyPath: counter]
            }
            return difference
        }

        /// Adds `other`'s counters to these.
        mutating func add(_ other: Snapshot) {
            for counter in Self.counters { self[keyPath: counter] &+= other[keyPath: counter] }
        }
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

    /// What the receive loops update per datagram, behind a pointer: plain loads and stores,
    /// none of the dynamic exclusivity checks a class's stored properties get, so that the
    /// measuring adds as little as possible to the loop it measures.
    private struct Live {
        var counters = Snapshot()
        var done = false
        var failedDescriptor: Int32 = -1
        var failedErrno: Int32 = 0
    }

    /// The state of one run, touched only by the receiving thread.
    private final class Run {
        let live = UnsafeMutablePointer<Live>.allocate(capacity: 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: 64)
        var start: Snapshot?
        var end: Snapshot?
        var failure: String?

        init() { live.initialize(to: Live()) }

        deinit {
            live.deinitialize(count: 1)
            live.deallocate()
            buffer.deallocate()
            keys.deallocate()
        }
    }

    private func receive() -> Outcome {
        let run = Run()
        switch kind {
        case .bare: receiveBare(run)
        case .poller: receiveWithPoller(run)
        }
        let live = run.live.pointee
        if run.failure == nil, live.failedDescriptor >= 0 {
            run.failure =
                live.failedErrno == 0
                ? "socket \(live.failedDescriptor) closed by the sender"
                : "recv(\(live.failedDescriptor)) failed (errno \(live.failedErrno))"
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
        let live = run.live
        let buffer = run.buffer
        let keys = run.keys
        while !live.pointee.done {
            let ready = cmq_epoll_wait(epoll, keys, 64, -1)
            guard ready > 0 else { continue }
            var woke = false
            for index in 0..<Int(ready) {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: keys[index]))
                if fd == markRead {
                    takeMark(run)
                } else {
                    woke = true
                    Self.readOne(fd, live, buffer)
                }
            }
            if woke { live.pointee.counters.wakeUps += 1 }
        }
    }

    private func receiveWithPoller(_ run: Run) {
        guard let poller = EpollPoller<() -> Void>() else {
            run.failure = "EpollPoller: epoll_create1 failed (errno \(errno))"
            return
        }
        let live = run.live
        let buffer = run.buffer
        // Each handler captures its descriptor and two pointers: the poller's own cost
        // (lookup, generation check, closure call) is what differs from the bare loop.
        for fd in sockets where !poller.add(fd, handler: { Self.readOne(fd, live, buffer) }) {
            run.failure = "EpollPoller.add(\(fd)) failed (errno \(errno))"
            return
        }
        let marked = run.keys  // keys[0] != 0: the mark handler ran during this poll
        poller.add(markRead) { [self] in
            marked[0] = 1
            takeMark(run)
        }
        while !live.pointee.done {
            marked[0] = 0
            let handled = poller.poll(timeoutMilliseconds: -1)
            if handled > Int(marked[0]) { live.pointee.counters.wakeUps += 1 }
        }
    }

    private static func readOne(_ fd: Int32, _ live: UnsafeMutablePointer<Live>, _ buffer: UnsafeMutableRawPointer) {
        let count = recv(fd, buffer, 1024, Int32(MSG_DONTWAIT))
        if count > 0 {
            live.pointee.counters.datagrams += 1
        } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            live.pointee.counters.emptyReads += 1
        } else if live.pointee.failedDescriptor < 0 {
            live.pointee.failedDescriptor = fd
            live.pointee.failedErrno = count == 0 ? 0 : errno
            live.pointee.done = true
        }
    }

    /// Start snapshot: /proc first, the CPU clock last; end snapshot: the CPU clock first.
    private func takeMark(_ run: Run) {
        var byte: UInt8 = 0
        while read(markRead, &byte, 1) == 1 {}
        var snapshot = run.live.pointee.counters
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
            run.live.pointee.done = true
        }
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
