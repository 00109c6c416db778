public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private `mosquitto` broker for integration tests, on free loopback ports.
///
/// It writes a config file into its own temporary directory, runs `mosquitto -c <conf>`
/// as a ``ManagedProcess`` and stops it by PID (``stop()``, ``kill()``, and in `deinit`).
/// ``restart()`` starts it again on the same ports with the same config, so clients can
/// reconnect; with ``Options/persistence`` the broker keeps sessions, queued messages and
/// retained messages across a graceful stop.
public final class MosquittoBroker: @unchecked Sendable {
    /// A TLS listener (next to the plain one).
    public struct TLSListener: Sendable {
        /// The CA that signed the server certificate (and client certificates).
        public var caFile: String
        /// The server certificate.
        public var certificateFile: String
        /// The server key.
        public var keyFile: String
        /// Whether clients must present a certificate signed by `caFile`.
        public var requireClientCertificate: Bool

        /// A TLS listener.
        public init(caFile: String, certificateFile: String, keyFile: String, requireClientCertificate: Bool = false) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.requireClientCertificate = requireClientCertificate
        }
    }

    /// How the broker is set up.
    public struct Options: Sendable {
        /// Accept clients without a user name (default `true`; set `false` together with
        /// ``users`` to make the password file mandatory).
        public var allowAnonymous: Bool
        /// User names and passwords, written with `mosquitto_passwd -b` to a password file.
        public var users: [String: String]
        /// A TLS listener, if wanted.
        public var tls: TLSListener?
        /// Keep sessions and messages on disk across restarts (default `false`).
        public var persistence: Bool
        /// Extra `mosquitto.conf` lines.
        public var extraLines: [String]

        /// Options; an anonymous, non-persistent plain listener by default.
        public init(
            allowAnonymous: Bool = true, users: [String: String] = [:], tls: TLSListener? = nil,
            persistence: Bool = false, extraLines: [String] = []
        ) {
            self.allowAnonymous = allowAnonymous
            self.users = users
            self.tls = tls
            self.persistence = persistence
            self.extraLines = extraLines
        }
    }

    /// The plain MQTT port on 127.0.0.1.
    public private(set) var port: UInt16
    /// The TLS port on 127.0.0.1, when a TLS listener is configured.
    public let tlsPort: UInt16?
    /// The broker's temporary directory (config, password file, persistence).
    public let directory: URL
    /// The generated config file.
    public let configURL: URL
    /// The broker's log file (kept across restarts).
    public let logURL: URL
    private var process: ManagedProcess?
    private var earlierLogs = ""

    /// Prepares a broker (writes its config and password file); call ``start(timeout:)``.
    public init(options: Options = Options()) throws {
        directory = try TestTools.temporaryDirectory("mosquitto")
        port = TestTools.freeLoopbackPort()
        var tlsPort: UInt16?
        if options.tls != nil {
            var candidate = TestTools.freeLoopbackPort()
            while candidate == port { candidate = TestTools.freeLoopbackPort() }
            tlsPort = candidate
        }
        self.tlsPort = tlsPort
        configURL = directory.appendingPathComponent("mosquitto.conf")

        logURL = directory.appendingPathComponent("mosquitto.log")
        var lines = [
            // Run as root (tests in containers), mosquitto would switch to the `mosquitto`
            // user and could not write the log, persistence or read the password file.
            // As any other user this line has no effect.
            "user root",
            "listener \(port) 127.0.0.1",
            "allow_anonymous \(options.allowAnonymous)",
            "log_dest file \(logURL.path)",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            "connection_messages true",
        ]
        if !options.users.isEmpty {
            let passwordFile = directory.appendingPathComponent("passwords").path
            try Self.writePasswordFile(passwordFile, users: options.users)
            lines.append("password_file \(passwordFile)")
        }
        if options.persistence {
            lines += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        } else {
            lines.append("persistence false")
        }
        if let tls = options.tls, let tlsPort {
            lines += [
                "listener \(tlsPort) 127.0.0.1",
                "cafile \(tls.caFile)",
                "certfile \(tls.certificateFile)",
                "keyfile \(tls.keyFile)",
                "require_certificate \(tls.requireClientCertificate)",
            ]
        }
        lines += options.extraLines
        try (lines.joined(separator: "\n") + "\n").write(to: configURL, atomically: true, encoding: .utf8)
    }

    /// The URL of the plain listener, `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts `mosquitto -c <conf>` and waits (suspending) until every listener accepts
    /// connections.
    ///
    /// Ready means *this* mosquitto said it runs (its log's `running` line, every listener
    /// open) and its ports accept: a port that answers is not enough, since another test's
    /// listener may have taken the port between ``TestTools/freeLoopbackPort()`` and
    /// mosquitto's bind (mosquitto then exits with `Address already in use` while the other
    /// listener answers). At the first start such a port is replaced by a new one.
    public func start(timeout: Duration = .seconds(10)) async throws {
        guard process?.isRunning != true else { return }
        let firstStart = process == nil
        for attempt in 1...4 {
            if try await launch(timeout: timeout) { return }
            guard firstStart, attempt < 4 else { break }
            try repickPort()
        }
        throw BrokerError(description: "mosquitto could not bind its port \(port):\n\(log)")
    }

    /// Starts mosquitto once: `true` when ready, `false` when its port was taken (it exited
    /// with `Address already in use`).
    private func launch(timeout: Duration) async throws -> Bool {
        if let process { earlierLogs += process.output }
        let logged = Self.fileLog(logURL).utf8.count
        let child = ManagedProcess(executable: try TestTools.require("mosquitto"), arguments: ["-c", configURL.path])
        try child.start()
        process = child
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let fresh = String(decoding: Self.fileLog(logURL).utf8.dropFirst(logged), as: UTF8.self) + child.output
            if fresh.contains("Address already in use") || fresh.contains("address already in use") {
                child.stop(grace: 1)
                return false
            }
            let listening = ([port] + (tlsPort.map { [$0] } ?? [])).allSatisfy {
                TestTools.acceptsConnections(port: $0)
            }
            if child.isRunning, fresh.contains(" running"), listening { return true }
            guard child.isRunning, clock.now < deadline else {
                child.stop(grace: 1)
                throw BrokerError(description: "mosquitto did not start on port \(port):\n\(log)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Moves the plain listener to a new free port (the config is rewritten).
    private func repickPort() throws {
        var candidate = TestTools.freeLoopbackPort()
        while candidate == port || candidate == tlsPort { candidate = TestTools.freeLoopbackPort() }
        let config = try String(contentsOf: configURL, encoding: .utf8)
        let updated = config.replacingOccurrences(
            of: "listener \(port) 127.0.0.1\n", with: "listener \(candidate) 127.0.0.1\n")
        try updated.write(to: configURL, atomically: true, encoding: .utf8)
        port = candidate
    }

    private static func fileLog(_ url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// Asks the broker to stop gracefully (SIGTERM by PID; it saves persistence) and returns
    /// at once (``ManagedProcess/stop(grace:)``): for `defer`s.
    public func stop() {
        resume()
        process?.stop(grace: 5)
    }

    /// Stops the broker gracefully, suspending until it is gone (its port is free again).
    public func terminate() async {
        resume()
        await process?.terminate(grace: .seconds(5))
    }

    /// Kills the broker abruptly (SIGKILL by PID), suspending until it is gone.
    public func kill() async {
        guard let process else { return }
        process.send(signal: SIGKILL)
        await process.terminate(grace: .seconds(1))
    }

    /// Freezes the broker (SIGSTOP by PID): connections stay open but nothing is answered,
    /// like a broker behind a dead network path. ``stop()`` resumes it first.
    public func suspend() {
        process?.send(signal: SIGSTOP)
    }

    /// Resumes a suspended broker (SIGCONT by PID).
    public func resume() {
        process?.send(signal: SIGCONT)
    }

    /// Stops (if running) and starts again on the same ports with the same config.
    public func restart(timeout: Duration = .seconds(10)) async throws {
        await terminate()
        try await start(timeout: timeout)
    }

    /// The running broker's PID, or 0.
    public var pid: Int32 { process?.isRunning == true ? process?.pid ?? 0 : 0 }

    /// Whether the broker process is running.
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Everything the broker logged, across restarts (its log file, then its console output).
    public var log: String {
        let file = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return file + earlierLogs + (process?.output ?? "")
    }

    deinit {
        process?.send(signal: SIGCONT)
        process?.stop(grace: 2)
        try? FileManager.default.removeItem(at: directory)
    }

    private static func writePasswordFile(_ path: String, users: [String: String]) throws {
        let tool = try TestTools.require("mosquitto_passwd")
        for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
            let arguments = (index == 0 ? ["-b", "-c"] : ["-b"]) + [path, user, password]
            try run(tool, arguments)
        }
    }

    /// Runs a program to completion; throws with its output if it fails.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let child = ManagedProcess(executable: executable, arguments: arguments)
        try child.start()
        guard child.waitForExit(timeout: 30) == 0 else {
            child.stop(grace: 1)
            throw BrokerError(description: "\(executable) \(arguments.joined(separator: " ")) failed:\n\(child.output)")
        }
    }
}

/// A broker or certificate helper failed.
public struct BrokerError: Error, CustomStringConvertible {
    /// What went wrong, with the tool's output.
    public let description: String
}

/// A throwaway PKI made with `openssl` for TLS tests: a CA, a server certificate for
/// `localhost` (DNS name only, so connecting to `127.0.0.1` fails host name checks), a
/// client certificate, and an unrelated second CA for "wrong CA" tests.
public struct TestCertificates: Sendable {
    /// The CA certificate.
    public let caFile: String
    /// The server certificate (subjectAltName DNS:localhost), signed by the CA.
    public let serverCertificateFile: String
    /// The server key.
    public let serverKeyFile: String
    /// A client certificate signed by the CA.
    public let clientCertificateFile: String
    /// The client key.
    public let clientKeyFile: String
    /// A CA that signed nothing here.
    public let otherCAFile: String

    /// Generates everything (EC P-256 keys, valid two days) in `directory`.
    public static func generate(in directory: URL) throws -> TestCertificates {
        let openssl = try TestTools.require("openssl")
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n"
            .write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(toFile: path("client.ext"), atomically: true, encoding: .utf8)
        for (name, subject) in [("ca", "/CN=BoardBridge Test CA"), ("other-ca", "/CN=Unrelated Test CA")] {
            try MosquittoBroker.run(
                openssl,
                ["req", "-x509"] + newKey + [
                    "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-days", "2", "-subj", subject,
                ])
        }
        for (name, subject) in [("server", "/CN=localhost"), ("client", "/CN=test-client")] {
            try MosquittoBroker.run(
                openssl,
                ["req"] + newKey + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
            try MosquittoBroker.run(
                openssl,
                [
                    "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2", "-extfile", path("\(name).ext"),
                ])
        }
        return TestCertificates(
            caFile: path("ca.crt"), serverCertificateFile: path("server.crt"), serverKeyFile: path("server.key"),
            clientCertificateFile: path("client.crt"), clientKeyFile: path("client.key"),
            otherCAFile: path("other-ca.crt"))
    }
}
