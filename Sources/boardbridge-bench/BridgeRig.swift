import Contract
import DBus
import Foundation
import JSON
import MQTT
import TestSupport

/// The whole chain of sections 3 and 4 for `boards` simulated Chessnut boards: a private
/// `dbus-daemon`, `boardsim` (the fake BlueZ) on it, a private `mosquitto`, a generated
/// `boardbridge` config and a subscriber `MQTTClient` on `boardbridge/#` in the bench.
///
/// Every process is tracked by PID in the ``ChildProcessRegistry`` and stopped by
/// ``stop()`` (which callers `defer`), in reverse order of start.
@MainActor
final class BridgeRig {
    /// The node name in the generated config.
    static let node = "bench"
    /// How many boards.
    let boards: Int
    /// The board ids (`b01`…), the same in boardsim and in the bridge config.
    let boardIDs: [String]
    /// The bench's own directory (release binaries sit next to it).
    let binaries: URL
    /// Scratch directory (config, state directory).
    let directory: URL
    private(set) var bus: PrivateDBusDaemon?
    private(set) var simulator: BenchProcess?
    private(set) var broker: BenchBroker?
    private(set) var bridge: BenchProcess?
    private(set) var subscriber: MQTTClient?
    private(set) var control: DBusConnection?
    /// Called for every message on `boardbridge/#`, right after its arrival time is taken.
    var onMessage: ((MQTTMessage, ContinuousClock.Instant) -> Void)?
    /// The latest payload of every topic (retained ones included).
    private(set) var latest: [String: String] = [:]
    /// When each topic's payload first became `{"state":"online"}`.
    private(set) var onlineAt: [String: ContinuousClock.Instant] = [:]
    /// When each board's connection topic last became `ready` (``forgetReady()`` clears it).
    private(set) var readyAt: [String: ContinuousClock.Instant] = [:]
    /// boardsim's `behavior` settings (`connectDelay`, `connectJitter`, …); none: its defaults.
    let behavior: [String: Double]
    private var simulatorArguments: [String] = []

    /// Prepares a rig for `boards` boards on `adapterCount` adapters (default: 2 for up to 8
    /// boards, else 4), with boardsim's `behavior` (nothing starts yet).
    init(boards: Int, adapterCount: Int? = nil, behavior: [String: Double] = [:]) throws {
        self.boards = boards
        self.behavior = behavior
        adapters = (0..<(adapterCount ?? (boards <= 8 ? 2 : 4))).map { "hci\($0)" }
        boardIDs = (1...boards).map { String(format: "b%02d", $0) }
        binaries = URL(fileURLWithPath: Self.executablePath()).deletingLastPathComponent()
        directory = try TestTools.temporaryDirectory("bench-e2e")
    }

    /// The adapters boards are spread over.
    let adapters: [String]

    /// The adapter of board `index`.
    func adapter(of index: Int) -> String { adapters[index % adapters.count] }

    /// The Bluetooth address of board `index`.
    func address(of index: Int) -> String {
        String(format: "AA:BB:CC:00:%02X:%02X", index / 256, index % 256 + 1)
    }

    /// Starts the bus, boardsim, the broker and the subscriber (not the bridge).
    func startSupport() async throws {
        let boardsim = binaries.appendingPathComponent("boardsim").path
        guard FileManager.default.isExecutableFile(atPath: boardsim) else {
            throw BenchError(description: "no boardsim next to the bench (\(boardsim)); build with -c release")
        }
        let bus = try await PrivateDBusDaemon()
        ChildProcessRegistry.shared.register(bus.pid)
        self.bus = bus
        var arguments = ["--bus", bus.address, "--quiet"]
        if !behavior.isEmpty {
            let path = directory.appendingPathComponent("boardsim.json")
            let settings = behavior.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
            try "{\"behavior\": {\(settings.joined(separator: ", "))}}\n".write(
                to: path, atomically: true, encoding: .utf8)
            arguments += ["--config", path.path]
        }
        for adapter in adapters { arguments += ["--adapter", adapter] }
        for (index, id) in boardIDs.enumerated() {
            arguments += [
                "--board",
                "family=chessnut,id=\(id),name=Chessnut Air,address=\(address(of: index)),adapter=\(adapter(of: index))",
            ]
        }
        simulatorArguments = arguments
        try await startSimulator()
        let broker = try BenchBroker()
        self.broker = broker
        try await broker.start()
        do {
            control = try await DBusConnection(address: bus.address)
        } catch {
            throw BenchError(description: "no control connection to the private bus: \(error)")
        }
        var configuration = try MQTTConfiguration(url: broker.url, clientID: "bench-e2e-sub-\(getpid())")
        configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let client = try MQTTClient(configuration: configuration)
        client.onMessage = { [weak self] message in
            let now = ContinuousClock.now
            self?.received(message, at: now)
        }
        try client.subscribe("boardbridge/#", qos: .atLeastOnce)
        client.start()
        subscriber = client
        let deadline = ContinuousClock.now + .seconds(15)
        while !client.state.isConnected {
            guard ContinuousClock.now < deadline else { throw BenchError(description: "subscriber did not connect") }
            try await Task.sleep(for: .milliseconds(5))
        }
        try writeConfig()
    }

