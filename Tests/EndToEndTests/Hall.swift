import BoardKit
import Contract
import Foundation
import JSON
import TestSupport
import Testing

/// One simulated board as both `boardsim` and the bridge's configuration know it.
struct HallBoard {
    /// The board id (topics, `boardsim ctl`).
    var id: String
    /// `chessnut`, `chessup`, `squareoff`, `pegasus` or `millennium`.
    var family: String
    /// Its Bluetooth address.
    var address: String
    /// The adapter that sees it.
    var adapter = "hci0"
    /// `auto`, `white` or `black` (occupancy boards need `white` or `black`).
    var orientation = "auto"
    /// PGN time control, if any.
    var timeControl: String?
    /// Further `key=value` pairs of its `boardsim --board` specification (`key=…`).
    var simulatorOptions: String?
    /// Whether the bridge's configuration names its adapter (else the bridge picks one).
    var configuresAdapter = true
    /// Whether the hall waits for it to become ready (a board that refuses its unlock never does).
    var becomesReady = true
    /// A DGT e-Board on a serial line: boardsim's pseudo-terminal behind this stable name
    /// (`transport=pty,link=…`), configured as `serial:` instead of `address:`.
    var serialLink: String?
}

/// Settings of the bridge under test that the scenarios vary.
struct HallSettings {
    /// `game.desync_grace`, seconds.
    var desyncGrace = 1.0
    /// `reconnect.delays`, seconds.
    var reconnectDelays = [0.2, 0.4]
    /// `reconnect.max_attempts`.
    var maxReconnectAttempts = 20
    /// Whether the broker keeps sessions and retained messages across a restart (and the
    /// test's client keeps a persistent session).
    var brokerPersistence = false
    /// `homeassistant.enabled` (the watching client also records `homeassistant/#`).
    var homeAssistant = false
    /// `mqtt.protocol` (`5` or `3.1.1`); `nil` leaves the default.
    var mqttProtocol: String?
    /// Extra `mosquitto.conf` lines for the hall's broker.
    var brokerLines: [String] = []
    /// `game.battery_interval`, seconds (the bridge's default when `nil`).
    var batteryInterval: Double?
    /// `health.interval` and `health.stall_after`, seconds (the bridge's defaults when `nil`).
    var health: (interval: Double, stallAfter: Double)?
    /// `tmpfs` mount options (`size=256k`): the bridge runs in a mount namespace of its own
    /// (`unshare -m`) with a tmpfs of that size on its state directory, which the test then
    /// fills or remounts read-only (``Hall/inBridgeNamespace(_:)``).
    var stateDirectoryTmpfs: String?
}

/// A hall of boards, end to end, with real processes only: a private `dbus-daemon`,
/// `boardsim` serving `org.bluez` on it, a private `mosquitto`, `boardbridge run` between
/// them, and the test's own MQTT client watching `<base>/#`. Every process is started
/// and stopped by PID; ``stop()`` (also from `deinit`) ends them all, even after a failure.
@MainActor
final class Hall {
    static let base = "e2e"
    static let node = "e2e-node"

    let boards: [HallBoard]
    let directory: URL
    let bus: PrivateDBusDaemon
    let simulator: BoardSimulator
    let broker: MosquittoBroker
    let bridge: BridgeProcess
    let recorder: MessageRecorder
    private var stopped = false

