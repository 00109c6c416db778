import BoardKit
import Chess
import Foundation
import Kernel
import Testing

@Suite struct GameSessionTests {
    private func session(_ control: String = "300+2", path: TrackerInputPath = .identity) -> GameSession {
        GameSession(
            timeControl: try! TimeControl(pgn: control), inputPath: path,
            options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
    }

    private func play(
        _ uci: String, on session: inout GameSession, board: inout PhysicalBoard, at time: Double
    )
        -> [SessionOutput]
    {
        let move = session.position.legalMove(uci: uci)!
        var outputs: [SessionOutput] = []
        for step in steps(for: move, in: session.position, variant: 0) {
            outputs += board.perform(step).flatMap { session.handle($0, at: time) }
        }
        return outputs
    }

    @Test func clockStartsForBlackAfterWhitesFirstMoveAndStampsMoves() {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        let first = play("e2e4", on: &session, board: &board, at: 5)
        #expect(
            first.clockUpdates == [ClockUpdate(action: .start(.black), cause: .game, white: 302, black: 300, time: 5)])
        #expect(first.trackerMoves.map(\.clock) == [302])
        let second = play("e7e5", on: &session, board: &board, at: 15)
        #expect(second.trackerMoves.map(\.clock) == [292])
        #expect(session.game.moves.map(\.clock) == [302, 292])
        #expect(session.clock.state == .running(.white))
        #expect(session.nextDeadline == 317)  // 15 + 302
    }

