import BoardKit
import Chess
import Kernel
import Testing

/// Issue #30 (4): a board that reports its moves (ChessUp) and streams what its sensors see.
/// Its engine refuses an illegal move and reports nothing, so only the occupancy shows one:
/// it is named as an illegal move, the board is out of sync until the piece goes back, and
/// the board's own game (its state frames) never makes it read `in_sync` meanwhile.
@Suite struct ReportedMoveSensingTests {
    /// The position after 1. e4 e5 and the occupancy the board senses there.
    private static let afterE4E5 = Position.starting.applying(uci: ["e2e4", "e7e5"])

    private func tracker(_ start: Position = afterE4E5) -> GameTracker {
        GameTracker(game: Game(startPosition: start), inputPath: .reportedMoves)
    }

    /// Feeds the occupancy after lifting `from` and after placing on `to`, one after the
    /// other, from what `position` shows (the placed piece lands where it is put, a
    /// piece on `to` having been lifted first when `captures`).
    private func relocate(
        _ tracker: inout GameTracker, in position: Position, from: Square, to: Square, captures: Bool = false,
        at time: Double
    ) -> [TrackerOutput] {
        relocate(&tracker, on: position.snapshot.occupancy, from: from, to: to, captures: captures, at: time)
    }

    private func relocate(
        _ tracker: inout GameTracker, on occupancy: OccupancyMap, from: Square, to: Square, captures: Bool = false,
        at time: Double
    ) -> [TrackerOutput] {
        var map = occupancy
        var outputs: [TrackerOutput] = []
        if captures {
            map.remove(to)
            outputs += tracker.handle(.occupancy(map), at: time)
        }
        map.remove(from)
        outputs += tracker.handle(.occupancy(map), at: time + 0.1)
        map.insert(to)
        outputs += tracker.handle(.occupancy(map), at: time + 0.2)
        return outputs
    }

    private func illegal(_ outputs: [TrackerOutput]) -> [IllegalMove] {
        outputs.compactMap { if case .illegalMove(let record) = $0 { record } else { nil } }
    }

    @Test func aBishopMovedLikeARookIsAnIllegalMoveUntilItGoesBack() {
        let position = Self.afterE4E5
        var tracker = tracker()
        #expect(tracker.handle(.occupancy(position.snapshot.occupancy), at: 0) == [])
        let outputs = relocate(&tracker, in: position, from: .f1, to: .f3, at: 1)
        #expect(
            illegal(outputs) == [
                IllegalMove(move: BoardMove(from: .f1, to: .f3), reason: .notAMove, color: .white, fen: position.fen)
            ])
        #expect(tracker.syncState == .outOfSync(mismatched: [.f1, .f3]))
        // The board's own game, in a state frame, still shows the bishop home: the squares
        // do not, so the state stays.
        _ = tracker.handle(
            .gameState(position.snapshot, sideToMove: .white, fullmoveNumber: 2), at: 1.5)
        _ = tracker.handle(.pieces(position.snapshot), at: 1.5)
        #expect(tracker.syncState == .outOfSync(mismatched: [.f1, .f3]))
        #expect(tracker.tick(at: 10).isEmpty)
        // The bishop goes back: in sync; the game goes on by the board's reports.
        var shown = position.snapshot.occupancy
        shown.remove(.f1)
        shown.insert(.f3)
        _ = relocate(&tracker, on: shown, from: .f3, to: .f1, at: 11)
        #expect(tracker.syncState == .inSync)
        _ = tracker.handle(.moveReported(BoardMove(uci: "g1f3")!), at: 12)
        #expect(tracker.game.moves.map(\.move.uci) == ["g1f3"])
        #expect(tracker.syncState == .inSync)
    }

    @Test func aPinnedKnightMovedIsAMoveIntoCheck() {
        // 1. e4 d6 2. Bb5+ Nc6 3. Nf3: the knight on c6 is pinned.
        let position = Position.starting.applying(uci: ["e2e4", "d7d6", "f1b5", "b8c6", "g1f3"])
        var tracker = tracker(position)
        _ = tracker.handle(.occupancy(position.snapshot.occupancy), at: 0)
        let outputs = relocate(&tracker, in: position, from: .c6, to: .e5, at: 1)
        #expect(
            illegal(outputs) == [
                IllegalMove(
                    move: BoardMove(from: .c6, to: .e5), reason: .leavesKingInCheck, color: .black, fen: position.fen)
            ])
        #expect(tracker.syncState == .outOfSync(mismatched: [.e5, .c6]))
    }

    @Test func anIllegalCaptureIsNamedToo() {
        // 1. e4 d5: the bishop on f1 "takes" d5 like a rook would not, a queen would.
        let position = Position.starting.applying(uci: ["e2e4", "d7d5"])
        var tracker = tracker(position)
        _ = tracker.handle(.occupancy(position.snapshot.occupancy), at: 0)
        let outputs = relocate(&tracker, in: position, from: .f1, to: .d5, captures: true, at: 1)
        #expect(illegal(outputs).map(\.move) == [BoardMove(from: .f1, to: .d5)])
        #expect(tracker.syncState.isOutOfSync)
    }

    @Test func aLegalMoveWaitsForTheBoardsReportAndIsNoIllegalMove() {
        let position = Self.afterE4E5
        var tracker = tracker()
        _ = tracker.handle(.occupancy(position.snapshot.occupancy), at: 0)
        let outputs = relocate(&tracker, in: position, from: .f1, to: .c4, at: 1)
        #expect(illegal(outputs).isEmpty)
        #expect(tracker.syncState == .moveInProgress)
        _ = tracker.handle(.moveReported(BoardMove(uci: "f1c4")!), at: 2)
        #expect(tracker.game.moves.map(\.move.uci) == ["f1c4"])
        #expect(tracker.syncState == .inSync)
    }

    /// The rook knocked off a1 (it has no move to be half of).
    @Test func aKnockedPieceIsOutOfSyncAfterTheGraceAndNeverInSync() {
        let position = Self.afterE4E5
        var tracker = tracker()
        _ = tracker.handle(.occupancy(position.snapshot.occupancy), at: 0)
        var map = position.snapshot.occupancy
        map.remove(.a1)
        let outputs = tracker.handle(.occupancy(map), at: 1)
        #expect(illegal(outputs).isEmpty)
        _ = tracker.tick(at: 10)
        #expect(tracker.syncState == .outOfSync(mismatched: [.a1]))
        _ = tracker.handle(.gameState(position.snapshot, sideToMove: .white, fullmoveNumber: 2), at: 11)
        _ = tracker.handle(.pieces(position.snapshot), at: 11)
        #expect(tracker.syncState == .outOfSync(mismatched: [.a1]))
    }

    /// Without the sensors' stream (a board whose firmware does not send it), the state
    /// frames' pieces still feed the sync state, as before.
    @Test func withoutTheStreamTheStateFramesStillJudge() {
        let position = Self.afterE4E5
        var tracker = tracker()
        var moved = position.snapshot
        moved[.a1] = nil
        _ = tracker.handle(.gameState(moved, sideToMove: .white, fullmoveNumber: 2), at: 1)
        _ = tracker.handle(.pieces(moved), at: 1)
        _ = tracker.tick(at: 10)
        #expect(tracker.syncState.isOutOfSync)
    }
}

extension Position {
    /// This position after the moves, in UCI.
    fileprivate func applying(uci moves: [String]) -> Position {
        moves.reduce(self) { position, uci in position.applying(position.legalMove(uci: uci)!) }
    }
}
