import BoardKit
import Chess
import Kernel
import TestScheduling
import Testing

/// The property-test games again, through a whole session, with disturbances injected
/// every few plies: each must give out-of-sync (after the grace, with the clock paused
/// and one alert), then in-sync with the clock resumed for the side to move.
@Suite(.cpuBound) struct DisturbancePropertyTests {
    @Test(arguments: [TrackerInputPath.identity, .occupancy])
    func disturbancesPauseAndResumeTheClock(path: TrackerInputPath) throws {
        var totalDisturbances = 0
        for (index, moves) in TrackerPropertyTests.games.enumerated() {
            var rng = SplitMix64(seed: UInt64(index) &+ 99)
            var session = GameSession(
                timeControl: try TimeControl(pgn: "900+5"), inputPath: path,
                options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
            var board = PhysicalBoard(path: path)
            var time = 0.0
            var outputs = session.handle(board.snapshotEvent, at: time)
            var reference = Game()
            for (ply, move) in moves.enumerated() {
                var moveMadeDuringDesync = false
                if ply >= 2, ply % 9 == 0, let disturbance = pickDisturbance(in: reference, before: move, rng: &rng) {
                    totalDisturbances += 1
                    let (square, piece, target) = disturbance
                    var events = board.perform(.lift(square))
                    if let target { events += board.perform(.place(piece, target)) }
                    for event in events {
                        time += 0.1
                        outputs += session.handle(event, at: time)
                    }
                    time += 2.5
                    let expired = session.tick(at: time)
                    let mismatch = [square, target].compactMap { $0 }.sorted()
                    #expect(
                        expired.first == .tracker(.syncChanged(.outOfSync(mismatched: mismatch))),
                        "game \(index) ply \(ply)")
                    #expect(expired.clockUpdates.map(\.action) == [.pause], "game \(index) ply \(ply)")
                    #expect(expired.contains(.alert(mismatched: mismatch)), "game \(index) ply \(ply)")
                    if rng.next() % 3 == 0 {
                        // The side to move moves while the board is out of sync.
                        moveMadeDuringDesync = true
                        for step in steps(for: move, in: reference.position, variant: Int(rng.next() % 8)) {
                            for event in board.perform(step) {
                                time += 0.1
                                let during = session.handle(event, at: time)
                                #expect(during.trackerMoves.isEmpty, "game \(index) ply \(ply)")
                                #expect(during.clockUpdates.isEmpty, "game \(index) ply \(ply)")
                            }
                        }
                        try? reference.play(move)
                    }
                    var restore: [BoardEvent] = []
                    if let target { restore += board.perform(.lift(target)) }
                    restore += board.perform(.place(piece, square))
                    var back: [SessionOutput] = []
                    for event in restore {
                        time += 0.1
                        back += session.handle(event, at: time)
                    }
                    #expect(
                        back.last
                            == .clock(
                                ClockUpdate(
                                    action: .resume(reference.position.sideToMove), cause: .gate,
                                    white: session.clock.remaining(for: .white, at: time),
                                    black: session.clock.remaining(for: .black, at: time), time: time)),
                        "game \(index) ply \(ply)")
                    #expect(back.contains(.tracker(.syncChanged(.inSync))), "game \(index) ply \(ply)")
                    #expect(back.trackerMoves.count == (moveMadeDuringDesync ? 1 : 0), "game \(index) ply \(ply)")
                    outputs += expired + back
                }
                if !moveMadeDuringDesync {
                    for step in steps(for: move, in: reference.position, variant: Int(rng.next() % 8)) {
                        for event in board.perform(step) {
                            time += 0.1
                            outputs += session.handle(event, at: time)
                        }
                    }
                    try? reference.play(move)
                }
                time += 0.2
            }
            outputs += session.tick(at: time + 5)
            #expect(session.game.moves.map(\.move) == reference.moves.map(\.move), "game \(index)")
            #expect(session.position.fen == reference.position.fen, "game \(index)")
            #expect(session.syncState == .inSync, "game \(index)")
        }
        #expect(totalDisturbances >= 1000)
    }

    /// A piece of the side not to move, on a square no legal move reaches, knocked off
    /// (target `nil`) or put on an empty square it could not move to; `nil` when none fits.
    private func pickDisturbance(in game: Game, before next: Move, rng: inout SplitMix64) -> (Square, Piece, Square?)? {
        let position = game.position
        // No legal move may reach the disturbed squares, and the next move must not touch them.
        var reachable = Set(position.legalMoves().map(\.to))
        let after = position.applying(next)
        for square in Square.allCases where position[square] != after[square] { reachable.insert(square) }
        let lastTo = game.moves.last?.move.to
        let candidates = Square.allCases.filter { square in
            guard let piece = position[square], piece.color != position.sideToMove else { return false }
            return piece.kind != .king && piece.kind != .pawn && !reachable.contains(square) && square != lastTo
        }
        guard !candidates.isEmpty else { return nil }
        let square = candidates[Int(rng.next() % UInt64(candidates.count))]
        let piece = position[square]!
        guard rng.next() % 2 == 0 else { return (square, piece, nil) }
        // Nor a square the piece could move to itself: that is a move out of turn (an illegal move).
        var outOfTurn = position
        outOfTurn.sideToMove = position.sideToMove.opponent
        outOfTurn.enPassantSquare = nil
        let ownMoves = Set(outOfTurn.pseudoLegalMoves().filter { $0.from == square }.map(\.to))
        let empty = Square.allCases.filter { position[$0] == nil && !ownMoves.contains($0) }
        // The wrong square must not recreate an earlier occupancy (that would be a takeback).
        var occupancy = position.snapshot.occupancy
        occupancy.remove(square)
        let earlier = Set(game.positions.suffix(6).map { $0.snapshot.occupancy })
        let fits = empty.filter { target in
            guard !reachable.contains(target) else { return false }
            var moved = occupancy
            moved.insert(target)
            return !earlier.contains(moved) && moved != .startingPosition
        }
        guard !fits.isEmpty else { return (square, piece, nil) }
        return (square, piece, fits[Int(rng.next() % UInt64(fits.count))])
    }
}
