import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Every child process the bench has running, by PID, so that they are stopped at the end,
/// when a section fails, and on SIGINT, SIGTERM or SIGHUP.
///
/// The PIDs live in a fixed table of plain 32-bit slots that the signal handler reads
/// directly: the handler only calls async-signal-safe functions (`kill`, `waitpid`,
/// `nanosleep`, `write`, `_exit`). It uses a real handler rather than ignoring the signal
/// or blocking it, because ignored dispositions and blocked masks are inherited by the
/// children (a child that ignores SIGTERM could only be killed).
final class ChildProcessRegistry: @unchecked Sendable {
    /// The one registry of this process.
    static let shared = ChildProcessRegistry()

    /// How many children can be tracked at once.
    static let capacity = 256

    private let lock = NSLock()

    private init() {}

    /// Remembers `pid` until ``unregister(_:)``.
    func register(_ pid: Int32) {
        guard pid > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        let slots = InterruptCleanup.slots
        for index in 0..<Self.capacity where slots[index] == 0 {
            slots[index] = pid
            return
        }
        FileHandle.standardError.write(
            Data("warning: more than \(Self.capacity) children; pid \(pid) untracked\n".utf8))
    }

    /// Forgets `pid` (it was stopped).
    func unregister(_ pid: Int32) {
        guard pid > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        let slots = InterruptCleanup.slots
        for index in 0..<Self.capacity where slots[index] == pid { slots[index] = 0 }
    }

    /// The PIDs tracked now.
    var pids: [Int32] {
        lock.lock()
        defer { lock.unlock() }
        return (0..<Self.capacity).map { InterruptCleanup.slots[$0] }.filter { $0 != 0 }
    }

    /// Stops every tracked child: SIGTERM, then SIGKILL after `grace` seconds. For the
    /// normal end of a run (sections stop their own children first; this catches leftovers).
    func stopAll(grace: TimeInterval = 3) {
        let running = pids
        guard !running.isEmpty else { return }
        for pid in running { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        var alive = running
        while !alive.isEmpty, Date() < deadline {
            // Foundation reaps its children itself; a zombie counts as alive until then.
            alive = alive.filter { kill($0, 0) == 0 }
            if !alive.isEmpty { usleep(10_000) }
        }
        for pid in alive { kill(pid, SIGKILL) }
        for pid in running { unregister(pid) }
    }

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP: it stops every tracked child by
    /// PID (SIGTERM, then SIGKILL after 3 s) and exits with 128 + the signal number.
    func installInterruptHandler() {
        _ = InterruptCleanup.slots  // initialise the table before any signal can arrive
        var action = sigaction()
        action.__sigaction_handler.sa_handler = interruptHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaction(signal, &action, nil) }
    }
}

/// The storage the signal handler reads: zero is an empty slot.
private enum InterruptCleanup {
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<Int32> = {
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: ChildProcessRegistry.capacity)
        slots.initialize(repeating: 0, count: ChildProcessRegistry.capacity)
        return slots
    }()
}

/// The signal handler: async-signal-safe calls only.
private let interruptHandler: @convention(c) (Int32) -> Void = { signal in
    let message: StaticString = "\nboardbridge-bench: interrupted, stopping child processes\n"
    _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
    let slots = InterruptCleanup.slots
    for index in 0..<ChildProcessRegistry.capacity where slots[index] > 0 {
        kill(slots[index], SIGTERM)
    }
    var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
    for _ in 0..<300 {
        var anyAlive = false
        for index in 0..<ChildProcessRegistry.capacity where slots[index] > 0 {
            let pid = slots[index]
            if waitpid(pid, nil, WNOHANG) == 0 { anyAlive = true } else { slots[index] = 0 }
        }
        if !anyAlive { break }
        nanosleep(&pause, nil)
    }
    for index in 0..<ChildProcessRegistry.capacity where slots[index] > 0 { kill(slots[index], SIGKILL) }
    _exit(128 + signal)
}
