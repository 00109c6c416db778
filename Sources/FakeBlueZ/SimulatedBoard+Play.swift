import BoardKit
import Chess
import Emulation

/// Scripted play: UCI moves played by hand (``HumanMoves``) at a pace, the tracked position
/// following; autoplay of the built-in games; setting a position up by hand.
extension SimulatedBoard {
    /// Plays `uci` (validated as a whole first) with `secondsPerMove` between moves; returns
    /// when the last move is on the board.
    ///
    /// - Throws: ``FakeBlueZError/busy(_:)`` while another script or autoplay runs;
    ///   ``FakeBlueZError/illegalMove(_:index:)`` for the first illegal move (nothing is played).
    func play(_ uci: [String], secondsPerMove: Double) async throws(FakeBlueZError) {
        guard scriptTask == nil else { throw .busy(id) }
        let moves = try game.legalMoves(uci)
        let task = Task { @MainActor [weak self] in
            guard let self else { return }
            await self.perform(moves, secondsPerMove: secondsPerMove, style: .standard)
        }
        scriptTask = task
        await task.value
        if scriptTask == task { scriptTask = nil }
    }

    /// Sets the board up as `position` (lifting what differs, placing what is missing) and
    /// makes it the tracked position.
    func setUp(_ position: Position) throws(FakeBlueZError) {
        guard scriptTask == nil else { throw .busy(id) }
        for action in Self.setUpActions(from: personality.board, to: position.snapshot) { perform(action) }
        game.position = position
    }

    /// Starts replaying the built-in games in a loop (a fresh set-up before each), each move
    /// `secondsPerMove` apart, hand movements in random human styles.
    func startAutoplay(secondsPerMove: Double) {
        scriptTask?.cancel()
        autoplayPace = secondsPerMove
        scriptTask = Task { @MainActor [weak self] in
            var index = 0
            while !Task.isCancelled {
                guard let self else { return }
                let builtIn = BuiltInGames.all[index % BuiltInGames.all.count]
                self.sim.log("board \(self.id): autoplay \(builtIn.title)")
                for action in Self.setUpActions(from: self.personality.board, to: BoardSnapshot.startingPosition) {
                    guard await Self.pause(min(secondsPerMove * 0.2, 0.3)) else { return }
                    self.perform(action)
                }
                self.game.position = .starting
                guard await Self.pause(secondsPerMove) else { return }
                let moves = (try? self.game.legalMoves(builtIn.uciMoves)) ?? []
                await self.perform(moves, secondsPerMove: secondsPerMove, style: .random)
                guard await Self.pause(secondsPerMove * 3) else { return }
                index += 1
            }
        }
    }

    /// Stops autoplay (the pieces stay where they are).
    func stopAutoplay() {
        guard autoplayPace != nil else { return }
        scriptTask?.cancel()
        scriptTask = nil
        autoplayPace = nil
    }

    /// Plays `moves` one after the other; the hand actions of a move are spread over a
    /// quarter of the pace (at most 0.3 s apart). Stops when the task is cancelled.
    private func perform(_ moves: [Move], secondsPerMove: Double, style: HumanMoveStyle) async {
        for (index, move) in moves.enumerated() {
            if index > 0 { guard await Self.pause(secondsPerMove) else { return } }
            guard !Task.isCancelled else { return }
            let actions = HumanMoves.actions(
                for: move, on: personality.board, style: style, using: &sim.random)
            let gap = min(secondsPerMove * 0.25, 0.3)
            for (step, action) in actions.enumerated() {
                if step > 0 { guard await Self.pause(gap) else { return } }
                perform(action)
            }
            if game.position.isLegal(move) { game.position.apply(move) }
        }
    }

    /// The lifts and placements that turn `current` into `target`: every wrong or surplus
    /// piece lifted first, then every missing piece placed.
    static func setUpActions(from current: BoardSnapshot, to target: BoardSnapshot) -> [PhysicalAction] {
        var lifts: [PhysicalAction] = []
        var places: [PhysicalAction] = []
        for square in Square.allCases where current[square] != target[square] {
            if current[square] != nil { lifts.append(.lift(square)) }
            if let piece = target[square] { places.append(.place(piece, on: square)) }
        }
        return lifts + places
    }

    /// Sleeps `seconds` (nothing for 0); `false` when the task was cancelled.
    private static func pause(_ seconds: Double) async -> Bool {
        if seconds > 0 {
            try? await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded())))
        }
        return !Task.isCancelled
    }
}
