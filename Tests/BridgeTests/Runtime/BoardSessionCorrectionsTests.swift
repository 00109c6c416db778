import BoardKit
import Chess
import Foundation
import JSON
import Kernel
import Synchronization
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Issue #30 (2): the corrections a bridge makes are kept and retained
/// (`<base>/<board>/corrections`), so that a hall which was not running records them too.
@Suite(.serialized) @MainActor struct BoardSessionCorrectionsTests {
    private let topic = "boardbridge/board-01/corrections"

    private func lastList(_ harness: SessionHarness) -> BoardCorrections? {
        harness.publisher.messages.last { $0.topic == topic }.flatMap { message in
            #expect(message.retain)
            return (try? JSONValue(parsing: message.payload)).flatMap { BoardCorrections(json: $0) }
        }
    }

    private func illegalBishop(_ harness: SessionHarness) async {
        harness.transport.perform(.lift(.f1))
        harness.transport.perform(.place(Piece(.white, .bishop), on: .f4))
        await harness.pump()
        harness.transport.perform(.lift(.f4))
        harness.transport.perform(.place(Piece(.white, .bishop), on: .f1))
        await harness.pump()
    }

    @Test func correctionsAreRetainedSavedAndNumberedOnAcrossARestart() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Mutex<[String]>([])
        let files = try StateStore(directory: directory.path)
        let store = StateWriter(store: files) { name, reason in failures.withLock { $0.append("\(name): \(reason)") } }
        var first = try SessionHarness(store: store)
        let tags = GameCommand.Tags(round: "3", white: "Doe, J", black: "Roe, R")
        _ = first.session.execute(.game(.newGame(GameCommand.NewGame(tags: tags))))
        await first.connect()
        await first.play("e2e4")
        await first.play("e7e5")
        await illegalBishop(first)
        let list = try #require(lastList(first))
        #expect(list.entries.map(\.action) == ["illegal_move"])
        let entry = try #require(list.entries.first)
        #expect(entry.sequence == 1 && entry.ply == 2 && entry.round == "3" && entry.white == "Doe, J")
        #expect(entry.detail["uci"] == "f1f4" && entry.detail["reason"] == "not_a_move")
        #expect(entry.fenBefore == first.session.core.position.fen && entry.fenAfter == entry.fenBefore)
        #expect(first.publisher.payloads(on: topic).last?["node"] == "hall-a")

        // Moves missed while the link was down: the second entry.
        first.transport.dropLink()
        await first.pump()
        for uci in ["g1f3", "b8c6", "f1c4"] { await first.play(uci) }
        first.time.advance(10)
        first.transport.establishLink()
        await first.pump()
        #expect(lastList(first)?.entries.map(\.action) == ["illegal_move", "missed_moves"])
        #expect(lastList(first)?.entries.last?.detail["candidates"] != nil)
        first.session.stop()
        store.flush()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try files.read("board-01.corrections") != nil)

        // A restarted bridge publishes the list at its first connection and numbers on.
        let second = try SessionHarness(store: store)
        second.session.publishRetained()
        #expect(lastList(second)?.entries.map(\.sequence) == [1, 2])
        _ = second.session.execute(.game(.newGame(GameCommand.NewGame())))
        await second.connect()
        await illegalBishop(second)
        #expect(lastList(second)?.entries.map(\.sequence) == [1, 2, 3])
    }

    @Test func aMoveWonBackAfterAGapIsARecoveredCorrectionWithThePositionBeforeIt() async throws {
        var harness = try SessionHarness()
        await harness.connect()
        await harness.play("e2e4")
        harness.transport.dropLink()
        await harness.pump()
        await harness.play("e7e5")
        harness.transport.establishLink()
        await harness.pump()
        let moves = harness.publisher.payloads(on: "boardbridge/board-01/move")
        #expect(moves.last?["recovered"] == true, "\(moves)")
        let entry = try #require(lastList(harness)?.entries.last)
        #expect(entry.action == "recovered_move" && entry.detail["san"] == "e5" && entry.ply == 1)
        #expect(entry.fenBefore == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        #expect(entry.fenAfter == harness.session.core.position.fen)
    }

    @Test func aFloodOfCorrectionsCostsAFewEntriesAndTheListStaysBounded() async throws {
        let harness = try SessionHarness()
        await harness.connect()
        // A knocked bishop read as an illegal move 10 times a second for 10 s.
        for _ in 0..<100 {
            await illegalBishop(harness)
            harness.time.advance(0.1)
        }
        let published = harness.publisher.messages.filter { $0.topic == topic }.count
        // The burst, then one a second.
        #expect((BoardSession.correctionBurst...BoardSession.correctionBurst + 11).contains(published), "\(published)")
        let list = try #require(lastList(harness))
        #expect(list.entries.count == BoardCorrections.limit)
        #expect(list.entries.last?.sequence == published)
        #expect(list.entries.last?.detail["suppressed_before"]?.intValue ?? 0 > 0)
    }
}
