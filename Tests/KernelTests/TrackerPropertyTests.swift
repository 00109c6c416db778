import BoardKit
import Chess
import Kernel
import TestScheduling
import Testing

/// Random legal games (fixed seeds) replayed through each input path.
@Suite(.cpuBound) struct TrackerPropertyTests {
    static let gameCount = 200
    static let games: [[Move]] = (0..<gameCount).map { randomGame(seed: 0xB0A2D + UInt64($0)) }

    @Test func corpusHasTheSpecialMoves() {
        var castlings = 0
        var enPassants = 0
        var promotions = 0
        for moves in Self.games {
            var game = Game()
            for move in moves {
                let position = game.position
                if move.promotion != nil {
                    promotions += 1
                } else if isSpecial(move, in: position) {
                    if position[move.from]?.kind == .king { castlings += 1 } else { enPassants += 1 }
                }
                try? game.play(move)
            }
        }
        #expect(castlings >= 100)
        #expect(enPassants >= 50)
        #expect(promotions >= 100)
    }

    @Test func identitySnapshotsRecoverEveryMove() {
        for (index, moves) in Self.games.enumerated() {
            var rng = SplitMix64(seed: UInt64(index))
            let orientation: BoardOrientation = index % 4 == 3 ? .blackNear : .whiteNear
            var tracker = GameTracker(capabilities: [.pieceIdentity])
            var board = PhysicalBoard(path: .identity, orientation: orientation)
            var time = 0.0
            var outputs = tracker.handle(board.snapshotEvent, at: time)
            var reference = Game()
            for move in moves {
                for step in steps(for: move, in: reference.position, variant: Int(rng.next() % 8)) {
                    for event in board.perform(step) {
                        time += 0.1
                        outputs += tracker.handle(event, at: time)
                        if rng.next() % 3 == 0 { outputs += tracker.handle(event, at: time + 0.05) }
                    }
                }
                try? reference.play(move)
                time += 0.2
            }
            outputs += tracker.tick(at: time + 10)
            check(tracker, reference, outputs, game: index)
            #expect(outputs.contains(.orientationDetected(orientation)))
        }
    }

    @Test func liftAndPlaceEventsRecoverEveryMove() {
        for (index, moves) in Self.games.enumerated() {
            var rng = SplitMix64(seed: UInt64(index) &+ 7)
            let orientation: BoardOrientation = index % 4 == 1 ? .blackNear : .whiteNear
            let options = TrackerOptions(orientation: orientation == .blackNear ? .blackNear : .auto)
            var tracker = GameTracker(capabilities: [.occupancySensing], options: options)
            var board = PhysicalBoard(path: .occupancy, orientation: orientation)
            var time = 0.0
            // The board's full state first, as every occupancy board's handshake asks for:
            // square changes are relative to it (issue #29).
            var outputs = tracker.handle(.occupancy(orientation.map(board.board.occupancy)), at: time)
            var reference = Game()
            for move in moves {
                var plan = steps(for: move, in: reference.position, variant: Int(rng.next() % 8))
                if move.promotion == .queen, rng.next() % 2 == 0 { plan.removeAll { $0 == .pick(.queen) } }
                for step in plan {
                    for event in board.perform(step) {
                        time += 0.1
                        outputs += tracker.handle(event, at: time)
                        if rng.next() % 4 == 0 {
                            // Square Off style: an occupancy snapshot confirms each event.
                            outputs += tracker.handle(.occupancy(orientation.map(board.board.occupancy)), at: time)
                        }
                    }
                }
                try? reference.play(move)
                time += 0.2
            }
            outputs += tracker.tick(at: time + 10)
            check(tracker, reference, outputs, game: index)
        }
    }

    @Test func reportedMovesRecoverEveryMove() {
        for (index, moves) in Self.games.enumerated() {
            var rng = SplitMix64(seed: UInt64(index) &+ 13)
            var tracker = GameTracker(capabilities: [.occupancySensing, .reportsMoves])
            var time = 0.0
            var outputs: [TrackerOutput] = []
            var reference = Game()
            for move in moves {
                var reported = move
                let mover = reference.position[move.from]
                if mover?.kind == .king, abs(move.to.file - move.from.file) == 2, rng.next() % 2 == 0 {
                    // King takes own rook.
                    reported.to = Square(file: move.to.file > move.from.file ? 7 : 0, rank: move.from.rank)!
                }
                var events: [BoardEvent] = []
                if let promotion = move.promotion, rng.next() % 2 == 0 {
                    reported.promotion = nil
                    events = [.moveReported(reported), .promotionPicked(promotion)]
                } else {
                    events = [.moveReported(reported)]
                }
                for event in events {
                    time += 0.1
                    outputs += tracker.handle(event, at: time)
                }
                try? reference.play(move)
                time += 0.5
            }
            outputs += tracker.tick(at: time + 10)
            check(tracker, reference, outputs, game: index)
        }
    }

    private func check(_ tracker: GameTracker, _ reference: Game, _ outputs: [TrackerOutput], game: Int) {
        #expect(tracker.game.moves.map(\.move) == reference.moves.map(\.move), "game \(game)")
        #expect(tracker.position.fen == reference.position.fen, "game \(game)")
        #expect(outputs.moves.map(\.move) == reference.moves.map(\.move), "game \(game)")
        #expect(outputs.moves.map(\.san) == reference.moves.map(\.san), "game \(game)")
        #expect(outputs.moves.map(\.ply) == Array(0..<reference.moves.count).map { $0 + 1 }, "game \(game)")
        #expect(!outputs.syncStates.contains { $0.isOutOfSync }, "game \(game)")
        #expect(tracker.syncState == .inSync, "game \(game)")
        for output in outputs {
            switch output {
            case .takeback, .illegalMove, .newGame:
                Issue.record("game \(game): unexpected \(output)")
            default: break
            }
        }
        if reference.result != .ongoing {
            #expect(outputs.contains { if case .gameEnded = $0 { true } else { false } }, "game \(game)")
        }
    }
}
