import Bridge
import Chess
import Foundation
import Kernel
import Synchronization
import TestSupport
import Testing

/// `StateWriter`'s session files: a snapshot and a journal of the changes since.
@MainActor
@Suite struct StateJournalTests {
    private static let opening = "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Bc5 c3 d6 O-O O-O Nbd2 a6".split(separator: " ").map(
        String.init)

    /// The session after the first `plies` moves of the opening, saved at `plies` seconds.
    private func snapshot(plies: Int) throws -> SessionSnapshot {
        var game = Game()
        for (index, san) in Self.opening.prefix(plies).enumerated() {
            try game.play(san: san, timestamp: Double(index))
        }
        return GameSession(game: game, inputPath: .identity).snapshot(at: Double(plies))
    }

    /// The failures a writer reported.
    private final class Failures: Sendable {
        let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
    }

    private func writer(_ directory: URL, limit: Int = 256, failures: Failures) throws -> StateWriter {
        StateWriter(store: try StateStore(directory: directory.path), journalLimit: limit) { name, reason in
            failures.list.withLock { $0.append("\(name): \(reason)") }
        }
    }

    private func lines(ofJournal name: String, in writer: StateWriter) throws -> [String] {
        let data = try writer.store.readJournal(name) ?? Data()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func movesGoToTheJournalAndARestartReplaysThem() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        let first = try writer(directory, failures: failures)
        for plies in 0...10 { first.saveSession(try snapshot(plies: plies), as: "board-01") }
        first.flush()
        // The first save wrote the whole (empty) game; each move after it is one line.
        let saved = try JSONDecoder().decode(SessionSnapshot.self, from: #require(try first.store.read("board-01")))
        #expect(saved.game.moves.isEmpty)
        #expect(try lines(ofJournal: "board-01", in: first).count == 10)

        let second = try writer(directory, failures: failures)
        var expected = try snapshot(plies: 10)
        expected.sequence = 10
        #expect(try second.restoreSession("board-01") == expected)
        // Saves after a restart continue the same journal.
        second.saveSession(try snapshot(plies: 12), as: "board-01")
        second.saveSession(try snapshot(plies: 11), as: "board-01")
        let third = try writer(directory, failures: failures)
        expected = try snapshot(plies: 11)
        expected.sequence = 12
        #expect(try third.restoreSession("board-01") == expected)
        #expect(failures.all.isEmpty)
    }

    @Test func aDeferredFlushWaitsForItsStartButTheSaveIsThereAtOnce() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        let first = try writer(directory, failures: failures)
        first.saveSession(try snapshot(plies: 2), as: "board-05", deferringSync: true)
        var expected = try snapshot(plies: 2)
        expected.sequence = 0
        #expect(try writer(directory, failures: failures).restoreSession("board-05") == expected)
        // The flush of the whole file fails once it runs: the file is gone.
        try FileManager.default.removeItem(atPath: first.store.path(for: "board-05"))
        #expect(failures.all.isEmpty)
        first.startDeferredSyncs()
        first.flush()
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.hasPrefix("board-05: open ") == true)
    }

    @Test func aWriterReleasedWhileItsFlushesArePendingGoesQuietly() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        // The pending flush holds the last reference and releases the writer on the
        // writer's own queue (its deinit once waited for that queue: a crash).
        for round in 0..<50 {
            let writer = try writer(directory, failures: failures)
            writer.saveSession(try snapshot(plies: round % 5), as: "board-\(round)")
        }
        try await Task.sleep(for: .milliseconds(300))
        var expected = try snapshot(plies: 4)
        expected.sequence = 0
        #expect(try writer(directory, failures: failures).restoreSession("board-49") == expected)
        #expect(failures.all.isEmpty)
    }

    @Test func aFullJournalIsFoldedIntoTheSnapshot() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        let writer = try writer(directory, limit: 3, failures: failures)
        for plies in 0...9 { writer.saveSession(try snapshot(plies: plies), as: "board-02") }
        // 0: whole; 1–3: journal; 4: whole; 5–7: journal; 8: whole; 9: journal.
        let saved = try JSONDecoder().decode(SessionSnapshot.self, from: #require(try writer.store.read("board-02")))
        #expect(saved.game.moves.count == 8)
        #expect(saved.sequence == 6)
        #expect(try lines(ofJournal: "board-02", in: writer).count == 1)
        var expected = try snapshot(plies: 9)
        expected.sequence = 7
        #expect(try self.writer(directory, failures: failures).restoreSession("board-02") == expected)
        #expect(failures.all.isEmpty)
    }

    @Test func entriesAlreadyInTheSnapshotAndATornLastLineAreSkipped() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        let writer = try writer(directory, failures: failures)
        for plies in 0...4 { writer.saveSession(try snapshot(plies: plies), as: "board-03") }
        let journal = try #require(try writer.store.readJournal("board-03"))
        // A crash between the rename of a new snapshot (which includes entries 1–4 and one
        // more move) and the truncation of the journal: replaying 1–4 would take that move back.
        var whole = try snapshot(plies: 5)
        whole.sequence = 4
        writer.save(whole, as: "board-03")
        // A power cut tore the last line.
        let torn = journal + Data(#"{"sequence":5,"keptPlies":4,"mo"#.utf8)
        #expect(writer.store.write(torn, asJournal: "board-03"))
        #expect(try self.writer(directory, failures: failures).restoreSession("board-03") == whole)
        #expect(failures.all.isEmpty)
    }

    @Test func aCorruptLineEndsTheReplayAndIsReported() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Failures()
        let writer = try writer(directory, failures: failures)
        for plies in 0...2 { writer.saveSession(try snapshot(plies: plies), as: "board-04") }
        var lines = try lines(ofJournal: "board-04", in: writer)
        lines.insert("not json", at: 1)
        #expect(writer.store.write(Data((lines.joined(separator: "\n") + "\n").utf8), asJournal: "board-04"))
        var expected = try snapshot(plies: 1)
        expected.sequence = 1
        #expect(try self.writer(directory, failures: failures).restoreSession("board-04") == expected)
        let reported = failures.all
        #expect(reported.count == 1)
        #expect(reported.first?.hasPrefix("board-04: journal line 2 skipped with the rest") == true)
    }
}

extension StateStore {
    /// Replaces the journal of `name` (tests only: a crash or a power cut, simulated).
    fileprivate func write(_ data: Data, asJournal name: String) -> Bool {
        FileManager.default.createFile(atPath: journalPath(for: name), contents: data)
    }
}
