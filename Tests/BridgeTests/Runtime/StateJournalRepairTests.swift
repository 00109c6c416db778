import Bridge
import Foundation
import Kernel
import Testing

/// Issue #16 (1 and 2): damaged state files cost as little as they can and never what
/// comes after them; nothing persisted is deleted or emptied unread.
@MainActor
@Suite struct StateJournalRepairTests {
    private let fixture: StateJournalFixture

    init() throws {
        fixture = try StateJournalFixture()
    }

    /// Saves plies `range` with `writer` as `name`, each one move after the save before (the
    /// first after the game of one ply fewer, as restored).
    private func save(_ range: ClosedRange<Int>, with writer: StateWriter, as name: String = "board") throws {
        for plies in range { try fixture.save(writer, plies: plies, after: max(plies - 1, 0), as: name) }
    }

    // MARK: The journal

    /// The issue's sequence: 10 moves, a kill that tears the last line (`truncate -s -25`),
    /// a restart, 10 more moves, another restart: all 20 are there. (The fragment used to
    /// stay and the next line was appended to it: the second restart stopped at ply 9.)
    @Test func aTornTailIsCutOffBeforeTheNextAppend() throws {
        let first = try fixture.writer()
        try save(0...10, with: first)
        let journal = try fixture.journal("board")
        try fixture.setJournal("board", to: journal.dropLast(25))

        let second = try fixture.writer()
        #expect(second.restoreSession("board") == (try fixture.restored(plies: 9, sequence: 9)))
        // Cut at once (and reported), before anything is appended.
        #expect(try fixture.lines(ofJournal: "board").count == 9)
        #expect(try fixture.journal("board").last == UInt8(ascii: "\n"))
        #expect(fixture.warnings.all.count == 1)
        #expect(fixture.warnings.all.first?.contains("last line was incomplete") == true)
        try save(10...20, with: second)

        let third = try fixture.writer()
        #expect(third.restoreSession("board") == (try fixture.restored(plies: 20, sequence: 20)))
        #expect(fixture.failures.all.isEmpty)
    }

