import BoardKit
import Chess
import FoundationEssentials

/// Every history a gap may have had, followed through the play that comes after it until
/// one is left (issue #29).
///
/// A gap that several lines explain is not the end of the game's record: each line is a
/// history from the game position, and every board the bridge sees next is explained, or
/// not, by each history in turn. A board a history explains exactly (the same pieces, or
/// on an occupancy board the same squares filled by moves whose squares were all touched)
/// with up to ``stepPlies`` more moves extends that history with them; a history that does
/// not explain a board that another one explains is dropped. A board no history explains
/// (a piece in the hand, a move half made, a knock) changes nothing.
///
/// What every history left agrees on from the start is certain: the tracker commits it
/// (``takeCertainMoves()``), marked recovered, at the time each move was seen. When one
/// history is left it is all certain. Histories that reach the same position by other
/// orders of the same moves stay apart for good (no later move can tell them apart): they
/// are the arbiter's to resolve, and each is shown leading to the board as it is now.
///
/// Bounded: past ``capacity`` histories the gap is given up as unreadable (the tracker
/// reports it without candidates), so memory and the work per board stay small.
struct GapHistories: Sendable, Equatable {
    /// One history: the moves since the game position, when each was seen, and where they lead.
    struct History: Sendable, Equatable {
        /// The moves, oldest first.
        var moves: [Move]
        /// When each move was seen (the gap's own moves: when the gap was found).
        var times: [TimeInterval]
        /// The position the moves lead to.
        var position: Position
        /// Its placement.
        var board: PackedBoard

        static func == (lhs: History, rhs: History) -> Bool { lhs.moves == rhs.moves }
    }

    /// What one board did to the histories.
    enum Outcome: Equatable {
        /// No history explains it: nothing changed.
        case unexplained
        /// Some histories explain it; the others were dropped. `changed`: the histories are
        /// not the ones they were (longer, or fewer).
        case explained(changed: Bool)
        /// The histories outgrew ``capacity``: the gap cannot be followed.
        case overflowed
    }

    /// The most histories followed at once.
    static let capacity = 128
    /// The most moves one board may add to a history (two boards seen apart by a move and
    /// its answer, when the first was never shown settled).
    static let stepPlies = 2
    /// The most candidate lines the report lists (more are followed, not listed).
    static let listedLines = 8

    /// The histories, in the order they were found.
    private(set) var histories: [History]
    /// Whether the histories have explained a move made after the gap: only then is what
    /// they agree on certain (the gap's lines are the shortest ones; a longer truth, a tempo
    /// lost, leaves the other side to move, and its next move is explained by none).
    private(set) var followedPlay = false
    /// Whether the link came back since the histories last explained a board: moves may have
    /// been made that nobody saw, so the next board is searched from each history's end
    /// (``bridge(_:at:)``).
    var relinked = false

    /// Histories for `lines` from `position` (placed as `board`), each move seen at `time`;
    /// `nil` when there are none or more than ``capacity``.
    init?(lines: [[Move]], from position: Position, board: PackedBoard, at time: TimeInterval) {
        guard !lines.isEmpty, lines.count <= Self.capacity else { return nil }
        var histories: [History] = []
        for line in lines {
            var history = History(moves: [], times: [], position: position, board: board)
            for move in line { history.append(move, at: time) }
            if !histories.contains(history) { histories.append(history) }
        }
        self.histories = histories
    }

    /// The lines for the report: each history's moves in UCI, when at most ``listedLines``.
    var listed: [[String]] {
        histories.count > Self.listedLines ? [] : histories.map { $0.moves.map(\.uci) }
    }

    /// The length of the shortest history.
    var plies: Int { histories.map(\.moves.count).min() ?? 0 }

    /// Whether one history is left and all of it is committed: the gap is read.
    var isRead: Bool { histories.count == 1 && histories[0].moves.isEmpty }

    /// The board showed `target` at `time`; `touched` are the squares lifted or placed since
    /// the last board some history explained (occupancy boards; `nil` for piece boards).
    mutating func observe(_ target: GapSearch.Target, touched: UInt64?, at time: TimeInterval) -> Outcome {
        var extendedAll = true
        let extended = Self.extend(histories, at: time) { history in
            let lines = Self.extensions(of: history, to: target, touched: touched)
            if lines.contains(where: \.isEmpty) { extendedAll = false }
            return lines
        }
        guard let next = extended else { return .overflowed }
        guard !next.isEmpty else { return .unexplained }
        let changed = next != histories
        if extendedAll { followedPlay = true }
        relinked = false
        histories = next
        return .explained(changed: changed)
    }

