import Foundation
import TestSupport

/// Why a section could not go on.
struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// A private `mosquitto` for the bench: a generated config in a temporary directory, a
/// free loopback port, started as a ``BenchProcess`` (tracked by PID, stopped at the end,
/// on failure and on SIGINT). Stock broker settings otherwise.
@MainActor
final class BenchBroker {
    /// The plain MQTT port on 127.0.0.1.
    let port: UInt16
    /// The temporary directory holding the config.
    let directory: URL
    /// The broker process.
    let process: BenchProcess

    /// Writes the config; call ``start(timeout:)``.
    init() throws {
        let executable = try TestTools.require("mosquitto")
        directory = try TestTools.temporaryDirectory("bench-mosquitto")
        port = TestTools.freeLoopbackPort()
        let config = directory.appendingPathComponent("mosquitto.conf")
        let lines = [
            // Only matters when the bench runs as root: stay root rather than switching
            // to a `mosquitto` user that may not exist. No effect for other users.
            "user root",
            "listener \(port) 127.0.0.1",
            "allow_anonymous true",
            "persistence false",
            "log_dest stdout",
            "log_type error",
            "log_type warning",
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: config, atomically: true, encoding: .utf8)
        process = BenchProcess(name: "mosquitto", executable: executable, arguments: ["-c", config.path])
    }

    /// `mqtt://127.0.0.1:<port>`.
    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts the broker and waits until it accepts connections.
    func start(timeout: Duration = .seconds(10)) async throws {
        try process.start()
        let ready = await process.timeUntil(timeout: timeout, poll: .milliseconds(5)) {
            TestTools.acceptsConnections(port: port)
        }
        guard ready != nil else {
            let output = process.output
            stop()
            throw BenchError(description: "mosquitto did not accept connections on port \(port):\n\(output)")
        }
    }

    /// Stops the broker by PID and removes its directory.
    func stop() {
        process.stop(grace: 3)
        try? FileManager.default.removeItem(at: directory)
    }
}
