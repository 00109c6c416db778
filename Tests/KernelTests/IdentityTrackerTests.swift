import BoardKit
import Chess
import Kernel
import Testing

/// Scripted identity-board sequences, each asserting the exact outputs.
@Suite struct IdentityTrackerTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)

    private func tracker(_ fen: String? = nil, options: TrackerOptions? = nil) -> GameTracker {
        let game = Game(startPosition: fen.map(position) ?? .starting)
        return GameTracker(game: game, inputPath: .identity, options: options ?? self.options)
    }

    private func committed(_ uci: String, _ san: String, from fen: String, ply: Int, at time: Double) -> TrackerOutput {
        let before = position(fen)
        let move = before.legalMove(uci: uci)!
        return .move(
            CommittedMove(
                move: move, san: san, fen: before.applying(move).fen, ply: ply, color: before.sideToMove,
                timestamp: time))
    }

    @Test func startPositionIsInSyncAndIdenticalFramesAreNoOps() {
        var tracker = tracker(options: TrackerOptions())
        let start = BoardEvent.pieces(.startingPosition)
        #expect(tracker.handle(start, at: 0) == [.orientationDetected(.whiteNear)])
        #expect(tracker.handle(start, at: 1) == [])
        #expect(tracker.handle(start, at: 50) == [])
        #expect(tracker.syncState == .inSync)
        #expect(tracker.nextDeadline == nil)
    }

    @Test func simpleMoveGoesThroughMoveInProgress() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        #expect(tracker.handle(board.snapshotEvent, at: 0) == [])
        #expect(tracker.handle(board.perform(.lift(.e2))[0], at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.nextDeadline == nil)
        let fen = Position.starting.fen
        #expect(
            tracker.handle(board.perform(.place(Piece(.white, .pawn), .e4))[0], at: 2)
                == [committed("e2e4", "e4", from: fen, ply: 1, at: 2), .syncChanged(.inSync)])
        #expect(tracker.position.fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    }

    @Test(arguments: [0, 1])
    func captureInEitherOrder(variant: Int) {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        var outputs = tracker.handle(board.snapshotEvent, at: 0)
        let plan = steps(for: position(fen).legalMove(uci: "e4d5")!, in: position(fen), variant: variant)
        #expect(plan.count == 3)
        for (index, step) in plan.enumerated() {
            outputs += tracker.handle(board.perform(step)[0], at: Double(index + 1))
        }
        #expect(
            outputs == [
                .syncChanged(.moveInProgress), committed("e4d5", "exd5", from: fen, ply: 1, at: 3),
                .syncChanged(.inSync),
            ])
    }

    @Test func castlingKingFirstIsOneMove() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        let king = Piece(.white, .king)
        let rook = Piece(.white, .rook)
        #expect(tracker.handle(board.perform(.lift(.e1))[0], at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.handle(board.perform(.place(king, .g1))[0], at: 2) == [])
        #expect(tracker.handle(board.perform(.lift(.h1))[0], at: 3) == [])
        #expect(
            tracker.handle(board.perform(.place(rook, .f1))[0], at: 4)
                == [committed("e1g1", "O-O", from: fen, ply: 1, at: 4), .syncChanged(.inSync)])
    }

    @Test func castlingRookFirstWaitsForTheKing() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.a1))[0], at: 1)
        // Ra1-d1 is a legal move too: it waits for the king.
        #expect(tracker.handle(board.perform(.place(Piece(.white, .rook), .d1))[0], at: 2) == [])
        #expect(tracker.nextDeadline == 3.5)
        #expect(tracker.handle(board.perform(.lift(.e1))[0], at: 3) == [])
        #expect(
            tracker.handle(board.perform(.place(Piece(.white, .king), .c1))[0], at: 4)
                == [committed("e1c1", "O-O-O", from: fen, ply: 1, at: 4), .syncChanged(.inSync)])
        #expect(tracker.nextDeadline == nil)
    }

    @Test func rookMoveThatIsNotCastlingCommitsAfterTheWait() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.h1))[0], at: 1)
        #expect(tracker.handle(board.perform(.place(Piece(.white, .rook), .f1))[0], at: 2) == [])
        #expect(tracker.tick(at: 3) == [])
        // The move keeps the time the board showed it.
        #expect(
            tracker.tick(at: 3.5) == [committed("h1f1", "Rf1", from: fen, ply: 1, at: 2), .syncChanged(.inSync)])
    }

    @Test func rookMoveCommitsAtOnceWhenTheOpponentReplies() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.h1))[0], at: 1)
        _ = tracker.handle(board.perform(.place(Piece(.white, .rook), .f1))[0], at: 2)
        #expect(
            tracker.handle(board.perform(.lift(.a7))[0], at: 2.5)
                == [committed("h1f1", "Rf1", from: fen, ply: 1, at: 2)])
        #expect(tracker.syncState == .moveInProgress)
    }

    @Test func enPassantWithThePawnNotYetRemovedIsInProgress() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        #expect(tracker.handle(board.perform(.lift(.e5))[0], at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.handle(board.perform(.place(Piece(.white, .pawn), .f6))[0], at: 2) == [])
        #expect(tracker.tick(at: 30) == [])
        #expect(
            tracker.handle(board.perform(.lift(.f5))[0], at: 31)
                == [committed("e5f6", "exf6", from: fen, ply: 1, at: 31), .syncChanged(.inSync)])
    }

    @Test func promotionWithThePawnPutDownFirst() {
        let fen = "8/4P1k1/7p/8/8/8/8/4K3 w - - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.e7))[0], at: 1)
        #expect(tracker.handle(board.perform(.place(Piece(.white, .pawn), .e8))[0], at: 2) == [])
        #expect(tracker.handle(board.perform(.lift(.e8))[0], at: 3) == [])
        #expect(
            tracker.handle(board.perform(.place(Piece(.white, .knight), .e8))[0], at: 4)
                == [committed("e7e8n", "e8=N+", from: fen, ply: 1, at: 4), .syncChanged(.inSync)])
    }

    @Test func boardReturningToAnEarlierPositionIsATakeback() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        for (index, uci) in ["e2e4", "e7e5", "g1f3"].enumerated() {
            let move = tracker.position.legalMove(uci: uci)!
            for step in steps(for: move, in: tracker.position, variant: 0) {
                _ = tracker.handle(board.perform(step)[0], at: Double(index))
            }
        }
        #expect(tracker.game.moves.count == 3)
        // Knight back, then the e-pawn back: two plies.
        _ = tracker.handle(board.perform(.lift(.f3))[0], at: 10)
        let afterKnight = tracker.handle(board.perform(.place(Piece(.white, .knight), .g1))[0], at: 11)
        #expect(
            afterKnight == [
                .takeback(
                    Takeback(
                        plies: 1, undone: ["g1f3"], ply: 2,
                        fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")),
                .syncChanged(.inSync),
            ])
        _ = tracker.handle(board.perform(.lift(.e5))[0], at: 12)
        let afterPawn = tracker.handle(board.perform(.place(Piece(.black, .pawn), .e7))[0], at: 13)
        #expect(afterPawn.first == .takeback(Takeback(plies: 1, undone: ["e7e5"], ply: 1, fen: afterPawnFEN)))
        // The last one in a single frame.
        _ = tracker.handle(.pieces(.startingPosition), at: 14)
        #expect(tracker.game.moves.isEmpty)
    }

    private let afterPawnFEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"

    @Test func slidingPastALegalSquareCorrectsTheMove() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.c1))[0], at: 1)
        let bishop = Piece(.white, .bishop)
        #expect(tracker.handle(board.perform(.place(bishop, .d2))[0], at: 2).moves.map(\.uci) == ["c1d2"])
        _ = tracker.handle(board.perform(.lift(.d2))[0], at: 2.1)
        let corrected = tracker.handle(board.perform(.place(bishop, .e3))[0], at: 2.2)
        #expect(corrected.count == 3)
        #expect(corrected.first == .takeback(Takeback(plies: 1, undone: ["c1d2"], ply: 0, fen: fen)))
        #expect(corrected.moves.map(\.uci) == ["c1e3"])
        #expect(corrected.last == .syncChanged(.inSync))
        #expect(tracker.game.moves.map(\.move.uci) == ["c1e3"])
    }

    @Test func illegalMoveAlertsAtOnceAndTheGameDoesNotAdvance() {
        // The knight on d2 is pinned by the bishop on b4.
        let fen = "rnbqk1nr/pppp1ppp/8/4p3/1b6/3P4/PPPNPPPP/R1BQKBNR w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.d2))[0], at: 1)
        let knight = Piece(.white, .knight)
        let outputs = tracker.handle(board.perform(.place(knight, .f3))[0], at: 2)
        #expect(
            outputs == [
                .illegalMove(
                    IllegalMove(
                        move: BoardMove(from: .d2, to: .f3), reason: .leavesKingInCheck, color: .white, fen: fen)),
                .syncChanged(.outOfSync(mismatched: [.d2, .f3])),
            ])
        #expect(tracker.game.moves.isEmpty)
        // Streaming the same frame does not alert again.
        #expect(tracker.handle(board.snapshotEvent, at: 3) == [])
        _ = tracker.handle(board.perform(.lift(.f3))[0], at: 4)
        #expect(tracker.handle(board.perform(.place(knight, .d2))[0], at: 5) == [.syncChanged(.inSync)])
    }

    @Test func aKnockedPieceIsOutOfSyncOnlyAfterTheGrace() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        // Black's rook on a8 cannot be captured: no legal move explains its absence.
        #expect(tracker.handle(board.perform(.lift(.a8))[0], at: 10) == [.syncChanged(.moveInProgress)])
        #expect(tracker.nextDeadline == 12)
        #expect(tracker.tick(at: 11.9) == [])
        #expect(tracker.tick(at: 12) == [.syncChanged(.outOfSync(mismatched: [.a8]))])
        #expect(tracker.nextDeadline == nil)
        #expect(tracker.handle(board.perform(.place(Piece(.black, .rook), .a8))[0], at: 20) == [.syncChanged(.inSync)])
    }

    @Test func aPieceLeftOnAWrongSquareIsOutOfSync() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.b8))[0], at: 1)
        _ = tracker.handle(board.perform(.place(Piece(.black, .knight), .c6))[0], at: 1.5)
        // A frame arriving after the grace reports it at once.
        #expect(
            tracker.handle(board.perform(.lift(.h2))[0], at: 4).syncStates == [.outOfSync(mismatched: [.h2, .c6, .b8])])
    }

    @Test func impossibleSnapshotsAreOutOfSyncNeverACrash() {
        var tracker = tracker()
        _ = tracker.handle(.pieces(.startingPosition), at: 0)
        var twoKings = BoardSnapshot.startingPosition
        twoKings[.e4] = Piece(.white, .king)
        #expect(tracker.handle(.pieces(twoKings), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.tick(at: 3) == [.syncChanged(.outOfSync(mismatched: [.e4]))])
        var crowded = BoardSnapshot.startingPosition
        for square in [Square.a3, .b3, .c3, .d3, .e3, .f3, .g3, .h3] { crowded[square] = Piece(.white, .queen) }
        crowded[.a4] = Piece(.black, .queen)
        #expect(crowded.occupancy.count == 41)
        #expect(tracker.handle(.pieces(crowded), at: 4).syncStates.allSatisfy { $0.isOutOfSync })
        #expect(tracker.syncState.isOutOfSync)
        #expect(tracker.handle(.pieces(BoardSnapshot()), at: 5).syncStates.allSatisfy { $0.isOutOfSync })
        #expect(tracker.syncState.isOutOfSync)
        #expect(tracker.handle(.pieces(.startingPosition), at: 6) == [.syncChanged(.inSync)])
    }

    @Test func blackNearIsDetectedFromTheStartPosition() {
        var tracker = tracker(options: TrackerOptions())
        var board = PhysicalBoard(path: .identity, orientation: .blackNear)
        #expect(tracker.handle(board.snapshotEvent, at: 0) == [.orientationDetected(.blackNear)])
        #expect(tracker.orientation == .blackNear)
        _ = tracker.handle(board.perform(.lift(.d2))[0], at: 1)
        let outputs = tracker.handle(board.perform(.place(Piece(.white, .pawn), .d4))[0], at: 2)
        #expect(outputs.moves.map(\.uci) == ["d2d4"])
    }

    @Test func configuredOrientationIsNotDetected() {
        var tracker = tracker(options: TrackerOptions(orientation: .blackNear))
        #expect(tracker.handle(.pieces(BoardSnapshot.startingPosition.rotated), at: 0) == [])
        #expect(tracker.syncState == .inSync)
    }

    @Test func hostTakebackIsNotUndoneByTheBoard() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        _ = tracker.handle(board.perform(.lift(.e2))[0], at: 1)
        _ = tracker.handle(board.perform(.place(Piece(.white, .pawn), .e4))[0], at: 2)
        let outputs = tracker.takeBack(at: 3)
        #expect(
            outputs == [
                .takeback(Takeback(plies: 1, undone: ["e2e4"], ply: 0, fen: Position.starting.fen)),
                .syncChanged(.moveInProgress),
            ])
        #expect(tracker.handle(board.snapshotEvent, at: 4) == [])
        #expect(tracker.tick(at: 5) == [.syncChanged(.outOfSync(mismatched: [.e2, .e4]))])
        _ = tracker.handle(board.perform(.lift(.e4))[0], at: 6)
        #expect(tracker.handle(board.perform(.place(Piece(.white, .pawn), .e2))[0], at: 7) == [.syncChanged(.inSync)])
    }

    @Test func checkmateEndsTheGameAndTheStartPositionBeginsANewOne() {
        var tracker = tracker()
        var board = PhysicalBoard(path: .identity)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        var outputs: [TrackerOutput] = []
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let move = tracker.position.legalMove(uci: uci)!
            for step in steps(for: move, in: tracker.position, variant: 0) {
                outputs += tracker.handle(board.perform(step)[0], at: 1)
            }
        }
        #expect(outputs.contains(.gameEnded(GameEnd(result: .blackWins, reason: .checkmate(winner: .black)))))
        #expect(tracker.isGameOver)
        // Taking back within the bound does not start a new game…
        let reset = tracker.handle(.pieces(.startingPosition), at: 2)
        let expected = Takeback(plies: 4, undone: ["d8h4", "g2g4", "e7e5", "f2f3"], ply: 0, fen: Position.starting.fen)
        #expect(reset.first == .takeback(expected))
        // …but after a longer game, it does.
        var long = self.tracker(options: TrackerOptions(maxTakebackPlies: 2, orientation: .whiteNear))
        var longBoard = PhysicalBoard(path: .identity)
        _ = long.handle(longBoard.snapshotEvent, at: 0)
        for uci in ["g1f3", "g8f6", "b1c3"] {
            let move = long.position.legalMove(uci: uci)!
            for step in steps(for: move, in: long.position, variant: 0) {
                _ = long.handle(longBoard.perform(step)[0], at: 1)
            }
        }
        #expect(long.handle(.pieces(.startingPosition), at: 2) == [.newGame(fen: Position.starting.fen)])
        #expect(long.game.moves.isEmpty)
    }
}