    /// Starts boardsim (the fake bluetoothd) with the rig's boards and waits until it owns
    /// `org.bluez`.
    private func startSimulator() async throws {
        let boardsim = binaries.appendingPathComponent("boardsim").path
        let simulator = BenchProcess(name: "boardsim", executable: boardsim, arguments: simulatorArguments)
        try simulator.start()
        self.simulator = simulator
        guard await simulator.timeUntilOutput(containing: "boardsim: ready", timeout: .seconds(20)) != nil else {
            throw BenchError(description: "boardsim did not become ready:\n\(simulator.output)")
        }
    }

    /// Stops boardsim and starts it again, as `systemctl restart bluetooth` does to
    /// bluetoothd: every link goes, `org.bluez` leaves the bus and comes back. Returns when
    /// the new one is ready.
    func restartSimulator() async throws {
        simulator?.stop(grace: 3)
        simulator = nil
        try await startSimulator()
    }

    /// Forgets when boards became ready, to time the next time they do.
    func forgetReady() { readyAt = [:] }

    /// The connection topic of `board`.
    static func connectionTopic(_ board: String) -> String { "boardbridge/\(board)/connection" }

    private func received(_ message: MQTTMessage, at time: ContinuousClock.Instant) {
        let text = message.payloadString ?? ""
        latest[message.topic] = text
        if onlineAt[message.topic] == nil, text.contains("\"online\"") { onlineAt[message.topic] = time }
        if readyAt[message.topic] == nil, message.topic.hasSuffix("/connection"), text.contains(Self.readyState) {
            readyAt[message.topic] = time
        }
        onMessage?(message, time)
    }

    /// The generated bridge config.
    var configPath: String { directory.appendingPathComponent("config.yaml").path }

