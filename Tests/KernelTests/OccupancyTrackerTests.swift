import BoardKit
import Chess
import Kernel
import Testing

/// Scripted occupancy-board sequences (lift/place events and occupancy snapshots).
@Suite struct OccupancyTrackerTests {
    /// A tracker that has seen the board's full state (the start position's occupancy), as
    /// every occupancy board's handshake gives it: square changes are relative to it.
    private func tracker(_ fen: String? = nil, options: TrackerOptions = TrackerOptions()) -> GameTracker {
        let start = fen.map(position) ?? .starting
        var tracker = GameTracker(game: Game(startPosition: start), inputPath: .occupancy, options: options)
        let orientation: BoardOrientation = options.orientation == .blackNear ? .blackNear : .whiteNear
        _ = tracker.handle(.occupancy(orientation.map(start.snapshot.occupancy)), at: 0)
        return tracker
    }

    private func committed(_ uci: String, from fen: String, ply: Int = 1, at time: Double) -> TrackerOutput {
        let before = position(fen)
        let move = before.legalMove(uci: uci)!
        return .move(
            CommittedMove(
                move: move, san: before.san(for: move), fen: before.applying(move).fen, ply: ply,
                color: before.sideToMove, timestamp: time))
    }

    /// Plays `steps` one event per second from `start`; returns all outputs.
    private func play(
        _ steps: [Step], on tracker: inout GameTracker, board: inout PhysicalBoard, from start: Double = 1
    ) -> [TrackerOutput] {
        var outputs: [TrackerOutput] = []
        for (index, step) in steps.enumerated() {
            for event in board.perform(step) { outputs += tracker.handle(event, at: start + Double(index)) }
        }
        return outputs
    }

