import Adapters
import BoardKit
import Chess
import Config
import Emulation
import Foundation
import JSON
import Kernel
import Logging
import MainLoop
import Synchronization
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

@MainActor
final class RecordingPublisher: MessagePublishing {
    private(set) var messages: [OutgoingMessage] = []
    /// The origin each message was published with (``MessagePublishing/publish(_:origin:)``).
    private(set) var origins: [ContinuousClock.Instant?] = []
    func publish(_ message: OutgoingMessage) { publish(message, origin: nil) }
    func publish(_ message: OutgoingMessage, origin: ContinuousClock.Instant?) {
        messages.append(message)
        origins.append(origin)
    }
    func payloads(on topic: String) -> [JSONValue] {
        messages.filter { $0.topic == topic }.compactMap { try? JSONValue(parsing: $0.payload) }
    }
    func clear() {
        messages.removeAll()
        origins.removeAll()
    }
}

@MainActor
struct SessionHarness {
    let transport: InMemoryBoardTransport
    let publisher = RecordingPublisher()
    let session: BoardSession
    let time = ManualTime()
    var generator = SeededGenerator(seed: 7)

    init(
        id: String = "board-01", family: BoardFamily = .chessnut, name: String = "Chessnut Air",
        timeControl: TimeControl? = nil,
        store: StateWriter? = nil, allowRaw: Bool = false, orientation: OrientationSetting = .auto,
        game: GameConfiguration = GameConfiguration(desyncGrace: 2), personality: (any BoardPersonality)? = nil
    ) throws {
        transport =
            personality.map { InMemoryBoardTransport(family: family, name: name, personality: $0) }
            ?? InMemoryBoardTransport(family: family, name: name)
        let board = ConfiguredBoard(
            id: id, name: "Board 1", match: .namePattern(GlobPattern("Chessnut*")!), family: family,
            orientation: orientation, timeControl: timeControl, allowRawCommands: allowRaw)
        let topics = try Topics(base: "boardbridge", node: "hall-a")
        let clock = SessionClock(now: { [time] in time.now })
        session = BoardSession(
            board: board, transport: transport, game: game,
            builder: MessageBuilder(topics: topics), publisher: publisher, store: store, clock: clock,
            logger: Logger(label: "test", level: .error))
    }

    /// Delivers everything the transport has yielded so far to the session.
    func pump() async {
        for _ in 0..<20 { await Task.yield() }
    }

    /// Starts the session, brings the link up and lets the board answer its handshake.
    func connect() async {
        session.start()
        transport.establishLink()
        await pump()
    }

    mutating func play(_ uci: String) async {
        let move = BoardMove(uci: uci)!
        for action in HumanMoves.actions(
            for: move, on: transport.personality.board, style: .standard, using: &generator)
        {
            perform(action)
        }
        await pump()
    }

    /// The link drops, `moves` are played meanwhile, and the link comes back `seconds` later;
    /// what was published until then is cleared.
    mutating func play(whileTheLinkIsDown moves: [String], for seconds: Double) async {
        transport.dropLink()
        await pump()
        for uci in moves { await play(uci) }
        time.advance(seconds)
        publisher.clear()
        transport.establishLink()
        await pump()
    }

    /// A person acts on the board; a board that streams its frames (Certabo, Sentio) shows
    /// it in the next frame as well (its 2-of-3 vote needs two).
    func perform(_ action: PhysicalAction) {
        transport.perform(action)
        if transport.personality.family == .certabo { transport.advance(by: 0.1) }
    }
}

