import BoardKit
import Chess
import Foundation
import Kernel
import Testing

/// Issue #15: what a new game, a set-up position and an untimed game report, and that a
/// new game waits for the board's set-up instead of reading the old board as a move.
@Suite struct GameLifecycleTests {
    /// A position with White to take en passant and Black able to castle, at move 20.
    static let setUp = "r1bqk2r/ppp2ppp/2n2n2/3pP3/1b6/2N2N2/PPPP1PPP/R1BQKB1R w KQkq d6 0 20"

    private func session(_ control: String = "-", path: TrackerInputPath) -> GameSession {
        GameSession(
            timeControl: try! TimeControl(pgn: control), inputPath: path,
            options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
    }

    /// Makes `uci` by hand on `board`, every step at `time`.
    private func play(
        _ uci: String, on session: inout GameSession, board: inout PhysicalBoard, at time: Double
    ) -> [SessionOutput] {
        let move = session.position.legalMove(uci: uci)!
        var outputs: [SessionOutput] = []
        for step in steps(for: move, in: session.position, variant: 0) {
            outputs += board.perform(step).flatMap { session.handle($0, at: time) }
        }
        return outputs
    }

    // MARK: 1 and 7: a new game is in force at once and waits for the start position

    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func newGameIsInForceAtOnceAndWaitsForTheStartPosition(path: TrackerInputPath) throws {
        var session = session(path: path)
        var board = PhysicalBoard(path: path)
        _ = session.handle(board.snapshotEvent, at: 0)
        // Fool's mate: the old game is over.
        for (index, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].enumerated() {
            _ = play(uci, on: &session, board: &board, at: Double(index + 1))
        }
        #expect(session.game.result == .blackWins)

        let started = session.newGame(tags: ["White": "Ann"], at: 10)
        #expect(started.first == .tracker(.newGame(fen: Position.starting.fen)))
        #expect(session.game.moves.isEmpty)
        #expect(session.game.tags["White"] == "Ann")
        #expect(session.tracker.setUpWait == .startPosition)
        let mismatched: [Square] = [.f2, .g2, .f3, .g4, .h4, .e5, .e7, .d8]
        #expect(started.dropFirst().first == .tracker(.syncChanged(.outOfSync(mismatched: mismatched))))
        #expect(started.contains(.alert(mismatched: mismatched)))
        // Nothing the old board shows is a move of the new game, however long it stands.
        #expect(session.tick(at: 20).isEmpty)
        #expect(session.handle(board.snapshotEvent, at: 21).trackerMoves.isEmpty)

        // The pieces are set up: in sync, and the game goes on from the start.
        var reset: [SessionOutput] = []
        for event in PhysicalBoard.setUpEvents(from: &board, to: .startingPosition) {
            reset += session.handle(event, at: 30)
        }
        #expect(reset.trackerMoves.isEmpty)
        #expect(!reset.contains { if case .tracker(.takeback) = $0 { true } else { false } })
        #expect(reset.last == .tracker(.syncChanged(.inSync)))
        #expect(session.tracker.setUpWait == nil)
        #expect(session.game.moves.isEmpty)
        let first = play("e2e4", on: &session, board: &board, at: 31)
        #expect(first.trackerMoves.map(\.uci) == ["e2e4"])
        #expect(first.trackerMoves.map(\.ply) == [1])
    }

    /// The Millennium report: New game pressed while the board still shows 1. Nf3. Before,
    /// `g1f3` was published as the new game's first move, then a takeback when the knight
    /// went back.
    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func aMoveStillOnTheBoardIsNotTheNewGamesFirstMove(path: TrackerInputPath) throws {
        var session = session(path: path)
        var board = PhysicalBoard(path: path)
        _ = session.handle(board.snapshotEvent, at: 0)
        #expect(play("g1f3", on: &session, board: &board, at: 1).trackerMoves.map(\.uci) == ["g1f3"])

        let started = session.newGame(at: 5)
        #expect(started.trackerMoves.isEmpty)
        #expect(session.game.moves.isEmpty)
        #expect(session.syncState == .outOfSync(mismatched: [.g1, .f3]))
        #expect(session.tracker.setUpWait == .startPosition)

        // The knight goes back: first lifted (still not the start), then on g1.
        let lifted = board.perform(.lift(.f3)).flatMap { session.handle($0, at: 6) }
        #expect(lifted == [.tracker(.syncChanged(.outOfSync(mismatched: [.g1])))])
        let placed = board.perform(.place(Piece(.white, .knight), .g1)).flatMap { session.handle($0, at: 7) }
        #expect(placed == [.tracker(.syncChanged(.inSync))])
        #expect(session.game.moves.isEmpty)
        #expect(play("g1f3", on: &session, board: &board, at: 8).trackerMoves.map(\.ply) == [1])
    }

    /// A new game on a board that already shows the start position is in sync at once, and
    /// says so (the sync state is reported for every new game).
    @Test func aNewGameOnASetUpBoardIsInSyncAtOnce() throws {
        var session = session(path: .identity)
        let board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        let started = session.newGame(at: 1)
        #expect(started == [.tracker(.newGame(fen: Position.starting.fen)), .tracker(.syncChanged(.inSync))])
        #expect(session.tracker.setUpWait == nil)
    }

    /// A clock the gate paused in the old game is not resumed in the new one once the board
    /// is set up: the new game's clock starts with its first move.
    @Test func aNewGameDoesNotInheritTheGatesPausedClock() throws {
        var session = session("300+2", path: .identity)
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        _ = board.perform(.lift(.a2)).flatMap { session.handle($0, at: 2) }
        _ = session.tick(at: 5)
        #expect(session.clock.state == .paused(.black))

        _ = session.newGame(at: 6)
        var reset: [SessionOutput] = []
        for event in PhysicalBoard.setUpEvents(from: &board, to: .startingPosition) {
            reset += session.handle(event, at: 7)
        }
        #expect(session.syncState == .inSync)
        #expect(reset.clockUpdates.isEmpty)
        #expect(session.clock.state == .notStarted)
    }

    // MARK: 2 and 3: a set-up position is kept, awaited, and numbered as its FEN says

    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func aPositionIsKeptWhileTheBoardStillShowsTheStart(path: TrackerInputPath) throws {
        var session = session(path: path)
        var board = PhysicalBoard(path: path)
        _ = session.handle(board.snapshotEvent, at: 0)

        let set = try session.setPosition(fen: Self.setUp, at: 1)
        #expect(set.first == .tracker(.newGame(fen: Self.setUp)))
        #expect(session.position.fen == Self.setUp)
        #expect(session.tracker.setUpWait == .position)
        #expect(session.syncState.isOutOfSync)
        // The board showing the start is no new game from the board, and no takeback.
        let again = session.handle(board.snapshotEvent, at: 2)
        #expect(!again.contains { if case .tracker(.newGame) = $0 { true } else { false } })
        #expect(session.position.fen == Self.setUp)
        #expect(session.tick(at: 10).isEmpty)
        #expect(session.position.fen == Self.setUp)

        var shown: [SessionOutput] = []
        for event in PhysicalBoard.setUpEvents(from: &board, to: placement(Self.setUp)) {
            shown += session.handle(event, at: 11)
        }
        #expect(shown.trackerMoves.isEmpty)
        #expect(shown.last == .tracker(.syncChanged(.inSync)))
        #expect(session.tracker.setUpWait == nil)

        // Moves are tracked from the set-up position, numbered as its FEN counts.
        var moves: [CommittedMove] = []
        for (index, uci) in ["e5d6", "e8g8", "d2d3"].enumerated() {
            moves += play(uci, on: &session, board: &board, at: 12 + Double(index)).trackerMoves
        }
        #expect(moves.map(\.san) == ["exd6", "O-O", "d3"])
        #expect(moves.map(\.ply) == [1, 2, 3])
        #expect(moves.map(\.moveNumber) == [20, 20, 21])
        #expect(session.position.fullmoveNumber == 21)
        #expect(session.game.pgn.contains("20. exd6 O-O 21. d3"))
    }

    /// The move number follows the FEN when Black moves first too.
    @Test func moveNumbersFollowTheFENWithBlackToMove() throws {
        var session = session(path: .reportedMoves)
        _ = try session.setPosition(fen: "4k3/8/8/8/8/8/4P3/4K3 b - - 3 41", at: 0)
        var moves: [CommittedMove] = []
        for uci in ["e8d7", "e2e4", "d7e6"] {
            moves += session.handle(.moveReported(BoardMove(uci: uci)!), at: 1).trackerMoves
        }
        #expect(moves.map(\.ply) == [1, 2, 3])
        #expect(moves.map(\.moveNumber) == [41, 42, 42])
        #expect(moves.map(\.color) == [.black, .white, .black])
    }

    @Test func moveNumbersOfAGameFromTheStart() {
        var session = session(path: .reportedMoves)
        var moves: [CommittedMove] = []
        for uci in ["e2e4", "e7e5", "g1f3"] {
            moves += session.handle(.moveReported(BoardMove(uci: uci)!), at: 1).trackerMoves
        }
        #expect(moves.map(\.moveNumber) == [1, 1, 2])
    }

    @Test func aMoveNumberIsReadWhateverItsLength() {
        for (fen, color, number) in [
            ("8/8/8/8/8/8/8/K6k b - - 0 1", PieceColor.white, 1), ("8/8/8/8/8/8/8/K6k w - - 0 2", .black, 1),
            ("8/8/8/8/8/8/8/K6k b - - 0 12345678901", .white, 12_345_678_901),
            ("8/8/8/8/8/8/8/K6k w - - 99 123456789012345678", .black, 123_456_789_012_345_677),
        ] {
            let move = CommittedMove(
                move: BoardMove(uci: "a1a2")!, san: "Ka2", fen: fen, ply: 1, color: color, timestamp: 0)
            #expect(move.moveNumber == number, "\(fen)")
        }
    }

    // MARK: 6: no clock actions for an untimed game

    @Test(arguments: ["-", "?"])
    func anUntimedGameReportsNoClockAction(control: String) {
        var session = session(control, path: .identity)
        var board = PhysicalBoard(path: .identity)
        var outputs = session.handle(board.snapshotEvent, at: 0)
        outputs += play("e2e4", on: &session, board: &board, at: 1)
        // Knocked over and put back: out of sync and in sync again, but no pause or resume.
        outputs += board.perform(.lift(.a2)).flatMap { session.handle($0, at: 2) }
        let expired = session.tick(at: 5)
        #expect(expired.contains(.tracker(.syncChanged(.outOfSync(mismatched: [.a2])))))
        outputs += expired
        outputs += board.perform(.place(Piece(.white, .pawn), .a2)).flatMap { session.handle($0, at: 6) }
        outputs += session.pauseClock(at: 7) + session.resumeClock(at: 8)
        outputs += session.endGame(GameEnd(result: .draw, reason: .agreement), at: 9)
        #expect(outputs.clockUpdates.isEmpty)
        #expect(session.syncState == .inSync)
    }

    // MARK: Persistence of the wait

    /// A restart while the board is being set up still waits for it: the old board is not
    /// read as a move after the restart either.
    @Test func theWaitSurvivesARestart() throws {
        var session = session(path: .identity)
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("g1f3", on: &session, board: &board, at: 1)
        _ = session.newGame(at: 2)
        let saved = session.snapshot(at: 3)
        #expect(saved.setUpWait == .startPosition)
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(saved))
        #expect(decoded == saved)

        var restored = GameSession(restoring: decoded, at: 100)
        #expect(restored.tracker.setUpWait == .startPosition)
        _ = restored.handle(.connected, at: 100)
        _ = restored.handle(.ready, at: 100)
        let first = restored.handle(board.snapshotEvent, at: 101)
        #expect(first.trackerMoves.isEmpty)
        #expect(restored.syncState == .outOfSync(mismatched: [.g1, .f3]))

        // Its start and its end cannot be journal lines: each is a whole snapshot.
        var done = restored
        _ = done.takeChange()
        for event in PhysicalBoard.setUpEvents(from: &board, to: .startingPosition) { _ = done.handle(event, at: 102) }
        #expect(done.tracker.setUpWait == nil)
        #expect(SessionJournalEntry(sequence: 1, change: done.takeChange(), after: done.snapshot(at: 103)) == nil)
        #expect(SessionJournalEntry(sequence: 1, change: done.takeChange(), after: done.snapshot(at: 104)) != nil)
    }

    /// A snapshot written before the wait existed reads as no wait.
    @Test func snapshotsWithoutTheWaitStillRead() throws {
        var session = session(path: .identity)
        _ = session.newGame(at: 0)
        let saved = session.snapshot(at: 1)
        #expect(saved.setUpWait == .startPosition)
        var json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(saved)) as? [String: Any])
        json.removeValue(forKey: "setUpWait")
        let old = try JSONSerialization.data(withJSONObject: json)
        #expect(try JSONDecoder().decode(SessionSnapshot.self, from: old).setUpWait == nil)
    }
}

extension PhysicalBoard {
    /// The events of setting the board up as `target` by hand: every wrong piece lifted,
    /// then every missing one placed (as `boardsim ctl reset` does).
    static func setUpEvents(from board: inout PhysicalBoard, to target: BoardSnapshot) -> [BoardEvent] {
        var events: [BoardEvent] = []
        for square in Square.allCases where board.board[square] != target[square] && board.board[square] != nil {
            events += board.perform(.lift(square))
        }
        for square in Square.allCases where board.board[square] != target[square] {
            if let piece = target[square] { events += board.perform(.place(piece, square)) }
        }
        return events
    }
}