    @Test func liftThenPlaceIsAMove() {
        var tracker = tracker()
        #expect(tracker.handle(.pieceLifted(.g1), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(
            tracker.handle(.piecePlaced(.f3, piece: nil), at: 2)
                == [committed("g1f3", from: Position.starting.fen, at: 2), .syncChanged(.inSync)])
    }

    @Test func adjustingAPieceInPlaceIsNothing() {
        var tracker = tracker()
        #expect(tracker.handle(.pieceLifted(.d1), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.handle(.piecePlaced(.d1, piece: nil), at: 2) == [.syncChanged(.inSync)])
        #expect(tracker.game.moves.isEmpty)
    }

    @Test(arguments: [0, 1])
    func captureInEitherOrderPicksTheTouchedTarget(variant: Int) {
        // The knight on e4 can take on d6 or f6; only d6 is touched.
        let fen = "rnbqkb1r/pppp1ppp/3p1n2/8/4N3/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .occupancy)
        let move = position(fen).legalMove(uci: "e4d6")!
        let outputs = play(steps(for: move, in: position(fen), variant: variant), on: &tracker, board: &board)
        #expect(outputs == [.syncChanged(.moveInProgress), committed("e4d6", from: fen, at: 3), .syncChanged(.inSync)])
    }

    @Test(arguments: [0, 1, 2])
    func castlingInEveryOrder(variant: Int) {
        let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .occupancy)
        let move = position(fen).legalMove(uci: "e8g8")!
        let outputs = play(steps(for: move, in: position(fen), variant: variant), on: &tracker, board: &board)
        #expect(outputs == [.syncChanged(.moveInProgress), committed("e8g8", from: fen, at: 4), .syncChanged(.inSync)])
    }

    @Test(arguments: [0, 1, 2])
    func enPassantInEveryOrder(variant: Int) {
        let fen = "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3"
        var tracker = tracker(fen)
        var board = PhysicalBoard(placement(fen), path: .occupancy)
        let move = position(fen).legalMove(uci: "e4d3")!
        let outputs = play(steps(for: move, in: position(fen), variant: variant), on: &tracker, board: &board)
        #expect(outputs == [.syncChanged(.moveInProgress), committed("e4d3", from: fen, at: 3), .syncChanged(.inSync)])
    }

    private let promotionFEN = "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1"

    @Test func promotionTakesTheBoardsPickAfterTheMove() {
        var tracker = tracker(promotionFEN)
        _ = tracker.handle(.pieceLifted(.b7), at: 1)
        #expect(tracker.handle(.piecePlaced(.b8, piece: nil), at: 2) == [])
        #expect(tracker.nextDeadline == 3)
        #expect(
            tracker.handle(.promotionPicked(.rook), at: 2.5)
                == [committed("b7b8r", from: promotionFEN, at: 2), .syncChanged(.inSync)])
    }

    @Test func promotionFallsBackToTheDefaultAfterTheWait() {
        var tracker = tracker(promotionFEN, options: TrackerOptions(promotionDefault: .knight))
        _ = tracker.handle(.pieceLifted(.b7), at: 1)
        _ = tracker.handle(.piecePlaced(.b8, piece: nil), at: 2)
        // Swapping the pawn for the new piece keeps it waiting.
        #expect(tracker.handle(.pieceLifted(.b8), at: 2.3) == [])
        #expect(tracker.handle(.piecePlaced(.b8, piece: nil), at: 2.6) == [])
        #expect(tracker.tick(at: 2.9) == [])
        #expect(tracker.tick(at: 3) == [committed("b7b8n", from: promotionFEN, at: 2), .syncChanged(.inSync)])
    }

    @Test func promotionCommitsWithTheDefaultWhenTheOpponentMoves() {
        var tracker = tracker(promotionFEN)
        _ = tracker.handle(.pieceLifted(.b7), at: 1)
        _ = tracker.handle(.piecePlaced(.b8, piece: nil), at: 2)
        #expect(tracker.handle(.pieceLifted(.e8), at: 2.2) == [committed("b7b8q", from: promotionFEN, at: 2)])
        let afterFEN = position(promotionFEN).applying(position(promotionFEN).legalMove(uci: "b7b8q")!).fen
        #expect(
            tracker.handle(.piecePlaced(.e7, piece: nil), at: 2.4)
                == [committed("e8e7", from: afterFEN, ply: 2, at: 2.4), .syncChanged(.inSync)])
    }

    @Test func promotionReadsAPlacedPieceTheBoardKnows() {
        var tracker = tracker(promotionFEN, options: TrackerOptions(promotionPickWait: 0))
        _ = tracker.handle(.pieceLifted(.b7), at: 1)
        #expect(
            tracker.handle(.piecePlaced(.b8, piece: Piece(.white, .bishop)), at: 2)
                == [committed("b7b8b", from: promotionFEN, at: 2), .syncChanged(.inSync)])
    }

    @Test func occupancySnapshotsAloneDriveMoves() {
        var tracker = tracker()
        var map = OccupancyMap.startingPosition
        #expect(tracker.handle(.occupancy(map), at: 0) == [])
        map.remove(.d2)
        #expect(tracker.handle(.occupancy(map), at: 1) == [.syncChanged(.moveInProgress)])
        #expect(tracker.handle(.occupancy(map), at: 1.5) == [])
        map.insert(.d4)
        #expect(
            tracker.handle(.occupancy(map), at: 2)
                == [committed("d2d4", from: Position.starting.fen, at: 2), .syncChanged(.inSync)])
    }

    @Test func liftAndPlaceBackOfTheLastMoveIsATakeback() {
        var tracker = tracker()
        _ = tracker.handle(.pieceLifted(.e2), at: 1)
        _ = tracker.handle(.piecePlaced(.e4, piece: nil), at: 2)
        #expect(tracker.handle(.pieceLifted(.e4), at: 3) == [.syncChanged(.moveInProgress)])
        #expect(
            tracker.handle(.piecePlaced(.e2, piece: nil), at: 4)
                == [
                    .takeback(Takeback(plies: 1, undone: ["e2e4"], ply: 0, fen: Position.starting.fen)),
                    .syncChanged(.inSync),
                ])
    }

    @Test func movingTheSamePieceOnCorrectsTheLastMove() {
        var tracker = tracker()
        _ = tracker.handle(.pieceLifted(.g1), at: 1)
        #expect(tracker.handle(.piecePlaced(.f3, piece: nil), at: 2).moves.map(\.uci) == ["g1f3"])
        _ = tracker.handle(.pieceLifted(.f3), at: 3)
        let outputs = tracker.handle(.piecePlaced(.h3, piece: nil), at: 4)
        #expect(
            outputs == [
                .takeback(Takeback(plies: 1, undone: ["g1f3"], ply: 0, fen: Position.starting.fen)),
                committed("g1h3", from: Position.starting.fen, at: 4), .syncChanged(.inSync),
            ])
    }

    @Test func illegalMoveAlerts() {
        // The knight on c3 is pinned by the bishop on b4.
        let fen = "rnbqk1nr/pppp1ppp/8/4p3/1b6/2NP4/PPP1PPPP/R1BQKBNR w KQkq - 0 1"
        var tracker = tracker(fen)
        _ = tracker.handle(.pieceLifted(.c3), at: 1)
        #expect(
            tracker.handle(.piecePlaced(.d5, piece: nil), at: 2)
                == [
                    .illegalMove(
                        IllegalMove(
                            move: BoardMove(from: .c3, to: .d5), reason: .leavesKingInCheck, color: .white, fen: fen)),
                    .syncChanged(.outOfSync(mismatched: [.c3, .d5])),
                ])
        _ = tracker.handle(.pieceLifted(.d5), at: 3)
        #expect(tracker.handle(.piecePlaced(.c3, piece: nil), at: 4) == [.syncChanged(.inSync)])
        #expect(tracker.game.moves.isEmpty)
    }

    @Test func aPieceLeftOnAWrongSquareIsOutOfSyncAfterTheGrace() {
        var tracker = tracker()
        _ = tracker.handle(.pieceLifted(.b8), at: 1)
        _ = tracker.handle(.piecePlaced(.b6, piece: nil), at: 1.5)
        #expect(tracker.nextDeadline == 3)
        #expect(tracker.tick(at: 3) == [.syncChanged(.outOfSync(mismatched: [.b6, .b8]))])
        _ = tracker.handle(.pieceLifted(.b6), at: 4)
        #expect(tracker.handle(.piecePlaced(.b8, piece: nil), at: 5) == [.syncChanged(.inSync)])
    }

    @Test func blackNearIsMappedWhenConfigured() {
        var tracker = tracker(options: TrackerOptions(orientation: .blackNear))
        _ = tracker.handle(.pieceLifted(Square.e2.rotated), at: 1)
        #expect(tracker.handle(.piecePlaced(Square.e4.rotated, piece: nil), at: 2).moves.map(\.uci) == ["e2e4"])
    }

    @Test func hostTakebackWaitsForTheBoard() {
        var tracker = tracker()
        _ = tracker.handle(.pieceLifted(.e2), at: 1)
        _ = tracker.handle(.piecePlaced(.e4, piece: nil), at: 2)
        #expect(tracker.takeBack(at: 3).syncStates == [.moveInProgress])
        #expect(tracker.tick(at: 5) == [.syncChanged(.outOfSync(mismatched: [.e2, .e4]))])
        _ = tracker.handle(.pieceLifted(.e4), at: 6)
        #expect(tracker.handle(.piecePlaced(.e2, piece: nil), at: 7) == [.syncChanged(.inSync)])
        _ = tracker.handle(.pieceLifted(.e2), at: 8)
        #expect(tracker.handle(.piecePlaced(.e4, piece: nil), at: 9).moves.map(\.uci) == ["e2e4"])
    }
}
