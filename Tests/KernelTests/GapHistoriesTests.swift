import BoardKit
import Chess
import Kernel
import TestScheduling
import Testing

/// A gap several lines explain is followed through the moves after it (``GapHistories``):
/// the moves are published the moment one history is left, in order, marked recovered, at
/// the times they were seen; histories no later move can tell apart stay the arbiter's,
/// each shown leading to the board as it is now.
@Suite(.cpuBound) struct GapHistoriesTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)

    private func missed(_ outputs: [TrackerOutput]) -> [MissedMoves] {
        outputs.compactMap {
            if case .missedMoves(let missed) = $0 { return missed }
            return nil
        }
    }

    /// A piece board that saw the start, lost its link while `1. e4 e5 2. Nf3` was played
    /// (or `1. Nf3 e5 2. e4`: the board cannot tell), and got it back at 8 s; the position.
    private func transposedGap() -> (GameTracker, Position) {
        var tracker = GameTracker(game: Game(), inputPath: .identity, options: options)
        _ = tracker.handle(.pieces(Position.starting.snapshot), at: 0)
        _ = tracker.handle(.disconnected(error: "link lost"), at: 1)
        var position = Position.starting
        for uci in ["e2e4", "e7e5", "g1f3"] { position = position.applying(position.legalMove(uci: uci)!) }
        _ = tracker.handle(.connected, at: 8)
        return (tracker, position)
    }

    /// Plays `uci` on `board` (occupancy events), feeding each event to `tracker` a tenth of a
    /// second apart from `time`.
    private func play(
        _ uci: String, on board: inout PhysicalBoard, position: inout Position, tracker: inout GameTracker,
        time: inout Double
    ) -> [TrackerOutput] {
        let move = position.legalMove(uci: uci)!
        var outputs: [TrackerOutput] = []
        for step in steps(for: move, in: position, variant: 0) {
            for event in board.perform(step) {
                time += 0.1
                outputs += tracker.handle(event, at: time)
            }
        }
        position = position.applying(move)
        return outputs
    }

    /// A pawn promoted while the link was down: on an occupancy board a queen, rook, bishop
    /// or knight fill the same squares. The promoted piece's next moves tell them apart: a
    /// diagonal leaves queen and bishop, a file the queen. Then the five moves come out at
    /// once, in order, recovered, at the times they were seen, and the board is in sync.
    @Test func anOccupancyPromotionIsToldByTheMovesAfterIt() throws {
        let start = try Position(fen: "8/1P6/8/8/8/8/8/k6K w - - 0 1")
        var tracker = GameTracker(game: Game(startPosition: start), inputPath: .occupancy, options: options)
        var board = PhysicalBoard(start.snapshot, path: .occupancy)
        _ = tracker.handle(.occupancy(board.board.occupancy), at: 0)
        _ = tracker.handle(.disconnected(error: "link lost"), at: 1)
        var position = start
        var time = 5.0
        let promotion = position.legalMove(uci: "b7b8q")!
        for step in steps(for: promotion, in: position, variant: 0) { _ = board.perform(step) }
        position = position.applying(promotion)
        _ = tracker.handle(.connected, at: time)
        var outputs = tracker.handle(.occupancy(board.board.occupancy), at: time)
        #expect(outputs.moves.isEmpty)
        #expect(tracker.syncState.isOutOfSync)
        #expect(Set(missed(outputs).last?.candidates ?? []) == [["b7b8q"], ["b7b8r"], ["b7b8b"], ["b7b8n"]])

        outputs = play("a1a2", on: &board, position: &position, tracker: &tracker, time: &time)
        #expect(outputs.moves.isEmpty)
        #expect(missed(outputs).last?.candidates.count == 4)
        time += 2
        outputs = play("b8h2", on: &board, position: &position, tracker: &tracker, time: &time)
        #expect(outputs.moves.isEmpty)
        #expect(
            Set(missed(outputs).last?.candidates ?? []) == [["b7b8q", "a1a2", "b8h2"], ["b7b8b", "a1a2", "b8h2"]])
        outputs = play("a2a3", on: &board, position: &position, tracker: &tracker, time: &time)
        #expect(outputs.moves.isEmpty)
        let seen = time
        outputs = play("h2h8", on: &board, position: &position, tracker: &tracker, time: &time)
        #expect(outputs.moves.map(\.uci) == ["b7b8q", "a1a2", "b8h2", "a2a3", "h2h8"])
        #expect(outputs.moves.map(\.ply) == [1, 2, 3, 4, 5])
        #expect(outputs.moves.allSatisfy { $0.recovered })
        #expect(outputs.moves.first?.timestamp == 5)
        #expect(outputs.moves.last.map { $0.timestamp > seen && $0.timestamp <= time } == true)
        #expect(tracker.syncState == .inSync)
        #expect(tracker.openGap == nil)
        #expect(tracker.position == position)
    }

    /// A transposed gap on a piece board (`e4 … Nf3` or `Nf3 … e4`): no later move tells the
    /// orders apart, so nothing is published, but the lines shown to the arbiter follow the
    /// play and always lead to the board as it is; the arbiter's choice puts every move in.
    @Test func transposedLinesFollowThePlayUntilTheArbiterChooses() throws {
        var (tracker, position) = transposedGap()
        var outputs = tracker.handle(.pieces(position.snapshot), at: 8)
        #expect(Set(missed(outputs).last?.candidates ?? []) == [["e2e4", "e7e5", "g1f3"], ["g1f3", "e7e5", "e2e4"]])
        var board = PhysicalBoard(position.snapshot, path: .identity)
        var time = 9.0
        for uci in ["b8c6", "f1b5"] {
            let move = position.legalMove(uci: uci)!
            for step in steps(for: move, in: position, variant: 0) {
                for event in board.perform(step) {
                    time += 0.2
                    outputs = tracker.handle(event, at: time)
                    #expect(outputs.moves.isEmpty)
                }
            }
            position = position.applying(move)
        }
        let lines = tracker.openGap?.candidates ?? []
        #expect(
            Set(lines) == [
                ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], ["g1f3", "e7e5", "e2e4", "b8c6", "f1b5"],
            ])
        #expect(tracker.syncState.isOutOfSync)
        let resolved = try tracker.resolve(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], fromPly: 0, at: time)
        #expect(resolved.moves.map(\.san) == ["e4", "e5", "Nf3", "Nc6", "Bb5"])
        #expect(tracker.syncState == .inSync)
    }

    /// The link drops again while transposed lines are followed, and three more plies are
    /// made: each line is carried across the new gap (its own orders included), every one
    /// leading to the board now, and the arbiter's choice still takes the whole game.
    @Test func theLinesCrossASecondGap() throws {
        var (tracker, position) = transposedGap()
        _ = tracker.handle(.pieces(position.snapshot), at: 8)
        _ = tracker.handle(.disconnected(error: "link lost"), at: 9)
        for uci in ["b8c6", "f1b5", "a7a6"] { position = position.applying(position.legalMove(uci: uci)!) }
        _ = tracker.handle(.connected, at: 20)
        let outputs = tracker.handle(.pieces(position.snapshot), at: 20)
        #expect(outputs.moves.isEmpty)
        let lines = tracker.openGap?.candidates ?? []
        #expect(lines.count == 4)
        #expect(lines.contains(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]))
        #expect(lines.contains(["g1f3", "e7e5", "e2e4", "a7a6", "f1b5", "b8c6"]))
        let resolved = try tracker.resolve(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"], fromPly: 0, at: 21)
        #expect(resolved.moves.map(\.san) == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"])
        #expect(tracker.syncState == .inSync)
    }

    /// A board no history explains (a piece in the hand, a knock) changes nothing: the
    /// histories wait for a board they explain.
    @Test func aBoardNoHistoryExplainsChangesNothing() throws {
        var (tracker, position) = transposedGap()
        _ = tracker.handle(.pieces(position.snapshot), at: 8)
        let before = tracker.openGap
        var knocked = position.snapshot
        knocked[.a2] = nil
        knocked[.h7] = nil
        knocked[.d1] = nil
        #expect(tracker.handle(.pieces(knocked), at: 9).moves.isEmpty)
        #expect(tracker.openGap == before)
        #expect(tracker.handle(.pieces(position.snapshot), at: 10).moves.isEmpty)
        #expect(tracker.openGap == before)
    }
}
