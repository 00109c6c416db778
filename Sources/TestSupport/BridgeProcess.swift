public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `boardbridge run` daemon run by an end-to-end test: `boardbridge run --config FILE
/// --bus ADDRESS` started with ``ManagedProcess`` and always stopped by PID.
///
/// It can be stopped gracefully (``stop(grace:)``, SIGTERM), killed (``kill()``, SIGKILL:
/// no clean shutdown, the broker fires the last will) and started again with the same
/// configuration (``start()``), so a test can check that games survive a crash. Its log
/// is kept across restarts (``output``).
///
/// ```swift
/// let bridge = try BridgeProcess(configFile: config, busAddress: bus.address)
/// try bridge.start()
/// defer { bridge.stop() }
/// ```
public final class BridgeProcess: @unchecked Sendable {
    /// The configuration file passed with `--config`.
    public let configFile: URL
    /// The D-Bus address passed with `--bus` (where `boardsim` serves `org.bluez`).
    public let busAddress: String
    /// The `boardbridge` binary.
    public let executable: String
    /// A command the bridge is started through (`unshare -m … sh -c '…; exec "$@"' sh`),
    /// given the bridge's command line as its last arguments; empty: started directly.
    /// The wrapper must `exec` the bridge, so that signals reach it by the same PID.
    public var launcher: [String] = []
    private let environment: [String: String]
    private let lock = NSLock()
    private var process: ManagedProcess?
    private var earlierOutput = ""

    /// Prepares (does not start) a bridge for `configFile` on `busAddress`.
    ///
    /// - Throws: ``MissingTool`` when `boardbridge` is not built.
    public init(configFile: URL, busAddress: String, environment: [String: String] = [:]) throws {
        self.configFile = configFile
        self.busAddress = busAddress
        self.environment = environment
        executable = try TestTools.product("boardbridge")
    }

    /// Starts `boardbridge run` (does nothing while it runs). Readiness is the caller's to
    /// observe (on MQTT), and so is an early exit: a wait for readiness that fails reports
    /// ``output``.
    ///
    /// - Throws: ``SpawnError`` when the process cannot be started.
    public func start() throws {
        guard !isRunning else { return }
        let command = ["run", "--config", configFile.path, "--bus", busAddress]
        let child =
            launcher.isEmpty
            ? ManagedProcess(executable: executable, arguments: command, environment: environment)
            : ManagedProcess(
                executable: launcher[0], arguments: launcher.dropFirst() + [executable] + command,
                environment: environment)
        lock.withLock {
            if let process { earlierOutput += process.output }
            process = child
        }
        try child.start()
    }

    /// The running bridge's PID, or 0.
    public var pid: Int32 {
        guard let process = lock.withLock({ process }), process.isRunning else { return 0 }
        return process.pid
    }

    /// Whether the bridge runs.
    public var isRunning: Bool { lock.withLock { process }?.isRunning ?? false }

    /// Everything it logged, across restarts.
    public var output: String {
        lock.withLock { earlierOutput + (process?.output ?? "") }
    }

    /// Asks it to stop gracefully (SIGTERM, SIGKILL after `grace` seconds) and returns at
    /// once (``ManagedProcess/stop(grace:)``): for `defer`s.
    public func stop(grace: TimeInterval = 15) {
        lock.withLock { process }?.stop(grace: grace)
    }

    /// Stops it gracefully (SIGTERM, SIGKILL after `grace`), suspending until it is gone, and
    /// returns its exit status.
    @discardableResult
    public func terminate(grace: Duration = .seconds(15)) async -> Int32 {
        guard let process = lock.withLock({ process }) else { return 0 }
        return await process.terminate(grace: grace)
    }

    /// Kills it with SIGKILL (a crash: no shutdown, no `offline` of its own), suspending
    /// until it is gone. Returns its exit status (137).
    @discardableResult
    public func kill() async -> Int32 {
        guard let process = lock.withLock({ process }) else { return 0 }
        process.send(signal: SIGKILL)
        return await process.terminate(grace: .seconds(1))
    }

    deinit {
        process?.stop(grace: 5)
    }
}
