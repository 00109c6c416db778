import BoardKit
import Bridge
import Chess
import Emulation
import Foundation
import JSON
import TestSupport
import Testing

/// Issue #23: a DGT e-Board on a serial line, end to end: an emulated board behind a real
/// pseudo-terminal reached by a `/dev/serial/by-id/…`-style link, `boardbridge run` with
/// `serial:` in its configuration, a private `mosquitto`, and the test's MQTT client. The
/// bridge's BlueZ side talks to a private `dbus-daemon` with no `org.bluez` on it.
@MainActor
final class DGTSerialHall {
    static let boardID = "dgt-usb"

    let directory: URL
    let bus: PrivateDBusDaemon
    let broker: MosquittoBroker
    let bridge: BridgeProcess
    let recorder: MessageRecorder
    let board: SimulatedSerialBoard
    private var stopped = false

    /// Plugs the board in, starts everything, and waits until the board is ready.
    init() async throws {
        directory = try TestTools.temporaryDirectory("e2e-dgt")
        board = SimulatedSerialBoard(DGTPersonality(), folder: directory)
        try board.plug()
        bus = try PrivateDBusDaemon()
        broker = try MosquittoBroker()
        try broker.start()
        let configFile = directory.appendingPathComponent("config.yaml")
        let lines = [
            "mqtt:", "  url: \(broker.url)", "  reconnect:", "    min_delay: 0.1", "    max_delay: 0.5",
            "base_topic: \(Hall.base)", "node: \(Hall.node)",
            "state_directory: \(directory.appendingPathComponent("state").path)",
            "logging:", "  level: info", "reconnect:", "  max_attempts: 100", "  delays: [0.2]",
            "homeassistant:", "  enabled: false", "game:", "  desync_grace: 1.0",
            "boards:", "  - id: \(Self.boardID)", "    family: dgt", "    serial: \(board.linkPath)",
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: configFile, atomically: true, encoding: .utf8)
        bridge = try BridgeProcess(configFile: configFile, busAddress: bus.address)
        recorder = try MessageRecorder(url: broker.url, base: Hall.base, persistentSession: false)
        try await recorder.connect(base: Hall.base)
        try bridge.start()
        try await waitUntilReady()
    }

    func topic(_ leaf: String) -> String { "\(Hall.base)/\(Self.boardID)/\(leaf)" }

    /// Waits until the board's `connection` (since `mark`) says `ready` after another state.
    func waitUntilReady(since mark: Int = 0) async throws {
        try await waitUntil("the DGT board ready", context: report) {
            let states = self.recorder.json(on: self.topic("connection"), since: mark).compactMap {
                $0["state"]?.stringValue
            }
            return states.last == "ready" && states.contains { $0 != "ready" }
        }
    }

    /// Plays `uci` on the board by hand (the actions a person makes), each move after the
    /// previous one was published.
    func play(_ uci: [String], after game: inout PlayedGame, since mark: Int) async throws {
        var generator = SeededGenerator(seed: UInt64(game.uci.count) &+ 23)
        for text in uci {
            let position = game.game.position
            let move = try #require(position.legalMove(uci: text))
            for action in HumanMoves.actions(
                for: move, on: position.snapshot, style: .random, using: &generator)
            {
                board.perform(action)
            }
            try game.append([text])
            try await waitForMoves(game.uci.count, since: mark)
        }
    }

    @discardableResult
    func waitForMoves(_ count: Int, since mark: Int = 0) async throws -> [JSONValue] {
        try await waitUntil("\(count) moves published", context: report) {
            self.recorder.json(on: self.topic("move"), since: mark).count >= count
        }
        return recorder.json(on: topic("move"), since: mark)
    }

    func waitForPGN(plies: Int) async throws -> String {
        func latest() -> String? { recorder.messages(on: topic("pgn")).last?.text }
        try await waitUntil("a PGN with \(plies) plies", context: report) {
            guard let text = latest() else { return false }
            return (try? PlayedGame.moves(inPGN: text).count) == plies
        }
        return latest() ?? ""
    }

    func report() -> String {
        let topics = recorder.messages.suffix(30).map { "\($0.index) \($0.topic) \($0.text.prefix(160))" }
        let log = bridge.output.split(separator: "\n", omittingEmptySubsequences: false).suffix(60)
        return "--- bridge log (tail) ---\n\(log.joined(separator: "\n"))\n--- last MQTT messages ---\n"
            + topics.joined(separator: "\n")
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = bridge.stop()
        recorder.client.stop()
        board.unplug()
        broker.stop()
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: broker.directory)
    }

    isolated deinit { stop() }
}

@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon", "mosquitto")))
@MainActor
struct DGTSerialTests {
    /// A whole random game played by hand on the board: the same moves, SAN, FEN and PGN.
    @Test(arguments: [UInt64(2301), 2302])
    func randomGameOverTheSerialLine(seed: UInt64) async throws {
        let hall = try await DGTSerialHall()
        defer { hall.stop() }
        let uci = EndToEndTests.randomLegalGame(seed: seed, plies: 40)
        var game = try PlayedGame()
        try await hall.play(uci, after: &game, since: 0)
        game.expectPublished(try await hall.waitForMoves(uci.count), board: DGTSerialHall.boardID)
        game.expectPGN(try await hall.waitForPGN(plies: uci.count), board: DGTSerialHall.boardID)
        #expect(hall.board.personality.violations.total == 0)
    }

    /// The board is unplugged mid-game and a move is made meanwhile; plugged in again, the
    /// bridge reopens the line, the board's dump shows the move, and the game goes on with
    /// no move lost.
    @Test func unplugAndReplugMidGameLosesNoMove() async throws {
        let hall = try await DGTSerialHall()
        defer { hall.stop() }
        let uci = EndToEndTests.randomLegalGame(seed: 2303, plies: 24)
        var game = try PlayedGame()
        try await hall.play(Array(uci.prefix(10)), after: &game, since: 0)
        let mark = hall.recorder.mark
        hall.board.unplug()
        try await waitUntil("the board reported lost", context: hall.report) {
            hall.recorder.json(on: hall.topic("connection"), since: mark).contains {
                $0["state"]?.stringValue == "reconnecting"
            }
        }
        // Move 11, made while the board is unplugged.
        let position = game.game.position
        let move = try #require(position.legalMove(uci: uci[10]))
        var generator = SeededGenerator(seed: 11)
        for action in HumanMoves.actions(for: move, on: position.snapshot, style: .standard, using: &generator) {
            hall.board.perform(action)
        }
        try game.append([uci[10]])
        try hall.board.plug()
        try await hall.waitUntilReady(since: mark)
        try await hall.waitForMoves(11)
        try await hall.play(Array(uci.dropFirst(11)), after: &game, since: 0)
        game.expectPublished(try await hall.waitForMoves(uci.count), board: DGTSerialHall.boardID)
        game.expectPGN(try await hall.waitForPGN(plies: uci.count), board: DGTSerialHall.boardID)
    }
}
