public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that a test starts and always stops, by PID.
///
/// Started with `posix_spawn`, with no descriptor but its standard three, and an EMPTY
/// signal mask with default dispositions: the
/// test runner's threads block some signals, and a child inheriting that mask would
/// ignore SIGTERM (so graceful-shutdown tests would be impossible). Output (stdout and
/// stderr together) goes to a log file, so a chatty child never blocks on a full pipe;
/// ``output`` reads it back for assertions and failure reports; the log goes with the
/// object.
public final class ManagedProcess: @unchecked Sendable {
    /// The executable's path.
    public let executable: String
    /// The arguments passed.
    public let arguments: [String]
    /// Where stdout and stderr are written.
    public let logURL: URL
    private let environment: [String: String]
    /// Whether the child keeps the descriptors without close-on-exec (see ``init(executable:arguments:environment:inheritingDescriptors:)``).
    private let inheritsDescriptors: Bool
    private let lock = NSLock()
    private var childPID: pid_t = 0
    private var exitStatus: Int32?

    /// Prepares (does not start) a process. `environment` entries are added to this
    /// process's environment. With `inheritingDescriptors` the child keeps every descriptor
    /// without close-on-exec, for a caller that hands it some on purpose and keeps the rest
    /// close-on-exec itself (the bench's wake-up sender); by default it keeps only its
    /// standard three.
    public init(
        executable: String, arguments: [String], environment: [String: String] = [:],
        inheritingDescriptors: Bool = false
    ) {
        self.executable = executable
        self.arguments = arguments
        inheritsDescriptors = inheritingDescriptors
        let name = URL(fileURLWithPath: executable).lastPathComponent
        logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log")
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        self.environment = merged
    }

    /// Starts the process with stdin from /dev/null and output sent to ``logURL``.
    public func start() throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing but stdin, stdout and stderr: tests run in parallel, so this process holds
        // other tests' descriptors, most without close-on-exec. A child that inherited one kept
        // it open for its life: the socket pair Foundation's Process watches for a child's exit
        // then never closed, and that child's waitUntilExit never returned (a bluetoothctl
        // that had quit hung the whole run, issue #28), and a binary open for writing could
        // not be executed (ETXTBSY).
        if !inheritsDescriptors { _ = Self.closeFrom?(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError(executable: executable, reason: String(cString: strerror(result)))
        }
        lock.withLock { childPID = pid }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; the Swift
    /// module does not export it): closes every descriptor from the given one in the child.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np")
        else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// The child's PID (0 before ``start()``).
    public var pid: Int32 { lock.withLock { childPID } }

    /// Whether the child is still running.
    public var isRunning: Bool { reap(blocking: false) == nil && pid != 0 }

    /// Everything the child has written so far.
    public var output: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to the child, unless it has already been reaped (its PID may then
    /// belong to another process).
    public func send(signal: Int32) {
        lock.withLock {
            guard exitStatus == nil, childPID != 0 else { return }
            kill(childPID, signal)
        }
    }

    /// Asks the child to stop and returns at once: SIGTERM now, SIGKILL after `grace` seconds
    /// if it is still running, and the child reaped, all on a thread of its own.
    ///
    /// For `defer`s and `deinit`s: tests run on the main actor, and a bridge that takes
    /// seconds to shut down on a loaded machine must not hold it (every other test's D-Bus
    /// and MQTT waits queue behind it: a private bus's `Hello` timed out after 25 s while
    /// test teardowns blocked the main actor one after another, issue #28). When the next
    /// step needs the child gone, or its exit status, use ``terminate(grace:)``.
    public func stop(grace: TimeInterval = 5) {
        guard pid != 0, isRunning else { return }
        send(signal: SIGTERM)
        Thread.detachNewThread { [self] in _ = self.awaitExit(grace: grace) }
    }

    /// Stops the child like ``stop(grace:)`` but blocks the calling thread until it is gone,
    /// and returns its exit status: for tools whose thread may wait (the benchmark), never
    /// for a test on the main actor.
    @discardableResult
    public func stopAndWait(grace: TimeInterval = 5) -> Int32 {
        guard pid != 0 else { return 0 }
        send(signal: SIGTERM)
        return awaitExit(grace: grace)
    }

    /// Waits (blocking) for a signalled child to exit, SIGKILLing it after `grace` seconds
    /// (a second SIGTERM could cut a graceful shutdown short); returns its exit status.
    private func awaitExit(grace: TimeInterval) -> Int32 {
        if waitForExit(timeout: grace) == nil { send(signal: SIGKILL) }
        return waitForExit(timeout: 10) ?? 0
    }

    /// Waits up to `timeout` seconds for the child to exit; returns its status or `nil`.
    /// Blocks the calling thread: for tools and helper threads; async code uses
    /// ``exitStatus(within:)``.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        Self.poll(for: timeout) { reap(blocking: false) }
    }

    /// Calls `attempt` every 10 ms, blocking, until it returns a status or `timeout` seconds
    /// have passed (then once more).
    private static func poll(for timeout: TimeInterval, _ attempt: () -> Int32?) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = attempt() { return status }
            usleep(10_000)
        }
        return attempt()
    }

    /// Waits up to `timeout` for the child to exit, suspending (not blocking a thread)
    /// between looks; returns its status or `nil`.
    public func exitStatus(within timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let status = reap(blocking: false) { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return reap(blocking: false)
    }

    /// Waits up to `timeout` for ``output`` to contain `text`, suspending (not blocking a
    /// thread) between looks; false when it does not, or the child ends without it.
    public func output(containing text: String, within timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if output.contains(text) { return true }
            if !isRunning { return output.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return output.contains(text)
    }

    /// Stops the child like ``stop(grace:)``, suspending (not blocking a thread) while it
    /// winds down.
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> Int32 {
        guard pid != 0 else { return 0 }
        send(signal: SIGTERM)
        if await exitStatus(within: grace) == nil { send(signal: SIGKILL) }
        // SIGKILL ends it at once; reaping it may still take the kernel a moment.
        return await exitStatus(within: .seconds(10)) ?? 0
    }

    /// The exit status once the child has ended (reaping it), else `nil`.
    private func reap(blocking: Bool) -> Int32? {
        lock.withLock {
            if let exitStatus { return exitStatus }
            guard childPID != 0 else { return nil }
            var status: Int32 = 0
            let result = waitpid(childPID, &status, blocking ? 0 : WNOHANG)
            guard result == childPID else { return nil }
            let low = status & 0x7F
            exitStatus = low == 0 ? (status >> 8) & 0xFF : 128 + low
            return exitStatus
        }
    }

    /// Stops the child if it still runs and removes its log: a suite run starts thousands
    /// of children, and their logs would otherwise pile up in the temporary directory.
    deinit {
        let pid = childPID
        if pid != 0, exitStatus == nil, reap(blocking: false) == nil {
            kill(pid, SIGTERM)
            Thread.detachNewThread { Self.reap(pid, grace: 1) }
        }
        try? FileManager.default.removeItem(at: logURL)
    }

    /// Reaps `pid` (a child no object owns any more), SIGKILLing it after `grace` seconds.
    private static func reap(_ pid: pid_t, grace: TimeInterval) {
        var status: Int32 = 0
        guard poll(for: grace, { waitpid(pid, &status, WNOHANG) != 0 ? status : nil }) == nil else { return }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }
}

/// A child process could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    /// The program.
    public let executable: String
    /// `strerror` of the failure.
    public let reason: String
    /// A readable message.
    public var description: String { "cannot start \(executable): \(reason)" }
}
