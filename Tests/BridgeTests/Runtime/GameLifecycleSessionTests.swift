import Adapters
import BoardKit
import Chess
import Config
import Emulation
import Foundation
import JSON
import Kernel
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Issue #15 at the board session: what `new_game` and `position` publish, that `in_sync`
/// follows only an `out_of_sync`, and that an untimed game publishes no clock action.
@Suite(.serialized) @MainActor struct GameLifecycleSessionTests {
    static let event = "boardbridge/board-01/event"
    static let state = "boardbridge/board-01"
    static let pgn = "boardbridge/board-01/pgn"
    static let setUp = "r1bqk2r/ppp2ppp/2n2n2/3pP3/1b6/2N2N2/PPPP1PPP/R1BQKB1R w KQkq d6 0 20"

    private func ready(_ family: BoardFamily = .chessnut, store: StateWriter? = nil) async throws -> SessionHarness {
        let harness =
            switch family {
            case .chessnut: try SessionHarness(store: store)
            case .certabo: try SessionHarness(family: family, name: "Certabo", store: store)
            case .sentio: try SessionHarness(family: family, name: "Sentio", store: store, orientation: .whiteNear)
            default:
                try SessionHarness(family: family, name: "DGT_PEGASUS_1234", store: store, orientation: .whiteNear)
            }
        await harness.connect()
        // A Certabo board learns its pieces from the start position first.
        if family == .certabo {
            for _ in 0..<CertaboCalibrator.minimumFrames { harness.transport.advance(by: 0.1) }
            await harness.pump()
        }
        #expect(harness.session.connectionState == "ready")
        return harness
    }

    /// Sets the board's pieces up as `target` by hand (wrong pieces lifted, missing ones placed).
    private func setUp(_ harness: SessionHarness, as target: BoardSnapshot) async {
        let current = harness.transport.personality.board
        // Each action is handled before the next, as a person's hands are slower than the
        // session (one pump for the whole set-up left its last events unhandled at times).
        for square in Square.allCases where current[square] != target[square] && current[square] != nil {
            harness.perform(.lift(square))
            await harness.pump()
        }
        for square in Square.allCases where current[square] != target[square] {
            if let piece = target[square] {
                harness.perform(.place(piece, on: square))
                await harness.pump()
            }
        }
    }

    private func eventTypes(_ harness: SessionHarness) -> [String] {
        harness.publisher.payloads(on: Self.event).compactMap { $0["event_type"]?.stringValue }
    }

    /// Item 5: moves are `move` events, not `in_sync` ones; item 6: an untimed game
    /// publishes no clock action (nor does the sync gate for it).
    @Test(arguments: [BoardFamily.chessnut, .dgtPegasus, .certabo, .sentio])
    func movesPublishNoInSyncAndAnUntimedGameNoClock(family: BoardFamily) async throws {
        var harness = try await ready(family)
        for uci in ["e2e4", "e7e5", "g1f3"] { await harness.play(uci) }
        #expect(harness.publisher.payloads(on: "boardbridge/board-01/move").count == 3)
        #expect(!eventTypes(harness).contains("in_sync"), "events: \(eventTypes(harness))")
        // Knocked off and put back: out of sync, then in sync; still no clock action.
        harness.perform(.lift(.a2))
        await harness.pump()
        harness.time.advance(3)
        harness.session.tick()
        harness.perform(.place(Piece(.white, .pawn), on: .a2))
        await harness.pump()
        let types = eventTypes(harness)
        #expect(types.filter { $0 == "out_of_sync" || $0 == "in_sync" } == ["out_of_sync", "in_sync"], "\(types)")
        #expect(harness.publisher.payloads(on: "boardbridge/board-01/clock").isEmpty)
        #expect(harness.publisher.payloads(on: Self.state).last?["clock"]?["white"] == .null)
    }

    /// Item 1: `new_game` after a finished game publishes `game_start` (with the tags), a
    /// fresh state and a fresh PGN at once; item 7: until the pieces stand on the start
    /// position the board is out of sync, saying why, and nothing is read as a move.
    @Test(arguments: [BoardFamily.chessnut, .dgtPegasus, .certabo, .sentio])
    func newGamePublishesAFreshGameAndWaitsForTheStartPosition(family: BoardFamily) async throws {
        var harness = try await ready(family)
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] { await harness.play(uci) }
        #expect(harness.publisher.payloads(on: Self.state).last?["result"] == "0-1")
        harness.publisher.clear()

