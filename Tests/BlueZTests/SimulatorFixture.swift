import BlueZ
import BoardKit
import DBus
import Foundation
import Logging
import TestSupport

/// Collects the BlueZ module's log lines (thread-safe; the logger is `@Sendable`).
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [(LogLevel, String)] = []

    var logger: Logger {
        Logger(
            label: "bluez", level: .debug,
            sink: ClosureSink { [self] entry in
                lock.lock()
                storage.append((entry.level, entry.message))
                lock.unlock()
            })
    }

    var lines: [(LogLevel, String)] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    func contains(_ text: String, level: LogLevel? = nil) -> Bool {
        lines.contains { (level == nil || $0.0 == level) && $0.1.contains(text) }
    }

    var text: String {
        lines.map { "\($0.0) \($0.1)" }.joined(separator: "\n")
    }
}

/// A write the simulator recorded.
struct SimulatedWrite: Equatable {
    var time: Double
    var characteristic: String
    var type: String
    var bytes: [UInt8]
}

/// ``TestSupport/eventually(timeout:_:)`` with the longer wait these suites need.
@MainActor
func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
    await TestSupport.eventually(timeout: .seconds(15), condition)
}

/// Records a transport's events.
@MainActor
final class EventRecorder {
    private(set) var events: [BoardEvent] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<BoardEvent>) {
        task = Task { @MainActor [weak self] in
            for await event in stream { self?.events.append(event) }
        }
    }

    func count(where predicate: (BoardEvent) -> Bool) -> Int {
        events.filter(predicate).count
    }

    var moves: [BoardMove] {
        events.compactMap { if case .moveReported(let move) = $0 { move } else { nil } }
    }

    func stop() {
        task?.cancel()
    }
}

/// A private bus, `boardsim` serving `org.bluez` on it, a control connection, and a
/// ``BlueZManager``. Always `stop()` it (in a `defer`).
@MainActor
final class SimulatorFixture {
    let daemon: PrivateDBusDaemon
    let control: DBusConnection
    let manager: BlueZManager
    let log = LogCollector()
    private(set) var boardsim: ManagedProcess?
    private let arguments: [String]
    private let configurationURL: URL

    /// Fast, BlueZ-like timings.
    static let behavior =
        #"{"behavior": {"connectDelay": 0.03, "serviceDiscoveryDelay": 0.03, "disconnectDelay": 0.05, "writeResponseDelay": 0.005, "advertisingInterval": 0.1, "connectTimeout": 1}}"#

    /// Fast transport settings for tests.
    static let settings = BlueZTransportSettings(
        connectTimeout: 8, servicesTimeout: 8, transientRetryDelays: [0.1, 0.2, 0.3], rediscoveryTimeout: 6,
        initialRetryDelay: 0.3, writeTimeout: 5)

    init(
        boards: [String], adapters: [String] = [], behavior: String = SimulatorFixture.behavior,
        settings: BlueZManagerSettings = BlueZManagerSettings(busRetryDelays: [0.1, 0.2, 0.5])
    ) async throws {
        daemon = try await PrivateDBusDaemon()
        do {
            let directory = try TestTools.temporaryDirectory("bluez-sim")
            configurationURL = directory.appendingPathComponent("sim.json")
            try behavior.write(to: configurationURL, atomically: true, encoding: .utf8)
            var arguments = ["run", "--bus", daemon.address, "--config", configurationURL.path, "--quiet"]
            for adapter in adapters { arguments += ["--adapter", adapter] }
            for board in boards { arguments += ["--board", board] }
            self.arguments = arguments
            control = try await DBusConnection(address: daemon.address)
            manager = BlueZManager(
                busAddress: daemon.address, settings: settings, logger: log.logger)
            try await startBoardsim()
        } catch {
            boardsim?.stop(grace: 1)
            daemon.stop()
            throw error
        }
    }

    /// Starts `boardsim` and waits for its ready line.
    func startBoardsim() async throws {
        let process = ManagedProcess(executable: try TestTools.product("boardsim"), arguments: arguments)
        try process.start()
        boardsim = process
        let ready = await eventually(timeout: .seconds(20)) {
            process.output.contains("ready on") || !process.isRunning
        }
        guard ready, process.isRunning else {
            throw SimulatorError(message: "boardsim did not start: \(process.output)")
        }
    }

    /// Kills `boardsim` (org.bluez vanishes from the bus), suspending until it is gone.
    func killBoardsim() async {
        boardsim?.send(signal: SIGKILL)
        _ = await boardsim?.exitStatus(within: .seconds(10))
    }