    @Test func desyncPausesTheClockAndResyncResumesItForTheSideToMove() {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        // Black to move; White's knight on b1 is knocked off the board.
        #expect(session.handle(board.perform(.lift(.b1))[0], at: 10) == [.tracker(.syncChanged(.moveInProgress))])
        let expired = session.tick(at: 12)
        #expect(
            expired == [
                .tracker(.syncChanged(.outOfSync(mismatched: [.b1]))),
                .clock(ClockUpdate(action: .pause, cause: .gate, white: 302, black: 289, time: 12)),
                .alert(mismatched: [.b1]),
            ])
        // Black moves meanwhile; the board is still out of sync, nothing is committed.
        let meanwhile = play("d7d5", on: &session, board: &board, at: 13)
        #expect(meanwhile.trackerMoves.isEmpty)
        #expect(!meanwhile.contains { if case .alert = $0 { true } else { false } })
        // The knight goes back: Black's move is committed and White's time resumes.
        let back = session.handle(board.perform(.place(Piece(.white, .knight), .b1))[0], at: 20)
        #expect(back.trackerMoves.map(\.uci) == ["d7d5"])
        #expect(back.clockUpdates.map(\.action) == [.resume(.white)])
        #expect(session.clock.state == .running(.white))
        #expect(session.clock.remaining(for: .black, at: 20) == 291)
    }

    @Test func flagFallEndsTheGame() {
        var session = session("60")
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        #expect(session.nextDeadline == 61)
        let outputs = session.tick(at: 61)
        #expect(
            outputs == [
                .clock(ClockUpdate(action: .flag(.black), cause: .game, white: 60, black: 0, time: 61)),
                .tracker(.gameEnded(GameEnd(result: .whiteWins, reason: .timeForfeit(loser: .black)))),
            ])
        #expect(session.game.result == .whiteWins)
        #expect(session.nextDeadline == nil)
    }

    @Test func flagAgainstASideThatCannotMateIsADraw() throws {
        var session = GameSession(
            game: Game(startPosition: position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")),
            timeControl: try TimeControl(pgn: "60"), inputPath: .reportedMoves)
        _ = session.handle(.moveReported(BoardMove(uci: "e2e4")!), at: 0)
        #expect(session.game.moves.count == 1)
        _ = session.handle(.moveReported(BoardMove(uci: "e8e7")!), at: 1)
        let outputs = session.tick(at: 100)
        #expect(outputs.contains(.tracker(.gameEnded(GameEnd(result: .draw, reason: .timeForfeit(loser: .white))))))
    }

    @Test func takebackHandsTheClockBack() {
        var session = session(path: .reportedMoves)
        _ = session.handle(.moveReported(BoardMove(uci: "e2e4")!), at: 1)
        _ = session.handle(.moveReported(BoardMove(uci: "e7e5")!), at: 2)
        let outputs = session.takeBack(at: 3)
        #expect(outputs.first == .tracker(.takeback(Takeback(plies: 1, undone: ["e7e5"], ply: 1, fen: afterE4))))
        #expect(outputs.clockUpdates.map(\.action) == [.switchSide(.black)])
        #expect(session.clock.movesMade == ColorPair(white: 1, black: 0))
    }

    private let afterE4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"

    @Test func commandsDriveTheClockAndTheGame() throws {
        var session = session(path: .reportedMoves)
        #expect(session.startClock(at: 0).clockUpdates.map(\.action) == [.start(.white)])
        #expect(session.pauseClock(at: 10).clockUpdates.map(\.action) == [.pause])
        #expect(session.pauseClock(at: 11).isEmpty)
        #expect(session.resumeClock(at: 20).clockUpdates.map(\.action) == [.resume(.white)])
        let adjusted = session.adjustClock(white: 100, black: nil, at: 25)
        #expect(
            adjusted.clockUpdates == [ClockUpdate(action: .adjust, cause: .command, white: 100, black: 300, time: 25)])
        let resigned = session.endGame(GameEnd(result: .blackWins, reason: .resignation(loser: .white)), at: 30)
        #expect(
            resigned == [
                .tracker(.gameEnded(GameEnd(result: .blackWins, reason: .resignation(loser: .white)))),
                .clock(ClockUpdate(action: .stop, cause: .game, white: 95, black: 300, time: 30)),
            ])
        #expect(throws: FENError.self) { try session.setPosition(fen: "not a fen", at: 31) }
        let fresh = try session.newGame(tags: ["White": "Ann"], timeControl: TimeControl(pgn: "5400+30"), at: 40)
        #expect(fresh.clockUpdates.map(\.action) == [.reset])
        #expect(session.game.tags["TimeControl"] == "5400+30")
        #expect(session.game.tags["White"] == "Ann")
        #expect(session.clock.remaining(for: .white, at: 50) == 5400)
        #expect(session.game.result == .ongoing)
    }

    @Test func claimDrawNeedsAClaimableDraw() {
        var session = session(path: .reportedMoves)
        #expect(session.claimDraw(at: 0).isEmpty)
        for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"] {
            _ = session.handle(.moveReported(BoardMove(uci: uci)!), at: 1)
        }
        #expect(
            session.claimDraw(at: 2).first == .tracker(.gameEnded(GameEnd(result: .draw, reason: .threefoldRepetition)))
        )
    }

    @Test func snapshotRoundTripsAndRestoreWaitsForTheBoard() throws {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        _ = play("c7c5", on: &session, board: &board, at: 11)
        let saved = session.snapshot(at: 21)
        #expect(saved.clockWasRunning)
        #expect(saved.clock.state == .paused(.white))
        let data = try JSONEncoder().encode(saved)
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: data)
        #expect(decoded == saved)

        // A new run, a new time base. The board kept its pieces; White moved meanwhile.
        var restored = GameSession(restoring: decoded, at: 1000)
        #expect(restored.game.moves.map(\.move.uci) == ["e2e4", "c7c5"])
        #expect(restored.game.moves.map(\.clock) == [302, 292])
        #expect(restored.clock.remaining(for: .white, at: 5000) == 292)
        #expect(restored.handle(.connected, at: 1000) == [.board(.connected)])
        let move = restored.position.legalMove(uci: "g1f3")!
        for step in steps(for: move, in: restored.position, variant: 0) { _ = board.perform(step) }
        let reconciled = restored.handle(board.snapshotEvent, at: 1001)
        #expect(reconciled.trackerMoves.map(\.uci) == ["g1f3"])
        #expect(reconciled.clockUpdates.map(\.action) == [.resume(.black)])
        #expect(restored.clock.remaining(for: .black, at: 1011) == 282)
    }

    @Test func lostLinkPausesTheClockUntilTheBoardIsBack() {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        let lost = session.handle(.disconnected(error: "link lost"), at: 5)
        #expect(
            lost == [
                .board(.disconnected),
                .clock(ClockUpdate(action: .pause, cause: .gate, white: 302, black: 296, time: 5)),
            ])
        #expect(session.handle(.connected, at: 30) == [.board(.connected)])
        #expect(session.handle(.ready, at: 31) == [.board(.ready)])
        // Black moved while the link was down.
        let move = session.position.legalMove(uci: "e7e5")!
        for step in steps(for: move, in: session.position, variant: 0) { _ = board.perform(step) }
        let back = session.handle(board.snapshotEvent, at: 32)
        #expect(back.trackerMoves.map(\.uci) == ["e7e5"])
        #expect(back.clockUpdates.map(\.action) == [.resume(.white)])
        #expect(session.clock.remaining(for: .black, at: 40) == 298)
    }

    @Test func aBoardBackOutOfSyncKeepsTheClockPausedAndAlerts() {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        _ = session.handle(.disconnected(error: "link lost"), at: 5)
        _ = session.handle(.connected, at: 30)
        // A white knight fell over while the link was down.
        #expect(session.handle(board.perform(.lift(.b1))[0], at: 31) == [.tracker(.syncChanged(.moveInProgress))])
        #expect(session.clock.state == .paused(.black))
        #expect(
            session.tick(at: 33) == [.tracker(.syncChanged(.outOfSync(mismatched: [.b1]))), .alert(mismatched: [.b1])])
        let back = session.handle(board.perform(.place(Piece(.white, .knight), .b1))[0], at: 40)
        #expect(back.clockUpdates.map(\.action) == [.resume(.black)])
    }

    @Test func twoPliesMadeWhileTheLinkWasDownAreCaughtUp() {
        var session = session()
        var board = PhysicalBoard(path: .identity)
        _ = session.handle(board.snapshotEvent, at: 0)
        _ = play("e2e4", on: &session, board: &board, at: 1)
        _ = session.handle(.disconnected(error: nil), at: 2)
        _ = session.handle(.connected, at: 20)
        var reference = session.game
        for uci in ["c7c5", "g1f3"] {
            let move = reference.position.legalMove(uci: uci)!
            for step in steps(for: move, in: reference.position, variant: 0) { _ = board.perform(step) }
            try? reference.play(move)
        }
        let back = session.handle(board.snapshotEvent, at: 21)
        #expect(back.trackerMoves.map(\.uci) == ["c7c5", "g1f3"])
        #expect(back.clockUpdates.map(\.action) == [.resume(.black)])
        #expect(session.syncState == .inSync)
        // Only the first frame after a new link is searched that deep.
        for uci in ["d7d6", "d2d4"] {
            let move = reference.position.legalMove(uci: uci)!
            for step in steps(for: move, in: reference.position, variant: 0) { _ = board.perform(step) }
            try? reference.play(move)
        }
        #expect(session.handle(board.snapshotEvent, at: 22).trackerMoves.isEmpty)
    }

    @Test func restoreOfAStoppedClockDoesNotResume() throws {
        let session = session(path: .reportedMoves)
        let saved = session.snapshot(at: 5)
        #expect(!saved.clockWasRunning)
        var restored = GameSession(restoring: saved, at: 10)
        #expect(
            restored.handle(.moveReported(BoardMove(uci: "e2e4")!), at: 11).clockUpdates.map(\.action) == [
                .start(.black)
            ])
    }
}

