public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `boardsim` executable run by a test: serves `org.bluez` on a private bus with
/// simulated boards, started with ``ManagedProcess`` and always stopped by PID.
///
/// ```swift
/// let bus = try await PrivateDBusDaemon()
/// defer { bus.stop() }
/// let sim = try await BoardSimulator(busAddress: bus.address,
///                              arguments: ["--board", "family=chessnut,address=AA:BB:CC:00:00:01"])
/// defer { sim.stop() }
/// let result = try await sim.ctl("list")
/// ```
public final class BoardSimulator: @unchecked Sendable {
    /// The bus it serves on.
    public let busAddress: String
    /// The `boardsim` binary.
    public let executable: String
    private let process: ManagedProcess

    /// Starts `boardsim --bus busAddress [--config configFile] arguments…` and waits (up to
    /// `timeout`, suspending) until it owns `org.bluez` (it prints its ready line only then).
    ///
    /// - Throws: ``MissingTool`` when `boardsim` is not built; ``BoardSimulatorError`` when it
    ///   exits or does not become ready (its output is included).
    public init(
        busAddress: String, configFile: URL? = nil, arguments: [String] = [], environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws {
        self.busAddress = busAddress
        executable = try TestTools.product("boardsim")
        var all = ["--bus", busAddress]
        if let configFile { all += ["--config", configFile.path] }
        all += arguments
        process = ManagedProcess(executable: executable, arguments: all, environment: environment)
        try process.start()
        guard await process.output(containing: "boardsim: ready", within: timeout) else {
            let output = process.output
            process.stop(grace: 2)
            throw BoardSimulatorError(reason: "boardsim did not become ready", output: output)
        }
    }

    /// The simulator's PID.
    public var pid: Int32 { process.pid }

    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// Everything it printed (its log).
    public var output: String { process.output }

    /// Asks it to stop (SIGTERM, SIGKILL after `grace` seconds) and returns at once
    /// (``ManagedProcess/stop(grace:)``): for `defer`s.
    public func stop(grace: TimeInterval = 5) {
        process.stop(grace: grace)
    }

    /// Stops it (SIGTERM, SIGKILL after `grace`), suspending until it is gone, and returns
    /// its exit status.
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> Int32 {
        await process.terminate(grace: grace)
    }

    /// Runs `boardsim ctl --bus <bus> arguments…` and returns what it printed.
    public func ctl(_ arguments: String...) async throws -> BoardSimulatorResult {
        try await Self.ctl(arguments, busAddress: busAddress, executable: executable)
    }

    /// Runs `boardsim ctl --bus <bus> arguments…` and returns what it printed.
    public func ctl(_ arguments: [String]) async throws -> BoardSimulatorResult {
        try await Self.ctl(arguments, busAddress: busAddress, executable: executable)
    }

    /// Runs `boardsim ctl` against any bus, without blocking the calling thread.
    public static func ctl(
        _ arguments: [String], busAddress: String, executable: String? = nil
    ) async throws
        -> BoardSimulatorResult
    {
        let path = try executable ?? TestTools.product("boardsim")
        let directory = FileManager.default.temporaryDirectory
        let stdoutURL = directory.appendingPathComponent("boardsim-ctl-\(UUID().uuidString.prefix(8)).out")
        let stderrURL = directory.appendingPathComponent("boardsim-ctl-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["ctl", "--bus", busAddress] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return BoardSimulatorResult(
            status: status, standardOutput: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
    }

    deinit {
        process.stop(grace: 2)
    }
}

/// What one `boardsim ctl` run printed.
public struct BoardSimulatorResult: Sendable, CustomStringConvertible {
    /// The exit status (0: success, 1: the request failed, 2: bad usage).
    public let status: Int32
    /// Standard output.
    public let standardOutput: String
    /// Standard error.
    public let standardError: String

    /// The non-empty lines of standard output.
    public var lines: [String] {
        standardOutput.split(separator: "\n").map(String.init)
    }

    /// Status and both outputs, for failure messages.
    public var description: String {
        "status \(status); stdout: \(standardOutput); stderr: \(standardError)"
    }
}

/// `boardsim` did not come up.
public struct BoardSimulatorError: Error, CustomStringConvertible {
    /// What went wrong.
    public let reason: String
    /// Its output.
    public let output: String

    /// The reason and the output.
    public var description: String {
        output.isEmpty ? reason : "\(reason); output:\n\(output)"
    }
}