    /// Starts everything and waits until every board is connected, online and ready.
    init(boards: [HallBoard], settings: HallSettings = HallSettings()) async throws {
        self.boards = boards
        directory = try TestTools.temporaryDirectory("e2e-hall")
        bus = try await PrivateDBusDaemon()
        let adapters = Array(Set(boards.map(\.adapter))).sorted()
        var arguments: [String] = []
        for adapter in adapters { arguments += ["--adapter", adapter] }
        for board in boards {
            var options = board.simulatorOptions.map { "," + $0 } ?? ""
            if let link = board.serialLink { options += ",transport=pty,link=\(link)" }
            arguments += [
                "--board",
                "family=\(board.family),address=\(board.address),id=\(board.id),adapter=\(board.adapter)\(options)",
            ]
        }
        simulator = try await BoardSimulator(busAddress: bus.address, arguments: arguments)
        broker = try MosquittoBroker(
            options: .init(persistence: settings.brokerPersistence, extraLines: settings.brokerLines))
        try await broker.start()
        let configFile = directory.appendingPathComponent("config.yaml")
        try Self.configuration(
            boards: boards, adapters: adapters, settings: settings, brokerURL: broker.url,
            stateDirectory: directory.appendingPathComponent("state").path
        ).write(to: configFile, atomically: true, encoding: .utf8)
        bridge = try BridgeProcess(configFile: configFile, busAddress: bus.address)
        if let options = settings.stateDirectoryTmpfs {
            let state = directory.appendingPathComponent("state").path
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            bridge.launcher = [
                "/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
                #"mount -t tmpfs -o "$0" tmpfs "$1" && shift && exec "$@""#, options, state,
            ]
        }
        recorder = try MessageRecorder(
            url: broker.url, base: Self.base, persistentSession: settings.brokerPersistence)
        try await recorder.connect(base: Self.base)
        try bridge.start()
        try await waitUntil("the bridge says online", context: report) {
            self.recorder.last(on: self.bridgeStateTopic) == #"{"state":"online"}"#
        }
        for board in boards where board.becomesReady { try await waitUntilReady(board.id) }
        for board in boards where board.family == "cpp" { try await waitUntilBegun(board.id) }
    }

    // MARK: Topics

    var bridgeStateTopic: String { "\(Self.base)/bridge/\(Self.node)/state" }

    func topic(_ board: String, _ leaf: String? = nil) -> String {
        leaf.map { "\(Self.base)/\(board)/\($0)" } ?? "\(Self.base)/\(board)"
    }

    // MARK: Waiting

    /// The states `board` published on its `connection` topic since `mark`.
    func connectionStates(_ board: String, since mark: Int = 0) -> [String] {
        recorder.json(on: topic(board, "connection"), since: mark).compactMap { $0["state"]?.stringValue }
    }

    /// SIGKILLs the bridge and waits until the broker published its last will (`offline` on
    /// the bridge state topic); returns the bridge's exit status.
    func killBridgeAndAwaitLastWill() async throws -> Int32 {
        let mark = recorder.mark
        let status = await bridge.kill()
        try await waitUntil("the last will", context: report) {
            self.recorder.messages(on: self.bridgeStateTopic, since: mark).contains {
                $0.text == #"{"state":"offline"}"#
            }
        }
        return status
    }

    /// Waits until `board`'s `connection` (since `mark`) went through some other state to
    /// `ready` (the board answered its handshake: a Pegasus unlocks in paced steps, and moves
    /// made before are missed on occupancy boards) and its last `availability` says `online`.
    func waitUntilReady(_ board: String, since mark: Int = 0) async throws {
        try await waitUntil("board \(board) ready and online", context: report) {
            let states = self.connectionStates(board, since: mark)
            let availability = self.recorder.json(on: self.topic(board, "availability"), since: mark).last
            return states.last == "ready" && states.contains { $0 != "ready" }
                && availability?["state"]?.stringValue == "online"
        }
    }

