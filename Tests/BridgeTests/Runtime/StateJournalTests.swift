import Bridge
import Chess
import Foundation
import Kernel
import TestSupport
import Testing

/// `StateWriter`'s session files: a snapshot and a journal of the changes since.
@MainActor
@Suite struct StateJournalTests {
    private let fixture: StateJournalFixture

    init() throws {
        fixture = try StateJournalFixture()
    }

    private func snapshot(plies: Int) throws -> SessionSnapshot { try fixture.snapshot(plies: plies) }

    private func writer(limit: Int = 256) throws -> StateWriter { try fixture.writer(limit: limit) }

    private func lines(ofJournal name: String) throws -> [String] { try fixture.lines(ofJournal: name) }

    @Test func movesGoToTheJournalAndARestartReplaysThem() throws {
        let first = try writer()
        for plies in 0...10 { try fixture.save(first, plies: plies, after: max(plies - 1, 0), as: "board-01") }
        first.flush()
        // The first save wrote the whole (empty) game; each move after it is one line.
        let saved = try JSONDecoder().decode(SessionSnapshot.self, from: #require(try first.store.read("board-01")))
        #expect(saved.game.moves.isEmpty)
        #expect(try lines(ofJournal: "board-01").count == 10)

        let second = try writer()
        var expected = try snapshot(plies: 10)
        expected.sequence = 10
        #expect(second.restoreSession("board-01") == expected)
        // Saves after a restart continue the same journal.
        try fixture.save(second, plies: 12, after: 10, as: "board-01")
        try fixture.save(second, plies: 11, after: 12, as: "board-01")
        let third = try writer()
        expected = try snapshot(plies: 11)
        expected.sequence = 12
        #expect(third.restoreSession("board-01") == expected)
        #expect(fixture.failures.all.isEmpty)
    }

    @Test func aDeferredFlushWaitsForItsStartButTheSaveIsThereAtOnce() throws {
        let first = try writer()
        try fixture.save(first, plies: 2, after: 0, as: "board-05", deferringSync: true)
        var expected = try snapshot(plies: 2)
        expected.sequence = 0
        #expect(try writer().restoreSession("board-05") == expected)
        // The flush of the whole file fails once it runs: the file is gone.
        try FileManager.default.removeItem(atPath: first.store.path(for: "board-05"))
        #expect(fixture.failures.all.isEmpty)
        first.startDeferredSyncs()
        first.flush()
        #expect(fixture.failures.all.count == 1)
        #expect(fixture.failures.all.first?.hasPrefix("board-05: open ") == true)
    }

    @Test func aWriterReleasedWhileItsFlushesArePendingGoesQuietly() async throws {
        // The pending flush holds the last reference and releases the writer on the
        // writer's own queue (its deinit once waited for that queue: a crash).
        for round in 0..<50 {
            let writer = try writer()
            try fixture.save(writer, plies: round % 5, after: 0, as: "board-\(round)")
        }
        // Each writer's deinit queues the close of its journal behind the flushes on its
        // queue, so once no journal of the directory is open every pending flush has run;
        // their reports were queued on the main queue before those closes, so one main-queue
        // round trip later they have been delivered (to released writers) too.
        #expect(await eventually(timeout: .seconds(30)) { openFiles(in: fixture.directory).isEmpty })
        await mainQueueTurn()
        var expected = try snapshot(plies: 4)
        expected.sequence = 0
        #expect(try writer().restoreSession("board-49") == expected)
        #expect(fixture.failures.all.isEmpty)
    }

    /// The files under `directory` this process has open (`/proc/self/fd`).
    private func openFiles(in directory: URL) -> [String] {
        let prefix = directory.resolvingSymlinksInPath().path + "/"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { descriptor in
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
        }
        .filter { $0.hasPrefix(prefix) }
    }

    @Test func aFullJournalIsFoldedIntoTheSnapshot() throws {
        let writer = try writer(limit: 3)
        for plies in 0...9 { try fixture.save(writer, plies: plies, after: max(plies - 1, 0), as: "board-02") }
        // 0: whole; 1–3: journal; 4: whole; 5–7: journal; 8: whole; 9: journal.
        let saved = try JSONDecoder().decode(SessionSnapshot.self, from: #require(try writer.store.read("board-02")))
        #expect(saved.game.moves.count == 8)
        #expect(saved.sequence == 6)
        #expect(try lines(ofJournal: "board-02").count == 1)
        var expected = try snapshot(plies: 9)
        expected.sequence = 7
        #expect(try self.writer().restoreSession("board-02") == expected)
        #expect(fixture.failures.all.isEmpty)
    }

    @Test func entriesAlreadyInTheSnapshotAndATornLastLineAreSkipped() throws {
        let writer = try writer()
        for plies in 0...4 { try fixture.save(writer, plies: plies, after: max(plies - 1, 0), as: "board-03") }
        let journal = try #require(try writer.store.readJournal("board-03"))
        // A crash between the rename of a new snapshot (which includes entries 1–4 and one
        // more move) and the truncation of the journal: replaying 1–4 would take that move back.
        var whole = try snapshot(plies: 5)
        whole.sequence = 4
        writer.save(whole, as: "board-03")
        // A power cut tore the last line.
        let torn = journal + Data(#"{"sequence":5,"keptPlies":4,"mo"#.utf8)
        try fixture.setJournal("board-03", to: torn)
        #expect(try self.writer().restoreSession("board-03") == whole)
        #expect(fixture.failures.all.isEmpty)
    }
}
