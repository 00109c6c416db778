import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that a test starts and always stops, by PID.
///
/// Output (stdout and stderr together) goes to a log file, so a chatty child never
/// blocks on a full pipe; ``output`` reads it back for assertions and failure reports.
public final class ManagedProcess: @unchecked Sendable {
    /// The executable's path.
    public let executable: String
    /// The arguments passed.
    public let arguments: [String]
    /// Where stdout and stderr are written.
    public let logURL: URL
    private let process = Process()

    /// Prepares (does not start) a process. `environment` entries are added to this
    /// process's environment.
    public init(executable: String, arguments: [String], environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        let name = URL(fileURLWithPath: executable).lastPathComponent
        logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
    }

    /// Starts the process with stdin closed and output sent to ``logURL``.
    public func start() throws {
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The child's PID (0 before ``start()``).
    public var pid: Int32 { process.processIdentifier }

    /// Whether the child is still running.
    public var isRunning: Bool { process.isRunning }

    /// Everything the child has written so far.
    public var output: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to the child.
    public func send(signal: Int32) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
    }

    /// Stops the child: SIGTERM, then SIGKILL after `grace` seconds. Returns its exit status.
    @discardableResult
    public func stop(grace: TimeInterval = 5) -> Int32 {
        guard pid != 0 else { return 0 }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits up to `timeout` seconds for the child to exit; returns its status or `nil`.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        return process.terminationStatus
    }

    /// Polls ``output`` until it contains `text` or `timeout` passes.
    public func waitForOutput(containing text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            usleep(20_000)
        }
        return false
    }

    deinit {
        if process.isRunning { stop(grace: 1) }
    }
}
