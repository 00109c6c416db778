import Bridge
import Foundation
import Kernel
import TestScheduling
import TestSupport
import Testing

/// Issue #16 (1), as properties: however a journal is cut or damaged, a restart restores
/// a prefix of the saved game (never a move that was not saved), exactly the whole lines
/// before a cut, and what is saved after the restart is all there at the next one.
@MainActor
@Suite(.cpuBound) struct StateJournalPropertyTests {
    private static let plies = 8

    /// A fixture holding the empty game's snapshot and a journal of ``plies`` moves.
    private func savedGame() throws -> (fixture: StateJournalFixture, snapshot: Data, journal: Data) {
        let fixture = try StateJournalFixture(inMemory: true)
        let writer = try fixture.writer()
        for plies in 0...Self.plies { try fixture.save(writer, plies: plies, after: max(plies - 1, 0)) }
        writer.flush()
        return (fixture, try #require(try fixture.store.read("board")), try fixture.journal("board"))
    }

    /// Restores `journal` after the saved snapshot, checks the state is the game after some
    /// `plies ≥ atLeast` moves, saves the next two moves and checks a second restart has
    /// them all. Returns the plies restored first.
    ///
    /// It yields the main actor first: the writer is main-actor bound, so these thousands of
    /// restores run there, and without a turn in between they held it for half a minute,
    /// while every main-actor test running beside them (their D-Bus, MQTT and timer
    /// handlers all run there) timed out waiting.
    @discardableResult
    private func restoreAndGoOn(
        _ journal: Data, in saved: (fixture: StateJournalFixture, snapshot: Data, journal: Data), atLeast: Int,
        _ context: String
    ) async throws -> Int {
        await Task.yield()
        let fixture = saved.fixture
        try fixture.setSnapshot("board", to: saved.snapshot)
        try fixture.setJournal("board", to: journal)
        for file in try fixture.files(startingWith: "board.journal.corrupt-") {
            try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent(file))
        }
        let writer = try fixture.writer()
        var restored = try #require(writer.restoreSession("board"), "\(context)")
        let plies = restored.game.moves.count
        restored.sequence = nil
        #expect(restored == (try fixture.snapshot(plies: plies)), "\(context): not the game after \(plies) plies")
        #expect(plies >= atLeast, "\(context): \(plies) plies restored, \(atLeast) expected")
        try fixture.save(writer, plies: plies + 1, after: plies)
        try fixture.save(writer, plies: plies + 2, after: plies + 1)
        let again = try fixture.writer().restoreSession("board")
        #expect(
            again?.game.moves == (try fixture.snapshot(plies: plies + 2)).game.moves,
            "\(context): the moves saved after the restart were not all restored")
        return plies
    }

    @Test func aJournalCutAtEveryByteRestoresExactlyTheWholeLinesBeforeTheCut() async throws {
        let saved = try savedGame()
        for offset in 0...saved.journal.count {
            let cut = saved.journal.prefix(offset)
            let whole = cut.filter { $0 == UInt8(ascii: "\n") }.count
            let plies = try await restoreAndGoOn(cut, in: saved, atLeast: whole, "cut at byte \(offset)")
            #expect(plies == whole, "cut at byte \(offset)")
        }
        #expect(saved.fixture.failures.all.isEmpty)
    }

    @Test(arguments: [UInt64(16), 1_602, 77_777])
    func randomlyFlippedBytesNeverGiveAWrongMove(seed: UInt64) async throws {
        let saved = try savedGame()
        var generator = SeededGenerator(seed: seed)
        let newlines = saved.journal.indices.filter { saved.journal[$0] == UInt8(ascii: "\n") }
        for round in 0..<150 {
            var damaged = saved.journal
            var first = damaged.count
            for _ in 0...Int.random(in: 0...2, using: &generator) {
                let offset = Int.random(in: 0..<damaged.count, using: &generator)
                damaged[offset] ^= UInt8.random(in: 1...255, using: &generator)
                first = min(first, offset)
            }
            // Every line that ends before the first damaged byte is intact.
            let intact = newlines.filter { $0 < first }.count
            try await restoreAndGoOn(damaged, in: saved, atLeast: intact, "seed \(seed), round \(round)")
        }
    }
}
