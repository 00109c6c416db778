public import Chess

/// One game as the broadcast sees it over time: the latest record the board's bridge
/// published (a takeback or an arbiter's correction replaces moves: the corrected game is
/// what counts), when each move was first seen, and the view of it a delayed relay may
/// show.
///
/// Memory: one game and one time and clock reading a move, whatever the delay.
public struct BroadcastGameFeed: Sendable {
    /// The latest record, corrected.
    public private(set) var game: Game
    /// When each move of ``game`` was first seen (`seenAt.count == game.moves.count`).
    private var seenAt: [Double]
    /// The clocks after each move, as the move reported them.
    private var clocksAfter: [BroadcastClocks?]
    /// The clocks reported at the start of the game (before a move).
    private var startClocks: (time: Double, clocks: BroadcastClocks)?
    /// When the present result was first seen (`nil` while the game goes on).
    private var resultSeenAt: Double?
    /// When anything was last seen.
    public private(set) var lastUpdate: Double

    /// A feed starting with `game`, seen at `time`.
    public init(game: Game, at time: Double) {
        self.game = game
        seenAt = Array(repeating: time, count: game.moves.count)
        clocksAfter = Array(repeating: nil, count: game.moves.count)
        resultSeenAt = game.result == .ongoing ? nil : time
        lastUpdate = time
    }

    /// Takes in the board's record as seen at `time`: moves it shares with the present
    /// record keep the time they were first seen; new or replaced moves get `time`.
    /// `clocks` are the current clocks (after the last move) when known.
    ///
    /// A game that ended stays as it ended: a record that is not the same game (another
    /// start, no move, or other moves — the board set up for its next game) is not taken,
    /// and `false` is returned; the next game waits for the next round. The same game with
    /// another result, or with its last moves taken back, is a correction and is taken.
    @discardableResult
    public mutating func update(game newGame: Game, clocks: BroadcastClocks?, at time: Double) -> Bool {
        if game.result != .ongoing, !isSameGame(newGame) { return false }
        var common = 0
        while common < min(game.moves.count, newGame.moves.count),
            game.moves[common].move == newGame.moves[common].move
        {
            common += 1
        }
        if newGame.startPosition != game.startPosition { common = 0 }
        seenAt = Array(seenAt.prefix(common)) + Array(repeating: time, count: newGame.moves.count - common)
        clocksAfter = Array(clocksAfter.prefix(common)) + Array(repeating: nil, count: newGame.moves.count - common)
        if let clocks {
            if newGame.moves.isEmpty {
                startClocks = (time, clocks)
            } else if common < newGame.moves.count || clocksAfter[newGame.moves.count - 1] == nil {
                clocksAfter[newGame.moves.count - 1] = clocks
            }
        }
        if newGame.result == .ongoing {
            resultSeenAt = nil
        } else if newGame.result != game.result || common < newGame.moves.count || resultSeenAt == nil {
            resultSeenAt = time
        }
        game = newGame
        lastUpdate = time
        return true
    }

    /// Whether `other` is the present game, corrected: the same start, at least one move,
    /// and its moves the first of the present game's.
    private func isSameGame(_ other: Game) -> Bool {
        guard other.startPosition == game.startPosition, !other.moves.isEmpty,
            other.moves.count <= game.moves.count
        else { return false }
        return zip(other.moves, game.moves).allSatisfy { $0.move == $1.move }
    }

    /// What a relay `delay` seconds behind may show at `now`: the moves first seen at
    /// least `delay` seconds ago, the clocks as they were then, and the result only when
    /// it is that old too. Nothing seen later than `now - delay` is in it.
    public func view(at now: Double, delay: Double) -> (game: Game, clocks: BroadcastClocks?) {
        let horizon = now - delay
        var shown = 0
        while shown < seenAt.count, seenAt[shown] <= horizon { shown += 1 }
        var view = game
        if shown < game.moves.count {
            view.takeBack(plies: game.moves.count - shown)
        }
        if let resultSeenAt, resultSeenAt <= horizon, shown == game.moves.count {
            view.result = game.result
        } else if shown == game.moves.count {
            view.result = .ongoing
        }
        var clocks: BroadcastClocks?
        if shown > 0 {
            clocks = clocksAfter[shown - 1] ?? Self.clocks(fromRecordOf: view)
        } else if let startClocks, startClocks.time <= horizon {
            clocks = startClocks.clocks
        }
        return (view, clocks)
    }

    /// The clocks the last two `[%clk]` comments of `game` give.
    static func clocks(fromRecordOf game: Game) -> BroadcastClocks? {
        var white: Double?
        var black: Double?
        for (ply, move) in game.moves.enumerated().reversed() where white == nil || black == nil {
            if game.positions[ply].sideToMove == .white {
                if white == nil { white = move.clock }
            } else if black == nil {
                black = move.clock
            }
        }
        return white == nil && black == nil ? nil : BroadcastClocks(white: white, black: black)
    }
}