    /// A gap on top of the gap (the link dropped again): each history is extended by every
    /// line `lines` finds from its end to what the board shows now (`nil`: too many to
    /// follow). What they agree on waits again for a move made after this gap.
    mutating func bridge(_ lines: (Position, PackedBoard) -> [[Move]]?, at time: TimeInterval) -> Outcome {
        relinked = false
        guard let next = Self.extend(histories, at: time, by: { lines($0.position, $0.board) }) else {
            return .overflowed
        }
        guard !next.isEmpty else { return .unexplained }
        histories = next
        followedPlay = false
        return .explained(changed: true)
    }

    /// Each of `histories` extended by each line `lines` gives for it (none: it is dropped),
    /// the moves seen at `time`, without repeats; `nil` past ``capacity`` or when `lines`
    /// gives `nil` (too many to follow).
    private static func extend(
        _ histories: [History], at time: TimeInterval, by lines: (History) -> [[Move]]?
    ) -> [History]? {
        var next: [History] = []
        for history in histories {
            guard let found = lines(history) else { return nil }
            for line in found {
                var extended = history
                for move in line { extended.append(move, at: time) }
                guard !next.contains(extended) else { continue }
                next.append(extended)
                if next.count > capacity { return nil }
            }
        }
        return next
    }

    /// Removes and returns the moves every history begins with (certain, whichever is true),
    /// with the times they were seen.
    mutating func takeCertainMoves() -> [(move: Move, time: TimeInterval)] {
        guard let first = histories.first else { return [] }
        var count = 0
        while count < first.moves.count,
            histories.allSatisfy({ $0.moves.count > count && $0.moves[count] == first.moves[count] })
        {
            count += 1
        }
        guard count > 0 else { return [] }
        let certain = (0..<count).map { (first.moves[$0], first.times[$0]) }
        for index in histories.indices {
            histories[index].moves.removeFirst(count)
            histories[index].times.removeFirst(count)
        }
        return certain
    }

    /// The lines of up to ``stepPlies`` moves from `history` that lead to exactly `target`
    /// (on an occupancy board: changing only squares in `touched`); the empty line when the
    /// board shows the history's end.
    static func extensions(of history: History, to target: GapSearch.Target, touched: UInt64?) -> [[Move]] {
        func reaches(_ board: PackedBoard) -> Bool {
            switch target {
            case .placement(let placement): board == placement
            case .occupancy(let occupancy): board.occupancy == occupancy
            }
        }
        func allowed(_ from: PackedBoard, _ to: PackedBoard) -> Bool {
            guard let touched else { return true }
            return from.differences(from: to) & ~touched == 0
        }
        if reaches(history.board) { return [[]] }
        // On a piece board each move of such a line starts on a square where the board now
        // differs from the history's end (emptied, or filled since by the other side); on an
        // occupancy board on a touched square (every move changes the square it leaves).
        let starts: UInt64? =
            switch target {
            case .placement(let placement): history.board.differences(from: placement)
            case .occupancy: touched
            }
        var lines: [[Move]] = []
        for first in history.position.legalMoves(fromAny: starts) {
            let afterFirst = history.board.applying(first)
            guard allowed(history.board, afterFirst) else { continue }
            if reaches(afterFirst) {
                lines.append([first])
                continue
            }
            guard stepPlies > 1 else { continue }
            let position = history.position.applying(first)
            for second in position.legalMoves(fromAny: starts) {
                let afterSecond = afterFirst.applying(second)
                if reaches(afterSecond), allowed(afterFirst, afterSecond) {
                    lines.append([first, second])
                }
            }
        }
        return lines
    }

}

extension GapHistories.History {
    /// Adds `move` (legal at the history's end), seen at `time`.
    mutating func append(_ move: Move, at time: TimeInterval) {
        board = board.applying(move)
        position = position.applying(move)
        moves.append(move)
        times.append(time)
    }
}