extension Array where Element == SessionOutput {
    var clockUpdates: [ClockUpdate] {
        compactMap {
            if case .clock(let update) = $0 { return update }
            return nil
        }
    }

    var trackerMoves: [CommittedMove] {
        compactMap {
            if case .tracker(.move(let move)) = $0 { return move }
            return nil
        }
    }
}

/// #31 item 5: the kernel classifies each event once; what an event says of the board itself
/// comes first in its outputs, so the bridge never looks at the event again.
@Suite struct BoardReportTests {
    @Test func everyEventAboutTheBoardItselfIsReportedFirst() {
        var session = GameSession(inputPath: .identity)
        let cases: [(BoardEvent, BoardReport)] = [
            (.connected, .connected), (.ready, .ready), (.disconnected(error: nil), .disconnected),
            (.handshakeFailed(reason: "no unlock"), .handshakeFailed(reason: "no unlock")),
            (.battery(percent: 80, charging: true), .battery(percent: 80, charging: true)),
            (.button(.named("play")), .button(.named("play"))), (.serialNumber("S1"), .serialNumber("S1")),
            (.version("1.2"), .version("1.2")), (.raw(Data([1, 2])), .unhandled(Data([1, 2]))),
        ]
        for (index, (event, report)) in cases.enumerated() {
            #expect(session.handle(event, at: Double(index)).first == .board(report), "\(event)")
        }
        // A low battery is the report, then the alert.
        #expect(
            session.handle(.battery(percent: 5, charging: false), at: 20) == [
                .board(.battery(percent: 5, charging: false)), .batteryLow(percent: 5),
            ])
        // Board frames say nothing of the board itself.
        #expect(
            session.handle(.pieces(.startingPosition), at: 21).allSatisfy {
                if case .board = $0 { false } else { true }
            })
    }
}