    /// The bytes the bridge wrote to `board`, oldest first (boardsim's write log).
    func writes(_ board: String) async throws -> [[UInt8]] {
        let result = try await simulator.ctl(["writes", board])
        return result.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONValue(parsing: String(line)))?["hex"]?.stringValue.flatMap { HexBytes.parse($0) }
        }
    }

    /// Waits until a Chess Peripheral Protocol board was given the game's position on its
    /// current link (boardsim's write log: a `begin`, or the 2024 dialect's `fen`, after the
    /// last `feature` of the handshake), so that what is played next is played on a begun
    /// round.
    func waitUntilBegun(_ board: String, with word: String = "begin") async throws {
        func begun() async throws -> Bool {
            let words = try await writes(board).compactMap {
                String(decoding: $0, as: UTF8.self).split(separator: " ").first.map(String.init)
            }
            guard let feature = words.lastIndex(of: "feature") else { return false }
            return words[feature...].contains(word)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !begun() {
            guard ContinuousClock.now < deadline else {
                throw CtlFailure(command: "writes \(board)", result: "no begin after the handshake", report: report())
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until a Chess Peripheral Protocol board was written `word fen` (boardsim's write
    /// log): the bridge gave it that position, so what is played next is played on it. (A
    /// state saying the bridge took a takeback comes before the board has the position: a
    /// hand that moves in between moves on the old one.)
    func waitUntilGiven(_ board: String, fen: String, with word: String = "begin") async throws {
        let expected = "\(word) \(fen)"
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !writes(board).contains(where: { String(decoding: $0, as: UTF8.self) == expected }) {
            guard ContinuousClock.now < deadline else {
                throw CtlFailure(command: "writes \(board)", result: "no '\(expected)'", report: report())
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The `event_type`s published for `board` since `mark`.
    func eventTypes(_ board: String, since mark: Int) -> [String] {
        recorder.json(on: topic(board, "event"), since: mark).compactMap { $0["event_type"]?.stringValue }
    }

    /// Leaves the boards alone while three health reports go by (longer than a short stall
    /// watch allows) and checks that none of `boards` was taken for a silent board.
    func expectNoStallWhileLeftAlone(_ boards: [String]) async throws {
        let idle = recorder.mark
        let health = "\(Self.base)/bridge/\(Self.node)/health"
        try await waitUntil("three health reports", context: report) {
            self.recorder.messages(on: health, since: idle).count >= 3
        }
        for board in boards {
            #expect(!eventTypes(board, since: 0).contains("stalled"), "\(board) taken for a silent board")
        }
    }

    /// Plays ``Games/opening`` on `board` and checks its four moves were published.
    func playOpening(_ board: String) async throws -> PlayedGame {
        let game = try PlayedGame(Games.opening)
        try await play(board, Games.opening)
        game.expectPublished(try await waitForMoves(board, count: 4), board: board)
        return game
    }

    /// Waits until `count` moves of `board` arrived on its `move` topic (since `mark`) and
    /// returns them.
    @discardableResult
    func waitForMoves(_ board: String, count: Int, since mark: Int = 0) async throws -> [JSONValue] {
        let topic = topic(board, "move")
        try await waitUntil("\(count) moves on \(topic)", context: report) {
            self.recorder.json(on: topic, since: mark).count >= count
        }
        return recorder.json(on: topic, since: mark)
    }

    /// Waits until the last PGN of `board` received since `mark` holds `plies` moves, and
    /// returns its text.
    func waitForPGN(_ board: String, plies: Int, since mark: Int = 0) async throws -> String {
        let topic = topic(board, "pgn")
        func latest() -> String? { recorder.messages(on: topic, since: mark).last?.text }
        try await waitUntil("a PGN with \(plies) plies on \(topic)", context: report) {
            guard let text = latest() else { return false }
            return (try? PlayedGame.moves(inPGN: text).count) == plies
        }
        return latest() ?? ""
    }

    /// What the broker holds retained under the base topic, as a client connecting now
    /// sees it: topic → payload text.
    func retainedMessages() async throws -> [String: String] {
        let late = try MessageRecorder(url: broker.url, base: Self.base, persistentSession: false)
        defer { late.client.stop() }
        // The broker sends retained messages right after the subscription, so they are in
        // before the probe comes back.
        try await late.connect(base: Self.base)
        var retained: [String: String] = [:]
        for message in late.messages where message.retained { retained[message.topic] = message.text }
        return retained
    }

    // MARK: Boards

    /// `boardsim ctl ARGUMENTS…`, failing unless it succeeds.
    func ctl(_ arguments: String...) async throws {
        let result = try await simulator.ctl(arguments)
        guard result.status == 0 else {
            throw CtlFailure(command: arguments.joined(separator: " "), result: result.description, report: report())
        }
    }

    /// Plays `uci` on `board` by hand, `pace` seconds per move.
    func play(_ board: String, _ uci: [String], pace: Double = 0.4) async throws {
        let result = try await simulator.ctl(["play", board] + uci + ["--pace", String(pace)])
        guard result.status == 0 else {
            throw CtlFailure(
                command: "play \(board) \(uci.joined(separator: " "))", result: result.description, report: report())
        }
    }

    /// Plays several boards' moves at the same time (`boardsim ctl play` for each at once).
    func playTogether(_ games: [(board: String, uci: [String])], pace: Double = 0.4) async throws {
        let simulator = simulator
        try await withThrowingTaskGroup(of: (String, BoardSimulatorResult).self) { group in
            for (board, uci) in games {
                group.addTask {
                    (board, try await simulator.ctl(["play", board] + uci + ["--pace", String(pace)]))
                }
            }
            for try await (board, result) in group where result.status != 0 {
                throw CtlFailure(command: "play \(board)", result: result.description, report: report())
            }
        }
    }

    /// Runs `sh -c script` in the bridge's mount namespace (`nsenter -m`; for
    /// ``HallSettings/stateDirectoryTmpfs``), failing unless it succeeds.
    func inBridgeNamespace(_ script: String) async throws {
        let process = ManagedProcess(
            executable: "/usr/bin/nsenter", arguments: ["-t", String(bridge.pid), "-m", "sh", "-c", script])
        try process.start()
        var status = await process.exitStatus(within: .seconds(20))
        if status == nil { status = await process.terminate(grace: .seconds(1)) }
        guard status == 0 else {
            throw CtlFailure(command: "nsenter: \(script)", result: process.output, report: report())
        }
    }

    // MARK: Ending

    /// Stops every process by PID (the bridge gracefully) and removes the files. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        bridge.stop()
        recorder.client.stop()
        simulator.stop()
        broker.stop()
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: broker.directory)
    }

    isolated deinit {
        stop()
    }

    /// The end of each process's log, for failure reports.
    func report() -> String {
        func tail(_ text: String, _ lines: Int = 60) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        }
        let topics = recorder.messages.suffix(40).map { "\($0.index) \($0.topic) \($0.text.prefix(160))" }
        return """
            --- bridge log (tail) ---
            \(tail(bridge.output))
            --- boardsim log (tail) ---
            \(tail(simulator.output, 30))
            --- last MQTT messages ---
            \(topics.joined(separator: "\n"))
            """
    }

    // MARK: Configuration

    /// The bridge's configuration; its log level is `info`, or `BOARDBRIDGE_E2E_LOG_LEVEL`
    /// when set (`debug` to read a failure).
    static func configuration(
        boards: [HallBoard], adapters: [String], settings: HallSettings, brokerURL: String, stateDirectory: String
    ) -> String {
        var lines = [
            "mqtt:",
            "  url: \(brokerURL)",
            settings.mqttProtocol.map { "  protocol: \"\($0)\"" },
            "  reconnect:",
            "    min_delay: 0.1",
            "    max_delay: 0.5",
            "base_topic: \(base)",
            "node: \(node)",
            "state_directory: \(stateDirectory)",
            "logging:",
            "  level: \(ProcessInfo.processInfo.environment["BOARDBRIDGE_E2E_LOG_LEVEL"] ?? "info")",
            "bluetooth:",
            "  adapters: [\(adapters.joined(separator: ", "))]",
            "  connect_timeout: 10",
            "reconnect:",
            "  max_attempts: \(settings.maxReconnectAttempts)",
            "  delays: [\(settings.reconnectDelays.map { String($0) }.joined(separator: ", "))]",
            "homeassistant:",
            "  enabled: \(settings.homeAssistant)",
            "game:",
            "  desync_grace: \(settings.desyncGrace)",
        ].compactMap { $0 }
        if let interval = settings.batteryInterval { lines.append("  battery_interval: \(interval)") }
        if let health = settings.health {
            lines += ["health:", "  interval: \(health.interval)", "  stall_after: \(health.stallAfter)"]
        }
        lines += [
            "boards:"
        ]
        for board in boards {
            lines += [
                "  - id: \(board.id)",
                board.serialLink.map { "    serial: \($0)" } ?? "    address: \"\(board.address)\"",
                "    family: \(board.family)",
                "    orientation: \(board.orientation)",
            ]
            if board.configuresAdapter, board.serialLink == nil { lines.append("    adapter: \(board.adapter)") }
            if let control = board.timeControl { lines.append("    time_control: \"\(control)\"") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A `boardsim ctl` command failed.
struct CtlFailure: Error, CustomStringConvertible {
    var command: String
    var result: String
    var report: String
    var description: String { "boardsim ctl \(command) failed: \(result)\n\(report)" }
}