    private func writeConfig() throws {
        guard let broker else { return }
        let state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        var lines = [
            "mqtt:", "  url: \(broker.url)", "  client_id: bench-bridge-\(getpid())",
            "base_topic: boardbridge", "node: \(Self.node)",
            "bluetooth:", "  adapters: [\(adapters.joined(separator: ", "))]",
            "state_directory: \(state.path)", "logging:", "  level: warning", "boards:",
        ]
        for (index, id) in boardIDs.enumerated() {
            lines += ["  - id: \(id)", "    address: \"\(address(of: index))\"", "    family: chessnut"]
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts `boardbridge run` on the rig.
    func startBridge() throws {
        guard let bus else { throw BenchError(description: "the rig's support processes are not running") }
        let executable = binaries.appendingPathComponent("boardbridge").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError(description: "no boardbridge next to the bench (\(executable)); build with -c release")
        }
        let bridge = BenchProcess(
            name: "boardbridge", executable: executable,
            arguments: ["run", "--config", configPath, "--bus", bus.address])
        try bridge.start()
        self.bridge = bridge
    }

    /// The availability topic of `board`.
    static func availabilityTopic(_ board: String) -> String { "boardbridge/\(board)/availability" }
    /// The bridge state topic.
    static var bridgeStateTopic: String { "boardbridge/bridge/\(node)/state" }

    /// Waits until every board's availability is online; throws naming the missing ones.
    func waitUntilOnline(timeout: Duration) async throws {
        try await waitForBoards("online", timeout: timeout) {
            self.latest[Self.availabilityTopic($0)]?.contains("\"online\"") == true
        }
    }

    /// Waits until every board of `ids` was ready since ``forgetReady()``; returns when the
    /// last one became ready.
    func waitUntilReady(_ ids: [String], timeout: Duration) async throws -> ContinuousClock.Instant {
        try await waitForBoards("ready", of: ids, timeout: timeout) { self.readyAt[Self.connectionTopic($0)] != nil }
        return ids.compactMap { readyAt[Self.connectionTopic($0)] }.max() ?? .now
    }

    /// Waits until no board of `ids` shows `ready` on its connection topic.
    func waitUntilDown(_ ids: [String], timeout: Duration) async throws {
        try await waitForBoards("down", of: ids, timeout: timeout) {
            self.latest[Self.connectionTopic($0)]?.contains(Self.readyState) != true
        }
    }

    /// A connection payload's `ready` state.
    static let readyState = "\"state\":\"ready\""

    /// Waits until `condition` holds for every board of `ids` (every board of the rig by
    /// default) while the bridge runs; throws naming the boards it does not hold for.
    private func waitForBoards(
        _ what: String, of ids: [String]? = nil, timeout: Duration, _ condition: (String) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let missing = (ids ?? boardIDs).filter { !condition($0) }
            if missing.isEmpty { return }
            guard ContinuousClock.now < deadline, bridge?.isRunning == true else {
                throw BenchError(
                    description: "boards not \(what): \(missing.prefix(8).joined(separator: ", "))"
                        + (missing.count > 8 ? " and \(missing.count - 8) more" : "")
                        + "\nbridge output:\n\(String((bridge?.output ?? "").suffix(2000)))")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Calls a method of boardsim's control interface.
    @discardableResult
    func controlCall(_ member: String, _ arguments: [String]) async throws -> [DBusValue] {
        try await controlCall(member, values: arguments.map { DBusValue.string($0) })
    }

    /// Calls a method of boardsim's control interface with any D-Bus values.
    @discardableResult
    func controlCall(_ member: String, values: [DBusValue]) async throws -> [DBusValue] {
        guard let control else { throw BenchError(description: "no control connection") }
        do {
            return try await control.call(
                destination: "org.bluez", path: "/org/boardbridge/sim", interface: "org.boardbridge.Simulator1",
                member: member, body: values, timeout: .seconds(10))
        } catch {
            throw BenchError(description: "boardsim \(member)(\(values)) failed: \(error)")
        }
    }

    /// The notifications boardsim has sent so far, summed over every board (its
    /// `notificationsSent` counters, from `Violations`).
    func notificationsSent() async throws -> UInt64 {
        var total: UInt64 = 0
        for board in boardIDs {
            let reply = try await controlCall("Violations", [board])
            let counters = reply.first?.stringDictionaryValue ?? [:]
            total += UInt64(counters["notificationsSent"]?.uint32Value ?? 0)
        }
        return total
    }

    /// The bridge's health report, asked for now (`bridge/<node>/request/health`): its
    /// response's `data`.
    func healthReport(timeout: Duration = .seconds(10)) async throws -> JSONValue {
        guard let subscriber else { throw BenchError(description: "no subscriber") }
        let topics = try Topics(node: Self.node)
        let response = topics.bridgeResponse("health")
        latest[response] = nil
        try subscriber.publish(topic: topics.bridgeRequest("health"), string: #"{"transaction":1}"#, qos: .atLeastOnce)
        let deadline = ContinuousClock.now + timeout
        while latest[response] == nil {
            guard ContinuousClock.now < deadline else { throw BenchError(description: "no health response") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return try JSONValue(parsing: latest[response] ?? "")["data"] ?? .null
    }

    /// Stops everything by PID, in reverse order, and removes the scratch directory.
    func stop() {
        if let bridge { bridge.stop(grace: 5) }
        bridge = nil
        subscriber?.stop()
        subscriber = nil
        control?.close()
        control = nil
        broker?.stop()
        broker = nil
        if let simulator { simulator.stop(grace: 3) }
        simulator = nil
        if let bus {
            let pid = bus.pid
            bus.stop()
            ChildProcessRegistry.shared.unregister(pid)
        }
        bus = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// The bench's own executable (`/proc/self/exe`).
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
