import BoardKit
import Chess
import Kernel
import TestScheduling
import Testing

/// Issue #30 (1): the arbiter resolves moves the board could not tell. The line is taken
/// only when it is legal from the game and leads to what the board senses; its moves are
/// committed in order, marked resolved; anything else is refused and changes nothing.
@Suite(.cpuBound) struct ResolveTests {
    private let options = TrackerOptions(desyncGrace: 2, orientation: .whiteNear)
    /// The line played while the link was down, and the other line that leads to the same
    /// placement (the board cannot tell them apart).
    private let played = ["e2e4", "e7e5", "d2d4"]
    private let other = ["d2d4", "e7e5", "e2e4"]

    private func after(_ moves: [String], from start: Position = .starting) -> Position {
        var position = start
        for uci in moves { position = position.applying(position.legalMove(uci: uci)!) }
        return position
    }

    /// A tracker that saw the start, lost its link while `played` was made, and then saw
    /// the board again: the gap is reported as missed with both candidates.
    private func missedGap(_ path: TrackerInputPath) -> GameTracker {
        var tracker = GameTracker(game: Game(), inputPath: path, options: options)
        _ = tracker.handle(.pieces(Position.starting.snapshot), at: 0)
        _ = tracker.handle(.disconnected(error: "link lost"), at: 1)
        _ = tracker.handle(.connected, at: 10)
        _ = tracker.handle(.pieces(after(played).snapshot), at: 11)
        return tracker
    }

    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func theArbitersLineIsCommittedInOrderAndMarkedResolved(path: TrackerInputPath) throws {
        var tracker = missedGap(path)
        #expect(tracker.syncState.isOutOfSync)
        #expect(Set(tracker.openGap?.candidates ?? []) == Set([played, other]))
        let outputs = try tracker.resolve(played, fromPly: 0, at: 20)
        #expect(outputs.moves.map(\.uci) == played)
        #expect(outputs.moves.map(\.san) == ["e4", "e5", "d4"])
        #expect(outputs.moves.map(\.ply) == [1, 2, 3])
        #expect(outputs.moves.allSatisfy { $0.resolved && !$0.recovered })
        #expect(outputs.syncStates == [.inSync])
        #expect(tracker.openGap == nil)
        #expect(tracker.game.moves.map(\.move.uci) == played)
        // Play goes on from there as usual.
        let next = after(played + ["g8f6"])
        let move = tracker.handle(.pieces(next.snapshot), at: 21).moves
        #expect(move.map(\.uci) == ["g8f6"])
        #expect(move.map(\.ply) == [4])
        #expect(move.allSatisfy { !$0.resolved })
    }

