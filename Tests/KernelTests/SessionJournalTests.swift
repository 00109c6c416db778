import BoardKit
import Chess
import Foundation
import Kernel
import Testing

@Suite struct SessionJournalTests {
    /// A session under a 5+2 clock, and a board in sync with it.
    private func started() -> (GameSession, PhysicalBoard) {
        var session = GameSession(
            timeControl: try! TimeControl(pgn: "300+2"), inputPath: .identity,
            options: TrackerOptions(desyncGrace: 2, orientation: .auto))
        let board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        return (session, board)
    }

    private func play(_ uci: String, on session: inout GameSession, board: inout PhysicalBoard, at time: Double) {
        let move = session.position.legalMove(uci: uci)!
        for step in steps(for: move, in: session.position, variant: 0) {
            for event in board.perform(step) { _ = session.handle(event, at: time) }
        }
    }

    /// Replays `entries` onto `first`, through JSON as a journal would.
    private func replay(_ entries: [SessionJournalEntry], onto first: SessionSnapshot) throws -> SessionSnapshot {
        var state = first
        for entry in entries {
            let line = try JSONEncoder().encode(entry)
            state = try state.applying(JSONDecoder().decode(SessionJournalEntry.self, from: line))
        }
        return state
    }

    @Test func entriesReplayedOntoTheFirstSnapshotGiveEverySavedState() throws {
        var (session, board) = started()
        _ = session.takeChange()
        let first = session.snapshot(at: 0)
        var entries: [SessionJournalEntry] = []
        var time = 1.0
        func save() throws {
            let snapshot = session.snapshot(at: time)
            let entry = try #require(
                SessionJournalEntry(sequence: entries.count + 1, change: session.takeChange(), after: snapshot))
            entries.append(entry)
            var expected = snapshot
            expected.sequence = entry.sequence
            #expect(try replay(entries, onto: first) == expected)
        }
        // Twelve plies, a takeback of two, and more moves: each entry holds only what changed.
        for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6", "e1g1", "e8g8"] {
            play(uci, on: &session, board: &board, at: time)
            try save()
            time += 3
        }
        #expect(entries.map(\.keptPlies) == Array(0..<12))
        #expect(entries.allSatisfy { $0.moves.count == 1 })
        _ = session.takeBack(plies: 2, at: time)
        try save()
        #expect(entries.last?.keptPlies == 10)
        #expect(entries.last?.moves == [])
        board = PhysicalBoard(session.position.snapshot, path: .identity)
        _ = session.handle(board.snapshotEvent, at: time)
        play("b1d2", on: &session, board: &board, at: time + 1)
        try save()
        _ = session.pauseClock(at: time + 2)
        time += 2
        try save()
        #expect(entries.last?.moves == [])
        #expect(entries.map(\.sequence) == Array(1...entries.count))
        #expect(entries.allSatisfy { $0.options == nil && $0.inputPath == nil && $0.clockStart == nil })
    }

    /// A takeback and a move in one step keep only the plies the game never went below.
    @Test func aTakebackAndAMoveInOneChangeKeepTheLowestPly() throws {
        var (session, board) = started()
        play("e2e4", on: &session, board: &board, at: 1)
        play("e7e5", on: &session, board: &board, at: 2)
        _ = session.takeChange()
        let before = session.snapshot(at: 2)
        _ = session.takeBack(plies: 1, at: 3)
        board = PhysicalBoard(session.position.snapshot, path: .identity)
        _ = session.handle(board.snapshotEvent, at: 3)
        play("c7c5", on: &session, board: &board, at: 4)
        let change = session.takeChange()
        #expect(change.keptPlies == 1)
        let entry = try #require(SessionJournalEntry(sequence: 1, change: change, after: session.snapshot(at: 5)))
        #expect(entry.moves.map(\.move.uci) == ["c7c5"])
        #expect(try before.applying(entry).game.moves.map(\.move.uci) == ["e2e4", "c7c5"])
        // Nothing since: the next record keeps every ply.
        #expect(session.takeChange() == SessionChange(keptPlies: 2))
    }

    @Test func aNewGameOrAnOrientationClearedNeedsAWholeSnapshot() throws {
        var (session, board) = started()
        play("e2e4", on: &session, board: &board, at: 1)
        _ = session.takeChange()
        var other = session
        _ = try other.setPosition(fen: "4k3/8/8/8/8/8/8/4K2R w K - 0 1", at: 2)
        #expect(other.takeChange().needsSnapshot)
        #expect(SessionJournalEntry(sequence: 5, change: other.takeChange(), after: other.snapshot(at: 2)) != nil)
        var options = session.tracker.options
        options.castlingWait = 3
        session.update(options: options)
        let change = session.takeChange()
        #expect(!change.needsSnapshot && change.optionsChanged)
        let same = session.snapshot(at: 2)
        let entry = try #require(SessionJournalEntry(sequence: 5, change: change, after: same))
        #expect(entry.sequence == 5)
        #expect(entry.options == same.options)
        #expect(entry.orientation == nil && entry.clockStart == nil)
        session.clockStart = .manual
        let later = session.snapshot(at: 3)
        #expect(SessionJournalEntry(sequence: 6, change: session.takeChange(), after: later)?.clockStart == .manual)
    }

    @Test func anEntryThatDoesNotFitIsRefusedWithItsReason() throws {
        var (session, board) = started()
        _ = session.takeChange()
        let first = session.snapshot(at: 0)
        play("e2e4", on: &session, board: &board, at: 1)
        play("e7e5", on: &session, board: &board, at: 2)
        var entry = try #require(
            SessionJournalEntry(sequence: 1, change: session.takeChange(), after: session.snapshot(at: 3)))
        entry.keptPlies = 3
        #expect(throws: SessionJournalError.missingPlies(kept: 3, available: 0)) { try first.applying(entry) }
        entry.keptPlies = 0
        entry.moves.reverse()
        #expect(throws: SessionJournalError.illegalMove(ply: 0, uci: "e7e5")) { try first.applying(entry) }
    }

    @Test func theWrittenLineReadsBackAsTheSameEntry() throws {
        var game = Game()
        for san in ["e4", "d5", "exd5", "Qxd5"] { try game.play(san: san, clock: 299.5, timestamp: 1_796_018_489.758) }
        game.setComment("a \"quoted\" \\ comment\nwith\ta tab, é and \u{1}", forPly: 1)
        var promotion = try Game(startPosition: Position(fen: "8/P6k/8/8/8/8/8/K7 w - - 0 1"))
        try promotion.play(san: "a8=N")
        for clock in SavedClocks.all {
            for moves in [[], game.moves, promotion.moves] {
                let entry = SessionJournalEntry(
                    sequence: 41, keptPlies: 3, moves: moves, result: .draw, clock: clock, clockWasRunning: true,
                    savedAt: 1_796_018_490.1234567)
                let line = try #require(entry.jsonLine())
                #expect(line.last == UInt8(ascii: "\n"))
                #expect(!line.dropLast().contains(UInt8(ascii: "\n")))
                #expect(try JSONDecoder().decode(SessionJournalEntry.self, from: Data(line)) == entry)
            }
        }
    }

    @Test func entriesWithRareChangesOrNonFiniteTimesAreLeftToTheEncoder() throws {
        var entry = SessionJournalEntry(
            sequence: 1, keptPlies: 0, moves: [], result: .ongoing, clock: GameClock(timeControl: .unlimited),
            clockWasRunning: false, savedAt: 5)
        #expect(entry.jsonLine() != nil)
        // An orientation detected or a clock-start policy set is written directly too.
        for orientation in BoardOrientation.allCases {
            for clockStart in [ClockStartPolicy.onFirstMove, .manual] {
                entry.orientation = orientation
                entry.clockStart = clockStart
                let line = try #require(entry.jsonLine())
                #expect(try JSONDecoder().decode(SessionJournalEntry.self, from: Data(line)) == entry)
                #expect(String(decoding: line, as: UTF8.self).contains("\"\(orientation.rawValue)\""))
            }
        }
        entry.options = TrackerOptions(desyncGrace: 3)
        #expect(entry.jsonLine() == nil)
        entry.options = nil
        entry.savedAt = .infinity
        #expect(entry.jsonLine() == nil)
    }
}
