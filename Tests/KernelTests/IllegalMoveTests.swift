import BoardKit
import Chess
import Kernel
import Testing

/// Every kind of illegal move a board can show (a completed placement that one piece move
/// explains but no legal move does) is an `illegalMove` at once, on both paths that see
/// pieces; knocks and half-finished moves are not.
@Suite struct IllegalMoveTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)
    /// 1. e4 e5.
    private let openGame = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    /// White may not castle king side: the rook on f2 covers f1.
    private let coveredF1 = "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"
    /// The d-file is Black's: Kd1 walks into check.
    private let dFile = "4k3/3r4/8/8/8/8/8/4K3 w - - 0 1"

    private func start(_ fen: String, path: TrackerInputPath) -> (GameTracker, PhysicalBoard) {
        var tracker = GameTracker(game: Game(startPosition: position(fen)), inputPath: path, options: options)
        let board = PhysicalBoard(placement(fen), path: path)
        _ = tracker.handle(board.snapshotEvent, at: 0)
        return (tracker, board)
    }

    /// Performs `steps`, one a second from t = 1; returns every output.
    private func perform(
        _ steps: [Step], on tracker: inout GameTracker, board: inout PhysicalBoard
    ) -> [TrackerOutput] {
        var outputs: [TrackerOutput] = []
        for (index, step) in steps.enumerated() {
            for event in board.perform(step) { outputs += tracker.handle(event, at: Double(index + 1)) }
        }
        return outputs
    }

    private func illegal(_ outputs: [TrackerOutput]) -> [IllegalMove] {
        outputs.compactMap {
            if case .illegalMove(let illegal) = $0 { return illegal }
            return nil
        }
    }

    private static let paths: [TrackerInputPath] = [.identity, .occupancy]

    @Test(arguments: paths)
    func bishopMovedTheWrongWay(path: TrackerInputPath) {
        var (tracker, board) = start(openGame, path: path)
        let outputs = perform([.lift(.f1), .place(Piece(.white, .bishop), .f4)], on: &tracker, board: &board)
        #expect(
            illegal(outputs) == [
                IllegalMove(move: BoardMove(from: .f1, to: .f4), reason: .notAMove, color: .white, fen: openGame)
            ])
        #expect(outputs.last == .syncChanged(.outOfSync(mismatched: [.f1, .f4])))
        #expect(tracker.game.moves.isEmpty)
        // Put back: in sync, no second alert.
        let back = perform([.lift(.f4), .place(Piece(.white, .bishop), .f1)], on: &tracker, board: &board)
        #expect(illegal(back).isEmpty)
        #expect(tracker.syncState == .inSync)
    }

    @Test(arguments: paths)
    func bishopCapturingTheWrongWay(path: TrackerInputPath) {
        var (tracker, board) = start(openGame, path: path)
        // Bf1 "takes" the pawn on e5: the captured pawn lifted, the bishop put there.
        let outputs = perform(
            [.lift(.f1), .lift(.e5), .place(Piece(.white, .bishop), .e5)], on: &tracker, board: &board)
        #expect(
            illegal(outputs) == [
                IllegalMove(move: BoardMove(from: .f1, to: .e5), reason: .notAMove, color: .white, fen: openGame)
            ])
        #expect(tracker.syncState.isOutOfSync)
        #expect(tracker.game.moves.isEmpty)
    }

    @Test(arguments: paths)
    func kingMovedIntoCheck(path: TrackerInputPath) {
        var (tracker, board) = start(dFile, path: path)
        let outputs = perform([.lift(.e1), .place(Piece(.white, .king), .d1)], on: &tracker, board: &board)
        #expect(
            illegal(outputs) == [
                IllegalMove(move: BoardMove(from: .e1, to: .d1), reason: .leavesKingInCheck, color: .white, fen: dFile)
            ])
        #expect(tracker.syncState.isOutOfSync)
    }

    @Test(arguments: paths)
    func castlingThroughCheckIsOneAlert(path: TrackerInputPath) {
        var (tracker, board) = start(coveredF1, path: path)
        let outputs = perform(
            [.lift(.e1), .place(Piece(.white, .king), .g1), .lift(.h1), .place(Piece(.white, .rook), .f1)],
            on: &tracker, board: &board)
        #expect(
            illegal(outputs) == [
                IllegalMove(
                    move: BoardMove(from: .e1, to: .g1), reason: .castlingNotAllowed, color: .white, fen: coveredF1)
            ])
        #expect(tracker.syncState.isOutOfSync)
        #expect(tracker.game.moves.isEmpty)
    }

    @Test(arguments: paths)
    func aPieceOfTheSideNotToMovePlayedOutOfTurn(path: TrackerInputPath) {
        var (tracker, board) = start(Position.starting.fen, path: path)
        let outputs = perform([.lift(.b8), .place(Piece(.black, .knight), .c6)], on: &tracker, board: &board)
        #expect(
            illegal(outputs) == [
                IllegalMove(
                    move: BoardMove(from: .b8, to: .c6), reason: .wrongColor, color: .white, fen: Position.starting.fen)
            ])
        #expect(tracker.syncState.isOutOfSync)
    }

    @Test(arguments: paths)
    func aKnockedPieceIsNoIllegalMove(path: TrackerInputPath) {
        var (tracker, board) = start(openGame, path: path)
        // Black's king pushed two squares forward (no move of its own), Black's rook knocked off.
        var outputs = perform([.lift(.e8), .place(Piece(.black, .king), .e6)], on: &tracker, board: &board)
        outputs += tracker.tick(at: 10)
        #expect(illegal(outputs).isEmpty)
        #expect(tracker.syncState == .outOfSync(mismatched: [.e6, .e8]))
        outputs = perform([.lift(.e6), .place(Piece(.black, .king), .e8), .lift(.h8)], on: &tracker, board: &board)
        outputs += tracker.tick(at: 20)
        #expect(illegal(outputs).isEmpty)
        #expect(tracker.syncState == .outOfSync(mismatched: [.h8]))
    }

    @Test(arguments: paths)
    func aHalfFinishedMoveIsNoIllegalMove(path: TrackerInputPath) {
        var (tracker, board) = start(openGame, path: path)
        // The bishop in the hand.
        let outputs = perform([.lift(.f1)], on: &tracker, board: &board)
        #expect(outputs == [.syncChanged(.moveInProgress)])
        #expect(tracker.tick(at: 30) == [])
        // Then put on a square it reaches: the move.
        let move = perform([.place(Piece(.white, .bishop), .c4)], on: &tracker, board: &board)
        #expect(illegal(move).isEmpty)
        #expect(tracker.game.moves.map(\.move.uci) == ["f1c4"])
    }
}