    @Test func movesMayBeGivenInSAN() throws {
        var tracker = missedGap(.identity)
        let outputs = try tracker.resolve(["d4", "e5", "e4"], at: 20)
        #expect(outputs.moves.map(\.uci) == other)
        #expect(tracker.syncState == .inSync)
    }

    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func aLineThatLeadsElsewhereIsRefusedAndChangesNothing(path: TrackerInputPath) {
        var tracker = missedGap(path)
        let before = (tracker.game, tracker.syncState, tracker.openGap)
        #expect(throws: ResolutionRefusal.self) { try tracker.resolve(["e2e4", "e7e5"], at: 20) }
        do {
            _ = try tracker.resolve(["e2e4", "e7e5", "g1f3"], at: 20)
        } catch {
            guard case .boardDiffers(let squares, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(squares == [.g1, .d2, .f3, .d4])
        }
        #expect(tracker.game == before.0)
        #expect(tracker.syncState == before.1)
        #expect(tracker.openGap == before.2)
    }

    @Test func anIllegalMoveIsNamedWithItsNumberAndPosition() {
        var tracker = missedGap(.identity)
        #expect(throws: ResolutionRefusal.illegalMove(index: 2, move: "e2e4", fen: after(["e2e4"]).fen)) {
            try tracker.resolve(["e2e4", "e2e4", "d2d4"], at: 20)
        }
        #expect(throws: ResolutionRefusal.illegalMove(index: 1, move: "Ke2", fen: Position.starting.fen)) {
            try tracker.resolve(["Ke2"], at: 20)
        }
        #expect(tracker.game.moves.isEmpty)
    }

    @Test func aResolutionChosenForAnotherPlyIsStale() {
        var tracker = missedGap(.identity)
        #expect(throws: ResolutionRefusal.stale(expectedPly: 2, ply: 0)) {
            try tracker.resolve(played, fromPly: 2, at: 20)
        }
        #expect(tracker.game.moves.isEmpty)
    }

    @Test func aBoardThatShowedNothingSinceItsLinkCameUpCannotConfirmALine() {
        var tracker = GameTracker(game: Game(), inputPath: .identity, options: options)
        _ = tracker.handle(.pieces(Position.starting.snapshot), at: 0)
        _ = tracker.handle(.disconnected(error: "link lost"), at: 1)
        _ = tracker.handle(.connected, at: 10)
        #expect(throws: ResolutionRefusal.boardUnknown) { try tracker.resolve(played, at: 20) }
        #expect(throws: ResolutionRefusal.noMoves) { try tracker.resolve([], at: 20) }
    }

    @Test func aFinishedGameTakesNoResolution() {
        var tracker = missedGap(.identity)
        _ = tracker.endGame(GameEnd(result: .draw, reason: .agreement))
        #expect(throws: ResolutionRefusal.gameOver(.draw)) { try tracker.resolve(played, at: 20) }
    }

    @Test func theResolvedMovesRunTheClockForTheSideToMove() throws {
        var session = GameSession(timeControl: try TimeControl(pgn: "300"), inputPath: .identity, options: options)
        _ = session.handle(.connected, at: 0)
        _ = session.handle(.ready, at: 0)
        _ = session.handle(.pieces(Position.starting.snapshot), at: 0)
        _ = session.handle(.disconnected(error: "link lost"), at: 1)
        _ = session.handle(.connected, at: 10)
        _ = session.handle(.ready, at: 10)
        _ = session.handle(.pieces(after(played).snapshot), at: 11)
        #expect(session.syncState.isOutOfSync)
        let outputs = try session.resolve(played, fromPly: 0, at: 30)
        let moves = outputs.compactMap { output -> CommittedMove? in
            if case .tracker(.move(let move)) = output { return move }
            return nil
        }
        #expect(moves.map(\.uci) == played)
        #expect(moves.allSatisfy { $0.clock != nil })
        #expect(session.game.moves.allSatisfy { $0.clock != nil })
        #expect(session.clock.state == .running(.black))
    }

    /// Property: after any gap of 2–4 plies the board cannot tell, the true line is taken
    /// and leaves the game exactly as played; the same line less its last move is refused.
    @Test func theTrueLineIsAlwaysTakenAndAShorterOneNever() throws {
        var resolved = 0
        for seed in UInt64(1)...40 {
            let game = randomGame(seed: seed &* 7919, maxPlies: 40)
            guard game.count >= 12 else { continue }
            let start = Int(seed % 8)
            let length = 2 + Int(seed % 3)
            let path: TrackerInputPath = seed % 2 == 0 ? .identity : .occupancy
            var tracker = GameTracker(game: Game(), inputPath: path, options: options)
            var position = Position.starting
            _ = tracker.handle(.pieces(position.snapshot), at: 0)
            for (index, move) in game.prefix(start).enumerated() {
                position = position.applying(move)
                _ = tracker.handle(.pieces(position.snapshot), at: Double(index + 1))
            }
            guard tracker.game.moves.count == start, tracker.syncState == .inSync else { continue }
            _ = tracker.handle(.disconnected(error: "link lost"), at: 100)
            _ = tracker.handle(.connected, at: 101)
            let gap = Array(game[start..<start + length])
            for move in gap { position = position.applying(move) }
            _ = tracker.handle(.pieces(position.snapshot), at: 102)
            guard tracker.openGap != nil else { continue }
            var shorter = tracker
            if length > 1, after(gap.dropLast().map(\.uci), from: tracker.position).snapshot != position.snapshot {
                #expect(throws: ResolutionRefusal.self) { try shorter.resolve(gap.dropLast().map(\.uci), at: 103) }
                #expect(shorter.game == tracker.game)
            }
            let outputs = try tracker.resolve(gap.map(\.uci), fromPly: start, at: 103)
            #expect(outputs.moves.map(\.move) == gap, "seed \(seed)")
            #expect(tracker.syncState == .inSync, "seed \(seed)")
            #expect(tracker.position == position, "seed \(seed)")
            resolved += 1
        }
        #expect(resolved >= 8, "only \(resolved) gaps were missed and resolved")
    }
}
