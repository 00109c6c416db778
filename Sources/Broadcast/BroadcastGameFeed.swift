public import Chess

/// One game as the broadcast sees it over time: the latest record the board's bridge
/// published (a takeback or an arbiter's correction replaces moves: the corrected game is
/// what counts), when each move was first seen, and the view of it a delayed relay may
/// show.
///
/// Everything a viewer sees is delayed alike: a move shows `delay` seconds after it was
/// first seen, and so does its removal (a takeback, a corrected line, a changed result) —
/// until then the view is the record as it stood before the removal (``Removal``).
///
/// Memory: one game and one time and clock reading a move, and the record as it stood
/// before each removal of the last ``BroadcastRoundFeed/maxDelay`` seconds (at most
/// ``removalLimit``).
public struct BroadcastGameFeed: Sendable {
    /// The most records kept from before a removal (a flood of corrections shows the older
    /// ones undelayed, never out of order).
    static let removalLimit = 64

    /// The record at one time, with when each of its parts was first seen.
    struct Record: Sendable {
        /// The game.
        var game: Game
        /// When each move of ``game`` was first seen (`seenAt.count == game.moves.count`).
        var seenAt: [Double]
        /// The clocks after each move, as the move reported them.
        var clocksAfter: [BroadcastClocks?]
        /// The clocks reported at the start of the game (before a move).
        var startClocks: (time: Double, clocks: BroadcastClocks)?
        /// When the present result was first seen (`nil` while the game goes on).
        var resultSeenAt: Double?
    }

    /// A removal (moves or a result replaced) seen at ``at``, with the record before it:
    /// the view stays on that record until the delay has passed ``at``.
    struct Removal: Sendable {
        var at: Double
        var before: Record
    }

    private var record: Record
    private var removals: [Removal] = []
    /// When anything was last seen.
    public private(set) var lastUpdate: Double

    /// The latest record, corrected.
    public var game: Game { record.game }

    /// A feed starting with `game`, seen at `time`.
    public init(game: Game, at time: Double) {
        record = Record(
            game: game, seenAt: Array(repeating: time, count: game.moves.count),
            clocksAfter: Array(repeating: nil, count: game.moves.count),
            resultSeenAt: game.result == .ongoing ? nil : time)
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
        let game = record.game
        if game.result != .ongoing, !isSameGame(newGame) { return false }
        var common = 0
        while common < min(game.moves.count, newGame.moves.count),
            game.moves[common].move == newGame.moves[common].move
        {
            common += 1
        }
        if newGame.startPosition != game.startPosition { common = 0 }
        let removes =
            common < game.moves.count || newGame.startPosition != game.startPosition
            || (game.result != .ongoing && newGame.result != game.result)
        if removes { keep(Removal(at: time, before: record)) }
        var next = record
        next.seenAt = Array(next.seenAt.prefix(common)) + Array(repeating: time, count: newGame.moves.count - common)
        next.clocksAfter =
            Array(next.clocksAfter.prefix(common)) + Array(repeating: nil, count: newGame.moves.count - common)
        if let clocks {
            if newGame.moves.isEmpty {
                next.startClocks = (time, clocks)
            } else if common < newGame.moves.count || next.clocksAfter[newGame.moves.count - 1] == nil {
                next.clocksAfter[newGame.moves.count - 1] = clocks
            }
        }
        if newGame.result == .ongoing {
            next.resultSeenAt = nil
        } else if newGame.result != game.result || common < newGame.moves.count || next.resultSeenAt == nil {
            next.resultSeenAt = time
        }
        next.game = newGame
        record = next
        lastUpdate = time
        return true
    }

    /// What a relay `delay` seconds behind may show at `now`: the record as it stood
    /// `delay` seconds ago — the moves first seen by then, none removed since, the clocks
    /// as they were then, and the result only when it is that old too. Nothing seen later
    /// than `now - delay` is in it.
    public func view(at now: Double, delay: Double) -> (game: Game, clocks: BroadcastClocks?) {
        let horizon = now - delay
        let record = removals.first { $0.at > horizon }?.before ?? self.record
        var shown = 0
        while shown < record.seenAt.count, record.seenAt[shown] <= horizon { shown += 1 }
        var view = record.game
        if shown < view.moves.count {
            view.takeBack(plies: view.moves.count - shown)
        }
        if let resultSeenAt = record.resultSeenAt, resultSeenAt <= horizon, shown == record.game.moves.count {
            view.result = record.game.result
        } else if shown == record.game.moves.count {
            view.result = .ongoing
        }
        var clocks: BroadcastClocks?
        if shown > 0 {
            clocks = record.clocksAfter[shown - 1] ?? Self.clocks(fromRecordOf: view)
        } else if let startClocks = record.startClocks, startClocks.time <= horizon {
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

    /// Keeps `removal`, dropping those no delay can reach any more (and the oldest past
    /// ``removalLimit``).
    private mutating func keep(_ removal: Removal) {
        removals.removeAll { $0.at < removal.at - BroadcastRoundFeed.maxDelay }
        removals.append(removal)
        if removals.count > Self.removalLimit { removals.removeFirst(removals.count - Self.removalLimit) }
    }

    /// Whether `other` is the present game, corrected: the same start, at least one move,
    /// and its moves the first of the present game's.
    private func isSameGame(_ other: Game) -> Bool {
        let game = record.game
        guard other.startPosition == game.startPosition, !other.moves.isEmpty,
            other.moves.count <= game.moves.count
        else { return false }
        return zip(other.moves, game.moves).allSatisfy { $0.move == $1.move }
    }
}
