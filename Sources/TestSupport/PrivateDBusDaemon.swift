public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private `dbus-daemon` for tests: its own config, a Unix socket in a fresh temporary
/// directory, started in the foreground and stopped by PID. Never the system bus.
///
/// The policy lets every connection own any name, send anywhere and eavesdrop, so one test
/// process can play BlueZ (`org.bluez`) and its client at once. Point code that reads the
/// system bus address at it with `DBUS_SYSTEM_BUS_ADDRESS=<address>` (child processes), or pass
/// ``address`` to `DBusConnection(address:)` (in-process).
///
/// ```swift
/// let bus = try await PrivateDBusDaemon()
/// defer { bus.stop() }
/// let connection = try await DBusConnection(address: bus.address)
/// ```
public final class PrivateDBusDaemon: @unchecked Sendable {
    /// The temporary directory holding the config, the socket and nothing else.
    public let directory: URL
    /// The socket's path.
    public let socketPath: String
    /// The address the daemon printed (`unix:path=…,guid=…`).
    public let address: String
    private let process: ManagedProcess

    /// Starts the daemon and waits (up to `timeout`, suspending) until it prints its address.
    ///
    /// - Throws: ``MissingTool`` when `dbus-daemon` is not installed; ``PrivateDBusDaemonError``
    ///   when it does not come up (its output is included).
    public init(timeout: Duration = .seconds(10)) async throws {
        let executable = try TestTools.require("dbus-daemon")
        // Unix socket paths are limited to 108 bytes: keep the directory short.
        let base = URL(fileURLWithPath: "/tmp")
        directory = base.appendingPathComponent("bb-dbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("bus").path
        let configURL = directory.appendingPathComponent("bus.conf")
        try Self.config(socketPath: socketPath).write(to: configURL, atomically: true, encoding: .utf8)
        process = ManagedProcess(
            executable: executable,
            arguments: ["--config-file=\(configURL.path)", "--nofork", "--nopidfile", "--print-address=1"])
        do {
            try process.start()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw PrivateDBusDaemonError(reason: "could not start dbus-daemon: \(error)", output: "")
        }
        guard await process.output(containing: "unix:", within: timeout),
            let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix("unix:") })
        else {
            let output = process.output
            process.send(signal: SIGKILL)
            process.stop(grace: 1)
            try? FileManager.default.removeItem(at: directory)
            throw PrivateDBusDaemonError(reason: "dbus-daemon did not print its address", output: output)
        }
        address = String(line).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The daemon's PID.
    public var pid: Int32 { process.pid }

    /// Whether the daemon is still running.
    public var isRunning: Bool { process.isRunning }

    /// Everything the daemon wrote.
    public var output: String { process.output }

    /// Stops the daemon and removes its directory. Idempotent.
    ///
    /// Uses SIGKILL: a test bus has no state worth a clean shutdown. Returns at once: the daemon is reaped on a thread of its own
    /// (``ManagedProcess/stop(grace:)``).
    public func stop() {
        kill()
        process.stop(grace: 1)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the daemon with SIGKILL (a crashed bus); its clients see the connection go.
    /// ``stop()`` still cleans up afterwards.
    public func kill() {
        process.send(signal: SIGKILL)
    }

    deinit {
        stop()
    }

    /// A bus configuration that listens on `socketPath` and allows everything.
    static func config(socketPath: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socketPath)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }
}

/// A private `dbus-daemon` did not come up.
public struct PrivateDBusDaemonError: Error, CustomStringConvertible {
    /// What went wrong.
    public let reason: String
    /// The daemon's output, for the test report.
    public let output: String

    /// The reason and the daemon's output.
    public var description: String {
        output.isEmpty ? reason : "\(reason); output:\n\(output)"
    }
}