    func stop() {
        manager.stop()
        control.close()
        boardsim?.stop(grace: 2)
        daemon.stop()
        try? FileManager.default.removeItem(at: configurationURL.deletingLastPathComponent())
    }

    /// A transport on this fixture's manager with fast settings.
    func transport(
        _ family: BoardFamily, _ match: BoardMatch = .any, adapter: String? = nil,
        policy: BoardReconnectPolicy = BoardReconnectPolicy(maxAttempts: 3, delays: [0.2, 0.3]),
        settings: BlueZTransportSettings = SimulatorFixture.settings, label: String? = nil
    ) throws -> BlueZBoardTransport {
        try BlueZBoardTransport(
            manager: manager, family: family, match: match, adapter: adapter, policy: policy,
            settings: settings, label: label)
    }

    // MARK: Control interface

    @discardableResult
    func call(_ member: String, _ body: [DBusValue] = [], timeout: Duration = .seconds(30)) async throws -> [DBusValue]
    {
        try await control.call(
            destination: "org.bluez", path: "/org/boardbridge/sim", interface: "org.boardbridge.Simulator1",
            member: member, body: body, timeout: timeout)
    }

    func writes(_ board: String) async throws -> [SimulatedWrite] {
        let reply = try await call("Writes", [.string(board)])
        return (reply.first?.arrayValue ?? []).compactMap { element in
            guard let members = element.structValue, members.count == 4, let time = members[0].doubleValue,
                let characteristic = members[1].stringValue, let type = members[2].stringValue,
                let bytes = members[3].bytesValue
            else { return nil }
            return SimulatedWrite(time: time, characteristic: characteristic, type: type, bytes: bytes)
        }
    }

    func clearWrites(_ board: String) async throws {
        try await call("ClearWrites", [.string(board)])
    }

    func violations(_ board: String) async throws -> [String: Int] {
        let reply = try await call("Violations", [.string(board)])
        return (reply.first?.stringDictionaryValue ?? [:]).compactMapValues { $0.uint32Value.map(Int.init) }
    }

    func drop(_ board: String, reason: String = "remote") async throws {
        try await call("DropLink", [.string(board), .string(reason)])
    }

    func failConnects(_ board: String, count: Int, error: String) async throws {
        try await call("FailConnects", [.string(board), .uint32(UInt32(count)), .string(error)])
    }

    func play(_ board: String, _ moves: [String], pace: Double = 0) async throws {
        try await call("PlayMoves", [.string(board), .strings(moves), .double(pace)], timeout: .seconds(120))
    }

    func setPresent(_ board: String, _ present: Bool) async throws {
        try await call("SetPresent", [.string(board), .bool(present)])
    }

    func setPowered(_ adapter: String, _ powered: Bool) async throws {
        try await call("SetAdapterPowered", [.string(adapter), .bool(powered)])
    }

    /// The simulator's record of a board (`ListBoards`), property name → value.
    func board(_ id: String) async throws -> [String: DBusValue] {
        let boards = try await call("ListBoards").first?.arrayValue ?? []
        return boards.compactMap(\.stringDictionaryValue).first { $0["Id"]?.stringValue == id } ?? [:]
    }

    /// The simulator's record of an adapter (`ListAdapters`).
    func adapter(_ name: String) async throws -> [String: DBusValue] {
        let adapters = try await call("ListAdapters").first?.arrayValue ?? []
        return adapters.compactMap(\.stringDictionaryValue).first { $0["Name"]?.stringValue == name } ?? [:]
    }

    func removeBoard(_ board: String) async throws {
        try await call("RemoveBoard", [.string(board)])
    }

    func position(_ board: String) async throws -> String {
        try await call("Position", [.string(board)]).first?.stringValue ?? ""
    }
}

extension BlueZManager {
    /// A call to BlueZ on this manager's own connection (by default `Peer.Ping`, which
    /// libdbus answers in its dispatch order), sent from a main-actor task enqueued now: it
    /// leaves after every message the manager has sent, and after every one that main-actor
    /// work enqueued before it sends before it first suspends. A connection's messages reach
    /// the peer in order and the peer handles them in order, so once the reply is in, BlueZ
    /// has handled all of those messages.
    @discardableResult
    func callAfterQueuedWork(
        path: String = "/", interface: String = "org.freedesktop.DBus.Peer", member: String = "Ping",
        body: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await Task { @MainActor in
            try await self.call(path: path, interface: interface, member: member, body: body, timeout: 30)
        }.value
    }
}

struct SimulatorError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