@Suite(.serialized) @MainActor struct BoardSessionTests {
    @Test func movesArePublishedWithSANAndFEN() async throws {
        var harness = try SessionHarness()
        await harness.connect()
        await harness.play("e2e4")
        await harness.play("e7e5")
        await harness.play("g1f3")
        let moves = harness.publisher.payloads(on: "boardbridge/board-01/move")
        #expect(moves.map { $0["san"]?.stringValue } == ["e4", "e5", "Nf3"])
        #expect(moves.last?["fen"]?.stringValue == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")
        let pgn = harness.publisher.messages.last { $0.topic == "boardbridge/board-01/pgn" }
        #expect(pgn?.retain == true)
        #expect(pgn?.payloadText.contains("1. e4 e5 2. Nf3") == true)
        let state = harness.publisher.payloads(on: "boardbridge/board-01").last
        #expect(state?["ply"]?.intValue == 3)
        #expect(harness.publisher.messages.filter { $0.topic.hasSuffix("/move") }.allSatisfy { !$0.retain })
    }

    /// #33: a move is published with the instant the input that completed it arrived as its
    /// origin (the bridge's own handling time is measured from there); nothing else is.
    @Test func aMoveCarriesTheArrivalOfItsFrame() async throws {
        var harness = try SessionHarness()
        await harness.connect()
        let arrived = ContinuousClock.now - .milliseconds(3)
        // The session's own delivery passes the loop's wake-up; here a known instant.
        harness.transport.deliverEvents(to: { [session = harness.session] in session.handle($0, arrivedAt: arrived) })
        harness.publisher.clear()
        await harness.play("e2e4")
        let published = zip(harness.publisher.messages, harness.publisher.origins)
        let timed = published.filter { $0.1 != nil }
        #expect(timed.map(\.0.topic) == ["boardbridge/board-01/move"])
        #expect(timed.first?.1 == arrived)
        #expect(published.contains { $0.0.topic == "boardbridge/board-01/pgn" })
    }

    /// #29: a frame that waited behind another board's long handler is timed when it reached
    /// the kernel: the move's time and the clock it charges are the player's, not the
    /// bridge's delay.
    @Test func aFrameThatWaitedIsTimedWhenItCame() async throws {
        var harness = try SessionHarness(timeControl: try TimeControl(pgn: "300+0"))
        await harness.connect()
        await harness.play("e2e4")  // Black's clock starts
        let blackStarted = harness.time.now
        harness.time.advance(10)
        // Black moved six seconds in; the frames were handled four seconds later (read now,
        // as the notification socket's reader says of them, through the session's own
        // delivery).
        harness.publisher.clear()
        let actions = HumanMoves.actions(
            for: BoardMove(uci: "e7e5")!, on: harness.transport.personality.board, style: .standard,
            using: &harness.generator)
        MainLoop.handlingInput(readAt: .now, waited: 4_000_000_000) {
            for action in actions { harness.perform(action) }
        }
        await harness.pump()
        let move = try #require(harness.publisher.payloads(on: "boardbridge/board-01/move").first)
        #expect(move["clock"]?["black"]?.doubleValue.map { ($0 - 294).magnitude < 0.5 } == true, "\(move)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamp = try #require(move["timestamp"]?.stringValue.flatMap { formatter.date(from: $0) }, "\(move)")
        #expect((stamp.timeIntervalSince1970 - (blackStarted + 6)).magnitude < 1, "\(move)")
    }

    /// An input that reached the kernel before a command was handled is not timed before it:
    /// the kernel's time never goes back.
    @Test func theKernelsTimeNeverGoesBack() throws {
        let harness = try SessionHarness()
        let now = harness.session.kernelTime()
        #expect(now == harness.time.now)
        #expect(harness.session.kernelTime(receivedAt: ContinuousClock.now - .seconds(5)) == now)
        harness.time.advance(10)
        let later = harness.session.kernelTime(receivedAt: ContinuousClock.now - .seconds(4))
        #expect((later - (now + 6)).magnitude < 0.5)
        // The clock set back an hour: the kernel follows it, for inputs too.
        harness.time.advance(-3_600)
        #expect(harness.session.kernelTime() == harness.time.now)
        #expect(harness.session.kernelTime(receivedAt: ContinuousClock.now) == harness.time.now)
    }

