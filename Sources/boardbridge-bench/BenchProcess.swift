import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child process a benchmark starts (broker, bridge, simulator), tracked by PID in the
/// ``ChildProcessRegistry`` from start to stop so that an interrupt or a failing section
/// never leaves it running. Its stdout and stderr go to a log file (``output``).
///
/// Main-actor bound, so children are spawned from the main thread: a child inherits the
/// spawning thread's signal mask, and Dispatch's worker threads block most signals.
@MainActor
final class BenchProcess {
    /// A short name for messages (`mosquitto`, `boardbridge`).
    let name: String
    /// When ``start()`` spawned it.
    private(set) var launchedAt: ContinuousClock.Instant?
    private let process: ManagedProcess
    private let registry: ChildProcessRegistry

    /// Prepares (does not start) `executable` with `arguments`; `environment` entries are
    /// added to the bench's environment. With `inheritingDescriptors` the child keeps the
    /// descriptors the bench left without close-on-exec for it (the wake-up sender's sockets).
    init(
        name: String, executable: String, arguments: [String], environment: [String: String] = [:],
        inheritingDescriptors: Bool = false, registry: ChildProcessRegistry = .shared
    ) {
        self.name = name
        process = ManagedProcess(
            executable: executable, arguments: arguments, environment: environment,
            inheritingDescriptors: inheritingDescriptors)
        self.registry = registry
    }

    /// Spawns the process and registers its PID.
    func start() throws {
        launchedAt = .now
        try process.start()
        registry.register(process.pid)
    }

    /// The PID (0 before ``start()``).
    var pid: Int32 { process.pid }

    /// Whether it is still running.
    var isRunning: Bool { process.isRunning }

    /// Everything it wrote so far (stdout and stderr).
    var output: String { process.output }

    /// The log file holding its output.
    var logPath: String { process.logURL.path }

    /// A /proc sample of it now, or `nil` when it is not running.
    func sample() -> ProcessSample? {
        guard pid > 0, process.isRunning else { return nil }
        return ProcessSampler.sample(pid: pid)
    }

    /// Stops it by PID (SIGTERM, SIGKILL after `grace` seconds), unregisters it and
    /// returns its exit status.
    @discardableResult
    func stop(grace: TimeInterval = 5) -> Int32 {
        let pid = process.pid
        let status = process.stopAndWait(grace: grace)
        registry.unregister(pid)
        return status
    }

    /// Polls `condition` every `poll` until it holds or `timeout` passes; returns the time
    /// from launch to the first poll that saw it hold (`nil` on timeout or when the process
    /// died first). The resolution is `poll` (default 1 ms).
    func timeUntil(
        timeout: Duration, poll: Duration = .milliseconds(1), _ condition: () -> Bool
    ) async -> Duration? {
        let start = launchedAt ?? .now
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return ContinuousClock.now - start }
            if !process.isRunning { return condition() ? ContinuousClock.now - start : nil }
            try? await Task.sleep(for: poll)
        }
        return nil
    }

    /// The time from launch until its output contains `text` (see ``timeUntil(timeout:poll:_:)``).
    func timeUntilOutput(
        containing text: String, timeout: Duration, poll: Duration = .milliseconds(2)
    ) async
        -> Duration?
    {
        await timeUntil(timeout: timeout, poll: poll) { output.contains(text) }
    }

    isolated deinit {
        if process.isRunning { stop(grace: 1) }
    }
}

/// Runs a short command to completion and returns its output (used for the machine record).
enum CommandOutput {
    /// The first line `name` (found on PATH) prints to stdout with `arguments`, or `nil`.
    static func firstLine(of name: String, _ arguments: [String]) -> String? {
        guard let path = TestTools.path(of: name) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        ChildProcessRegistry.shared.register(process.processIdentifier)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        ChildProcessRegistry.shared.unregister(process.processIdentifier)
        guard process.terminationStatus == 0 else { return nil }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return line?.trimmingCharacters(in: .whitespaces)
    }
}
