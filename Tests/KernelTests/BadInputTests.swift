import BoardKit
import Chess
import Kernel
import Testing

/// Whatever a board sends, the tracker never traps and never commits an illegal move.
@Suite struct BadInputTests {
    private static let kinds: [PieceKind] = [.pawn, .knight, .bishop, .rook, .queen, .king]

    private func randomEvent(_ rng: inout SplitMix64) -> BoardEvent {
        let square = Square(rawValue: Int(rng.next() % 64))!
        switch rng.next() % 7 {
        case 0:
            var snapshot = BoardSnapshot()
            for target in Square.allCases where rng.next() % 2 == 0 {
                snapshot[target] = Piece(
                    rng.next() % 2 == 0 ? .white : .black, Self.kinds[Int(rng.next() % 6)])
            }
            return .pieces(snapshot)
        case 1: return .occupancy(OccupancyMap(bits: rng.next()))
        case 2: return .pieceLifted(square)
        case 3: return .piecePlaced(square, piece: rng.next() % 2 == 0 ? nil : Piece(.white, .queen))
        case 4:
            let to = Square(rawValue: Int(rng.next() % 64))!
            return .moveReported(BoardMove(from: square, to: to, promotion: rng.next() % 3 == 0 ? .knight : nil))
        case 5: return .promotionPicked(Self.kinds[Int(rng.next() % 6)])
        default: return [.connected, .ready, .disconnected(error: "x")][Int(rng.next() % 3)]
        }
    }

    @Test(arguments: TrackerInputPath.allCases)
    func randomEventsNeverTrap(path: TrackerInputPath) {
        var rng = SplitMix64(seed: 0xBAD)
        var tracker = GameTracker(game: Game(), inputPath: path, options: TrackerOptions())
        var time = 0.0
        for _ in 0..<3000 {
            time += Double(rng.next() % 100) / 50
            let outputs = tracker.handle(randomEvent(&rng), at: time) + tracker.tick(at: time)
            for move in outputs.moves { #expect(move.ply <= tracker.game.moves.count) }
            #expect(tracker.game.positions.count == tracker.game.moves.count + 1)
        }
        // The game the tracker holds is a legal game.
        var replay = Game(startPosition: tracker.game.startPosition)
        for record in tracker.game.moves { #expect(throws: Never.self) { try replay.play(record.move) } }
    }

    @Test func hostileTimestampsAreHarmless() {
        var tracker = GameTracker(game: Game(), inputPath: .identity, options: TrackerOptions())
        var board = BoardSnapshot.startingPosition
        board[.a8] = nil
        for time in [Double.nan, -.infinity, .infinity, -1e300, 1e300, 0] {
            _ = tracker.handle(.pieces(board), at: time)
            _ = tracker.tick(at: time)
        }
        var session = GameSession(timeControl: .periods([TimeControlPeriod(seconds: 60)]), inputPath: .reportedMoves)
        for time in [Double.nan, -.infinity, .infinity, 5, 3] {
            _ = session.handle(.moveReported(BoardMove(uci: "e2e4")!), at: time)
            _ = session.tick(at: time)
            _ = session.startClock(at: time)
            _ = session.adjustClock(white: time, black: -time, at: time)
        }
        #expect(session.game.moves.count == 1)
    }
}