    @Test func knockedPieceGivesOutOfSyncPauseAlertAndResume() async throws {
        var harness = try SessionHarness(timeControl: try TimeControl(pgn: "300+2"))
        await harness.connect()
        await harness.play("e2e4")  // White's first move starts Black's clock
        harness.publisher.clear()
        harness.transport.perform(.knockOver(.a2))
        await harness.pump()
        harness.time.advance(3)
        harness.session.tick()
        let events = harness.publisher.payloads(on: "boardbridge/board-01/event").map { $0["event_type"]?.stringValue }
        #expect(events.contains("out_of_sync"))
        #expect(events.contains("alert"))
        let clocks = harness.publisher.payloads(on: "boardbridge/board-01/clock")
        #expect(clocks.first?["action"]?.stringValue == "pause")
        // The alert lights the mismatched square on the board.
        #expect(harness.transport.writes.count > 0)
        harness.publisher.clear()
        harness.transport.perform(.place(Piece(.white, .pawn), on: .a2))
        await harness.pump()
        let resumed = harness.publisher.payloads(on: "boardbridge/board-01/clock")
        #expect(resumed.first?["action"]?.stringValue == "resume")
        #expect(resumed.first?["color"]?.stringValue == "black")
        #expect(
            harness.publisher.payloads(on: "boardbridge/board-01/event").contains {
                $0["event_type"]?.stringValue == "in_sync"
            })
    }

    @Test func gameSurvivesARestart() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Mutex<[String]>([])
        let store = StateWriter(store: try StateStore(directory: directory.path)) { name, reason in
            failures.withLock { $0.append("\(name): \(reason)") }
        }
        var first = try SessionHarness(store: store)
        first.session.start()
        first.transport.establishLink()
        await first.pump()
        await first.play("d2d4")
        await first.play("d7d5")
        first.session.stop()
        store.flush()
        #expect(failures.withLock { $0 }.isEmpty)

        let second = try SessionHarness(store: store)
        #expect(second.session.core.game.moves.map(\.san) == ["d4", "d5"])
        #expect(second.session.core.game.pgn.contains("1. d4 d5"))
    }

    @Test func aFreshGameIsSavedAtOnceSoItsFirstMoveIsAJournalLine() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try StateStore(directory: directory.path)
        let store = StateWriter(store: files) { name, reason in Issue.record("\(name): \(reason)") }
        var harness = try SessionHarness(store: store)
        let saved = try #require(try files.read("board-01"))
        #expect(try JSONDecoder().decode(SessionSnapshot.self, from: saved).game.moves.isEmpty)

        await harness.connect()
        await harness.play("e2e4")
        store.flush()
        // The snapshot is untouched; the move is one line of the journal.
        #expect(try files.read("board-01") == saved)
        let journal = String(decoding: try #require(try files.readJournal("board-01")), as: UTF8.self)
        #expect(journal.split(separator: "\n").count == 1)
        #expect(journal.contains(#""san":"e4""#))
        #expect(store.restoreSession("board-01")?.game.moves.map(\.san) == ["e4"])
    }

    @Test func commandsChangeTheGameOrAreRefused() async throws {
        let harness = try SessionHarness()
        harness.session.start()
        let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
        #expect(throws: Never.self) { try harness.session.execute(.game(.setPosition(try Position(fen: fen)))).get() }
        #expect(harness.session.core.position.fen == fen)
        let refused = harness.session.execute(.board(.custom(Data([1, 2]))))
        #expect(refused == .failure(CommandFailure("raw commands are not enabled for board board-01")))
        let notConnected = harness.session.execute(.board(.requestState))
        #expect(notConnected == .failure(CommandFailure("board board-01 is not connected")))
        let takeback = harness.session.execute(.game(.takeback(plies: 3)))
        #expect(takeback == .failure(CommandFailure("cannot take back 3 plies: the game has 0")))
        #expect(harness.session.core.position.fen == fen)
    }

    @Test func boardCommandsTheBoardCannotDoAreRefused() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        let before = harness.transport.writes.count
        // A Chessnut Air has no motors.
        let refused = harness.session.execute(.board(.executeMove(uci: "e2e4")))
        #expect(refused == .failure(CommandFailure("board board-01 (Chessnut Air) cannot do that: move")))
        #expect(harness.transport.writes.count == before)
        #expect(throws: Never.self) {
            try harness.session.execute(.board(.indicate(squares: [.e2, .e4], style: .highlight))).get()
        }
        #expect(harness.transport.writes.count == before + 1)
    }

    @Test(arguments: [OrientationSetting.whiteNear, .blackNear])
    func commandSquaresAreGameSquaresOnAnyOrientation(orientation: OrientationSetting) async throws {
        let harness = try SessionHarness(orientation: orientation)
        await harness.connect()
        let before = harness.transport.writes.count
        #expect(throws: Never.self) {
            try harness.session.execute(.board(.indicate(squares: [.e2, .e4], style: .highlight))).get()
        }
        // Black at the near edge: the board's own e2/e4 are the game's d7/d5.
        let physical: [Square] = orientation == .blackNear ? [.d7, .d5] : [.e2, .e4]
        let adapter = try AdapterFactory.makeAdapter(
            for: .chessnut, options: AdapterOptions(advertisedName: "Chessnut Air"))
        let expected = try #require(adapter.encode(.indicate(squares: physical, style: .highlight)))
        #expect(harness.transport.writes.dropFirst(before).map(\.bytes) == [expected])
    }

    /// Issue #30 (7): the LED patterns of Home Assistant's select light what the game says.
    @Test func ledPatternsLightTheLastMoveAndTheKingInCheck() async throws {
        var harness = try SessionHarness(orientation: .whiteNear)
        await harness.connect()
        let adapter = try AdapterFactory.makeAdapter(
            for: .chessnut, options: AdapterOptions(advertisedName: "Chessnut Air"))
        func lit(_ pattern: GameCommand.LEDPattern) throws -> [UInt8]? {
            let before = harness.transport.writes.count
            _ = try harness.session.execute(.game(.ledPattern(pattern))).get()
            return harness.transport.writes.dropFirst(before).last.map { Array($0.bytes) }
        }
        // 1. f3 e5 2. g4: White's king is not in check; 2... Qh4+ gives check.
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] { await harness.play(uci) }
        #expect(harness.session.core.game.moves.count == 4)
        #expect(try lit(.lastMove) == adapter.encode(.indicate(squares: [.d8, .h4], style: .move)).map(Array.init))
        #expect(try lit(.check) == adapter.encode(.indicate(squares: [.e1], style: .check)).map(Array.init))
        #expect(try lit(.off) == adapter.encode(.clearIndications).map(Array.init))
    }

    @Test func connectionChangesArePublishedRetained() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        harness.transport.dropLink(reason: "le-connection-abort-by-local")
        await harness.pump()
        harness.transport.markReconnecting(attempt: 1)
        harness.session.connectionDetail = .init(
            maxAttempts: 5, nextDelay: 2, lastError: "le-connection-abort-by-local")
        harness.session.transportStateChanged()
        let connections = harness.publisher.payloads(on: "boardbridge/board-01/connection")
        #expect(connections.last?["state"]?.stringValue == "reconnecting")
        #expect(connections.last?["attempt"]?.intValue == 1)
        #expect(connections.last?["max_attempts"]?.intValue == 5)
        let availability = harness.publisher.messages.filter { $0.topic == "boardbridge/board-01/availability" }
        #expect(availability.last?.payloadText == #"{"state":"offline"}"#)
        #expect(availability.allSatisfy { $0.retain })
    }

    @Test func readyIsPublishedOnceTheBoardAnsweredItsHandshake() async throws {
        let harness = try SessionHarness()
        harness.session.start()
        harness.session.publishRetained()
        harness.transport.establishLink()
        await harness.pump()
        let states = harness.publisher.payloads(on: "boardbridge/board-01/connection").compactMap {
            $0["state"]?.stringValue
        }
        #expect(states.first == "idle")
        #expect(states.last == "ready")
        #expect(states.firstIndex(of: "connected").map { $0 < states.lastIndex(of: "ready")! } == true)
        #expect(harness.publisher.payloads(on: "boardbridge/board-01").last?["connection"]?["state"] == "ready")
        #expect(harness.session.connectionState == "ready")

        // A drop ends it; the reconnect shows connected, then ready again.
        harness.publisher.clear()
        harness.transport.dropLink(reason: "le-connection-abort-by-local")
        await harness.pump()
        harness.transport.markReconnecting(attempt: 1)
        harness.session.transportStateChanged()
        #expect(harness.session.connectionState == "reconnecting")
        harness.transport.establishLink()
        await harness.pump()
        let again = harness.publisher.payloads(on: "boardbridge/board-01/connection").compactMap {
            $0["state"]?.stringValue
        }
        #expect(again.first == "disconnected")
        #expect(again.contains("reconnecting"))
        #expect(again.last == "ready")
        #expect(!again.dropLast().contains("ready"), "ready only at the end: \(again)")
    }

    /// A Pegasus whose session missed a piece being put back (here: a lift the session saw
    /// without the place) is asked for its occupancy, and is in sync again.
    @Test func anOccupancyBoardStuckOutOfSyncIsAskedForItsState() async throws {
        let (harness, requests) = try await pegasusOutOfSync()
        harness.time.advance(2)
        harness.session.tick()
        #expect(requests() == 0, "nothing asked before 3 s out of sync")
        harness.time.advance(1.5)
        harness.session.tick()
        await harness.pump()
        #expect(requests() == 1)
        #expect(harness.session.core.syncState == .inSync)
        #expect(
            harness.publisher.payloads(on: "boardbridge/board-01/event").contains {
                $0["event_type"]?.stringValue == "in_sync"
            })
    }

    @Test(arguments: [(after: 10.0, attempts: 4), (after: 3.0, attempts: 0)])
    func theStateRequestFollowsTheGameSettings(after: Double, attempts: Int) async throws {
        let (harness, requests) = try await pegasusOutOfSync(
            GameConfiguration(desyncGrace: 2, resyncAfter: after, resyncAttempts: attempts))
        // 5 s out of sync: past the default 3 s, before 10 s.
        harness.time.advance(5)
        harness.session.tick()
        await harness.pump()
        #expect(requests() == 0)
        harness.time.advance(6)
        harness.session.tick()
        await harness.pump()
        #expect(requests() == (attempts > 0 ? 1 : 0))
    }

    /// A ready Pegasus session (grace 2 s) that has just gone out of sync: a lift it saw
    /// without the place, 2.5 s ago. `requests` counts its state requests since then.
    private func pegasusOutOfSync(
        _ game: GameConfiguration = GameConfiguration(desyncGrace: 2)
    ) async throws -> (harness: SessionHarness, requests: () -> Int) {
        let harness = try SessionHarness(
            family: .dgtPegasus, name: "DGT_PEGASUS_1234", orientation: .whiteNear, game: game)
        let request = try #require(try AdapterFactory.makeAdapter(for: .dgtPegasus).encode(.requestState))
        let transport = harness.transport
        func count() -> Int { transport.writes.filter { $0.bytes == request }.count }
        await harness.connect()
        #expect(harness.session.connectionState == "ready")
        #expect(harness.session.core.syncState == .inSync)
        let handshakeRequests = count()
        harness.session.handle(.pieceLifted(.e7))
        harness.time.advance(2.5)
        harness.session.tick()
        #expect(harness.session.core.syncState == .outOfSync(mismatched: [.e7]))
        return (harness, { count() - handshakeRequests })
    }
}