        let tags = GameCommand.Tags(white: "Doe, J", black: "Roe, R")
        let reply = try harness.session.execute(.game(.newGame(.init(tags: tags)))).get()
        #expect(reply["fen"]?.stringValue == Position.starting.fen)
        let published = harness.publisher.messages
        let start = try #require(published.firstIndex { $0.topic == Self.event })
        let startEvent = try JSONValue(parsing: published[start].payload)
        #expect(startEvent["event_type"] == "game_start")
        #expect(startEvent["fen"]?.stringValue == Position.starting.fen)
        #expect(startEvent["game"]?["white"] == "Doe, J")
        #expect(startEvent["game"]?["black"] == "Roe, R")
        let outOfSync = harness.publisher.payloads(on: Self.event).first { $0["event_type"] == "out_of_sync" }
        #expect(outOfSync?["reason"] == "awaiting_start_position")
        let state = try #require(harness.publisher.payloads(on: Self.state).last)
        #expect(state["ply"] == 0)
        #expect(state["move_number"] == 1)
        #expect(state["last_move"]?["uci"] == .null)
        #expect(state["result"] == "*")
        #expect(state["game"]?["white"] == "Doe, J")
        #expect(state["sync"]?["state"] == "out_of_sync")
        #expect(state["sync"]?["reason"] == "awaiting_start_position")
        let pgn = try #require(published.last { $0.topic == Self.pgn })
        #expect(pgn.retain)
        #expect(!pgn.payloadText.contains("Qh4"), "\(pgn.payloadText)")
        #expect(pgn.payloadText.contains(#"[White "Doe, J"]"#))
        #expect(pgn.payloadText.contains(#"[Result "*"]"#))
        #expect(published.firstIndex { $0.topic == Self.pgn }! > start)
        #expect(published.firstIndex { $0.topic == Self.state }! > start)

        // The pieces are set up: in sync, no move, no takeback; the game starts from there.
        harness.publisher.clear()
        await setUp(harness, as: .startingPosition)
        harness.time.advance(5)
        harness.session.tick()
        #expect(eventTypes(harness).filter { ["move", "takeback", "in_sync"].contains($0) } == ["in_sync"])
        #expect(harness.publisher.payloads(on: Self.state).last?["sync"]?["reason"] == .null)
        await harness.play("e2e4")
        let moves = harness.publisher.payloads(on: "boardbridge/board-01/move")
        #expect(moves.map { $0["uci"] } == ["e2e4"])
        #expect(moves.first?["ply"] == 1)
    }

    /// Item 2 and 3: a `position` command while the board shows the start is kept (the
    /// reply and the state carry it), awaited, then tracked with the FEN's move numbers.
    @Test(arguments: [BoardFamily.chessnut, .dgtPegasus, .certabo, .sentio])
    func positionIsKeptAwaitedAndNumberedAsItsFEN(family: BoardFamily) async throws {
        var harness = try await ready(family)
        harness.publisher.clear()
        let reply = try harness.session.execute(.game(.setPosition(try Position(fen: Self.setUp)))).get()
        #expect(reply["fen"]?.stringValue == Self.setUp)
        let startEvent = harness.publisher.payloads(on: Self.event).first
        #expect(startEvent?["event_type"] == "game_start")
        #expect(startEvent?["fen"]?.stringValue == Self.setUp)
        var state = try #require(harness.publisher.payloads(on: Self.state).last)
        #expect(state["fen"]?.stringValue == Self.setUp)
        #expect(state["move_number"] == 20)
        #expect(state["ply"] == 0)
        #expect(state["sync"]?["reason"] == "awaiting_position")
        let pgn = harness.publisher.messages.last { $0.topic == Self.pgn }?.payloadText ?? ""
        #expect(pgn.contains(#"[FEN "\#(Self.setUp)"]"#), "\(pgn)")

        // The board still shows the start: that is not a new game from the board.
        harness.time.advance(5)
        harness.session.tick()
        #expect(harness.session.core.position.fen == Self.setUp)

        await setUp(harness, as: BoardSnapshot(fenPlacement: Self.setUp.split(separator: " ")[0])!)
        #expect(harness.session.core.syncState == .inSync)
        for uci in ["e5d6", "e8g8", "d2d3"] { await harness.play(uci) }
        let moves = harness.publisher.payloads(on: "boardbridge/board-01/move")
        #expect(moves.map { $0["san"] } == ["exd6", "O-O", "d3"])
        #expect(moves.map { $0["ply"] } == [1, 2, 3])
        #expect(moves.map { $0["move_number"] } == [20, 20, 21])
        state = try #require(harness.publisher.payloads(on: Self.state).last)
        #expect(state["move_number"] == 21)
        #expect(state["ply"] == 3)
        let after = harness.publisher.messages.last { $0.topic == Self.pgn }?.payloadText ?? ""
        #expect(after.contains("20. exd6 O-O 21. d3"), "\(after)")
    }

    /// The end of the wait is saved although no move marks it: restored, the session does
    /// not wait again for a set-up the board already showed.
    @Test func theEndOfTheWaitIsSaved() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateWriter(store: try StateStore(directory: directory.path)) { name, reason in
            Issue.record("\(name): \(reason)")
        }
        var harness = try await ready(store: store)
        await harness.play("g1f3")
        _ = try harness.session.execute(.game(.newGame(.init()))).get()
        store.flush()
        #expect(store.restoreSession("board-01")?.setUpWait == .startPosition)
        await setUp(harness, as: .startingPosition)
        #expect(harness.session.core.tracker.setUpWait == nil)
        store.flush()
        #expect(store.restoreSession("board-01")?.setUpWait == nil)
    }
}
