import BoardKit
import Chess
import Kernel
import Testing

/// Scripted sequences for boards that report completed moves (ChessUp).
@Suite struct ReportedMoveTrackerTests {
    private func tracker(_ fen: String? = nil, options: TrackerOptions = TrackerOptions()) -> GameTracker {
        GameTracker(
            game: Game(startPosition: fen.map(position) ?? .starting), inputPath: .reportedMoves, options: options)
    }

    private func committed(_ uci: String, from fen: String, ply: Int = 1, at time: Double) -> TrackerOutput {
        let before = position(fen)
        let move = before.legalMove(uci: uci)!
        return .move(
            CommittedMove(
                move: move, san: before.san(for: move), fen: before.applying(move).fen, ply: ply,
                color: before.sideToMove, timestamp: time))
    }

    private func report(_ uci: String) -> BoardEvent { .moveReported(BoardMove(uci: uci)!) }

    @Test func capabilitiesChooseThePath() {
        #expect(TrackerInputPath(capabilities: [.occupancySensing, .reportsMoves]) == .reportedMoves)
        #expect(TrackerInputPath(capabilities: [.pieceIdentity, .reportsMoves]) == .identity)
        #expect(TrackerInputPath(capabilities: [.occupancySensing]) == .occupancy)
        #expect(TrackerInputPath(capabilities: []) == .occupancy)
    }

    @Test func legalReportIsCommitted() {
        var tracker = tracker()
        #expect(tracker.handle(report("e2e4"), at: 1) == [committed("e2e4", from: Position.starting.fen, at: 1)])
        #expect(tracker.syncState == .inSync)
    }

    @Test func reportOfAPinnedPieceIsAnIllegalMove() {
        let fen = "rnbqk1nr/pppp1ppp/8/4p3/1b6/2NP4/PPP1PPPP/R1BQKBNR w KQkq - 0 1"
        var tracker = tracker(fen)
        #expect(
            tracker.handle(report("c3d5"), at: 1)
                == [
                    .illegalMove(
                        IllegalMove(
                            move: BoardMove(from: .c3, to: .d5), reason: .leavesKingInCheck, color: .white, fen: fen)),
                    .syncChanged(.outOfSync(mismatched: [.c3, .d5])),
                ])
        #expect(
            tracker.handle(report("a2a3"), at: 2) == [committed("a2a3", from: fen, at: 2), .syncChanged(.inSync)])
    }

    @Test func reportNoPieceCanMakeIsNotAMove() {
        var tracker = tracker()
        let outputs = tracker.handle(report("e2e5"), at: 1)
        #expect(
            outputs.first
                == .illegalMove(
                    IllegalMove(
                        move: BoardMove(from: .e2, to: .e5), reason: .notAMove, color: .white,
                        fen: Position.starting.fen)))
        #expect(tracker.game.moves.isEmpty)
        // The board's occupancy matching the game clears it.
        #expect(tracker.handle(.occupancy(.startingPosition), at: 2) == [.syncChanged(.inSync)])
    }

    private let promotionFEN = "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1"

    @Test func promotionTakesThePickThatFollows() {
        var tracker = tracker(promotionFEN)
        #expect(tracker.handle(report("g2g1"), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(
            tracker.handle(.promotionPicked(.knight), at: 1.1)
                == [committed("g2g1n", from: promotionFEN, at: 1), .syncChanged(.inSync)])
    }

    @Test func promotionWithoutAPickTakesTheDefault() {
        var tracker = tracker(promotionFEN)
        _ = tracker.handle(report("g2g1"), at: 1)
        let after = position(promotionFEN).applying(position(promotionFEN).legalMove(uci: "g2g1q")!).fen
        // The next report settles it; ticking would have too.
        #expect(
            tracker.handle(report("e1d2"), at: 3)
                == [
                    committed("g2g1q", from: promotionFEN, at: 1), committed("e1d2", from: after, ply: 2, at: 3),
                    .syncChanged(.inSync),
                ])
        var ticked = self.tracker(promotionFEN, options: TrackerOptions(promotionDefault: .rook))
        _ = ticked.handle(report("g2g1"), at: 1)
        #expect(ticked.nextDeadline == 2)
        #expect(ticked.tick(at: 2) == [committed("g2g1r", from: promotionFEN, at: 1), .syncChanged(.inSync)])
    }

    @Test func promotionNamedInTheReportNeedsNoPick() {
        var tracker = tracker(promotionFEN)
        #expect(tracker.handle(report("g2g1b"), at: 1) == [committed("g2g1b", from: promotionFEN, at: 1)])
    }

    @Test func castlingAsKingTakesRook() {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        var tracker = tracker(fen)
        #expect(tracker.handle(report("e1a1"), at: 1) == [committed("e1c1", from: fen, at: 1)])
    }

    @Test func reportAfterTheGameEndedIsRejected() {
        var tracker = tracker()
        var outputs: [TrackerOutput] = []
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] { outputs += tracker.handle(report(uci), at: 1) }
        #expect(outputs.last == .gameEnded(GameEnd(result: .blackWins, reason: .checkmate(winner: .black))))
        #expect(tracker.handle(report("e2e4"), at: 2).first?.isIllegal(.gameOver) == true)
    }

    @Test func occupancyOfAnUnreportedMoveIsInProgress() {
        var tracker = tracker()
        var map = OccupancyMap.startingPosition
        map.remove(.e2)
        map.insert(.e4)
        #expect(tracker.handle(.occupancy(map), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.tick(at: 10) == [])
        #expect(tracker.game.moves.isEmpty)
        #expect(tracker.handle(report("e2e4"), at: 11).last == .syncChanged(.inSync))
        map.remove(.a8)
        #expect(tracker.handle(.occupancy(map), at: 12) == [.syncChanged(.moveInProgress)])
        #expect(tracker.tick(at: 14) == [.syncChanged(.outOfSync(mismatched: [.a8]))])
    }
}

extension TrackerOutput {
    fileprivate func isIllegal(_ reason: IllegalMove.Reason) -> Bool {
        if case .illegalMove(let illegal) = self { return illegal.reason == reason }
        return false
    }
}