    /// A line of garbage in the middle is reported and skipped; the lines after it are
    /// still applied. The journal is then kept aside (never appended to again) and the
    /// restored state written whole, so later saves and restores go on from it.
    @Test func aGarbageLineInTheMiddleHidesNothingAfterIt() throws {
        let first = try fixture.writer()
        try save(0...6, with: first)
        var lines = try fixture.lines(ofJournal: "board")
        lines.insert("not json \u{0}\u{7f}", at: 3)
        let damaged = Data((lines.joined(separator: "\n") + "\n").utf8)
        try fixture.setJournal("board", to: damaged)

        let second = try fixture.writer()
        var expected = try fixture.restored(plies: 6, sequence: 6)
        #expect(second.restoreSession("board") == expected)
        #expect(fixture.failures.all == ["board: journal line 4 skipped: not a journal line"])
        let aside = try fixture.files(startingWith: "board.journal.corrupt-")
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: fixture.directory.appendingPathComponent(aside[0])) == damaged)
        #expect(try fixture.journal("board").isEmpty)

        try save(7...9, with: second)
        expected = try fixture.restored(plies: 9, sequence: 9)
        #expect(try fixture.writer().restoreSession("board") == expected)
        #expect(fixture.failures.all.count == 1)
    }

    /// A bad line whose entry others depend on: the ones after it cannot be applied (they
    /// keep a move that is lost) and are skipped too, never applied to the wrong state.
    /// Saving on records only the state restored, with numbers above every old line.
    @Test func entriesAfterALostOneAreNotAppliedToTheWrongState() throws {
        let first = try fixture.writer()
        try save(0...6, with: first)
        var lines = try fixture.lines(ofJournal: "board")
        lines[2] = String(lines[2].dropLast(3)) + "xy}"
        try fixture.setJournal("board", to: Data((lines.joined(separator: "\n") + "\n").utf8))

        let second = try fixture.writer()
        #expect(second.restoreSession("board") == (try fixture.restored(plies: 2, sequence: 2)))
        #expect(
            fixture.failures.all == [
                "board: journal line 3 skipped: checksum mismatch",
                "board: journal line 4 skipped: entry 4 does not follow entry 2",
                "board: journal line 5 skipped: entry 5 does not follow entry 2",
                "board: journal line 6 skipped: entry 6 does not follow entry 2",
            ])
        try save(3...4, with: second)
        let restored = try fixture.writer().restoreSession("board")
        #expect(restored?.game.moves == (try fixture.snapshot(plies: 4).game.moves))
        #expect(restored?.sequence == 8)
    }

    /// A journal written before the lines were framed (JSON alone) is still read, also
    /// with a torn fragment glued to the next line (what the previous version appended).
    @Test func unframedLinesOfThePreviousVersionAreStillRead() throws {
        let first = try fixture.writer()
        try save(0...0, with: first)
        var old: [String] = []
        for plies in 1...5 {
            let entry = try #require(
                SessionJournalEntry(
                    sequence: plies, change: SessionChange(keptPlies: plies - 1),
                    after: try fixture.snapshot(plies: plies)
                ))
            old.append(String(decoding: try #require(entry.jsonLine()).dropLast(), as: UTF8.self))
        }
        // Line 4 torn by a kill, line 5 appended to its fragment after the restart.
        let text = old[0..<3].joined(separator: "\n") + "\n" + old[3].prefix(40) + old[3] + "\n" + old[4] + "\n"
        try fixture.setJournal("board", to: Data(text.utf8))
        #expect(try fixture.writer().restoreSession("board") == (try fixture.restored(plies: 5, sequence: 5)))
        #expect(
            fixture.failures.all == [
                "board: journal line 4 skipped: its first 40 bytes (garbage; the entry after them was read)"
            ])
    }

    /// A full disk, simulated with the file-size limit: the append is written part-way and
    /// fails, the whole snapshot cannot be written either. Both are reported; nothing on
    /// disk is lost, and the next save cuts the fragment off and appends every change since.
    @Test func aWriteThatFailsPartWayIsCutOffAndRetried() throws {
        let writer = try fixture.writer(limit: 4)
        // 0: whole; 1–4 journal; 5: whole; 6–9 journal; 10: whole (10 plies); 11: journal.
        try save(0...11, with: writer)
        let before = try fixture.journal("board")
        #expect(try fixture.lines(ofJournal: "board").count == 1)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        var tight = limit
        tight.rlim_cur = rlim_t(before.count + 30)
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &tight)
        try fixture.save(writer, plies: 12, after: 11)
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        signal(SIGXFSZ, previousHandler)
        #expect(fixture.failures.all.count == 2, "\(fixture.failures.all)")
        #expect(fixture.failures.all.allSatisfy { $0.contains("File too large") }, "\(fixture.failures.all)")
        #expect(try fixture.journal("board").count == before.count + 30)

        try fixture.save(writer, plies: 13, after: 12)
        #expect(
            fixture.warnings.all == [
                "board: the journal's last line was incomplete (a torn or failed write): 30 bytes cut off"
            ])
        #expect(try fixture.lines(ofJournal: "board").count == 2)
        #expect(try fixture.writer().restoreSession("board") == (try fixture.restored(plies: 13, sequence: 10)))
        #expect(fixture.failures.all.count == 2)
    }

    // MARK: The snapshot

    /// A corrupt or empty snapshot is moved aside, never overwritten, and the game rebuilt
    /// from the journal, which still starts at the first move; saves go on from it.
    @Test(arguments: [Data(), Data(#"{"version":1,"game":{"#.utf8), Data([0xFF, 0x00, 0x7B])])
    func aBadSnapshotIsMovedAsideAndTheGameRebuiltFromTheJournal(bad: Data) throws {
        let first = try fixture.writer()
        try save(0...10, with: first)
        first.flush()
        try fixture.setSnapshot("board", to: bad)

        let second = try fixture.writer()
        let fresh = try fixture.snapshot(plies: 0)
        #expect(
            second.restoreSession("board", rebuildingOnto: fresh) == (try fixture.restored(plies: 10, sequence: 10)))
        let aside = try fixture.files(startingWith: "board.json.corrupt-")
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: fixture.directory.appendingPathComponent(aside[0])) == bad)
        #expect(fixture.failures.all.count == 1)
        #expect(fixture.failures.all.first?.hasPrefix("board: the saved game cannot be read") == true)
        #expect(fixture.warnings.all.contains("board: game rebuilt from the journal: 10 plies"))
        // Written whole again at once; the journal was used up.
        #expect(try fixture.store.read("board")?.isEmpty == false)
        #expect(try fixture.journal("board").isEmpty)

        try save(11...12, with: second)
        #expect(try fixture.writer().restoreSession("board") == (try fixture.restored(plies: 12, sequence: 12)))
    }

    /// A corrupt snapshot whose journal starts later (after a fold): nothing can be
    /// rebuilt; the session starts afresh, and both files are kept aside, not emptied.
    @Test func aBadSnapshotWithoutAJournalToRebuildFromKeepsBothFiles() throws {
        let first = try fixture.writer(limit: 4)
        try save(0...6, with: first)
        let journal = try fixture.journal("board")
        try fixture.setSnapshot("board", to: Data("garbage".utf8))

        let second = try fixture.writer(limit: 4)
        let fresh = try fixture.snapshot(plies: 0)
        #expect(second.restoreSession("board", rebuildingOnto: fresh) == nil)
        #expect(try fixture.files(startingWith: "board.json.corrupt-").count == 1)
        #expect(
            fixture.failures.all.last == "board: no journal entry follows a new game: the saved game cannot be rebuilt")
        // The caller's first save of its new game moves the journal aside.
        second.saveSession(fresh, change: SessionChange(keptPlies: 0), as: "board")
        let aside = try fixture.files(startingWith: "board.journal.corrupt-")
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: fixture.directory.appendingPathComponent(aside[0])) == journal)
        try fixture.save(second, plies: 1, after: 0)
        #expect(try fixture.writer().restoreSession("board")?.game.moves.count == 1)
    }
}
