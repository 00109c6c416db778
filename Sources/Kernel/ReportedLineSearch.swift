import BoardKit
import Chess

/// Finds the line a move-reporting board (ChessUp) played from the last committed position
/// to its own game's placement, with the reports that arrived as its guide.
///
/// The reports that arrived are the board's moves in order, less the ones the link lost,
/// plus at most a stale retransmission of a move already counted. So a line is explained by
/// the reports it plays (free), the moves nobody reported (one each) and the reports it
/// leaves out (one each). Iterative deepening on that cost, up to ``maxCost``: the cheapest
/// lines that play every report or leave it out and end on the board's placement are the
/// answer. One such line is the board's game; several are ambiguous (the placement cannot
/// tell them apart: two unreported moves in either order, another piece that went there),
/// reported, never guessed.
///
/// A branch is cut when the squares still wrong are more than the moves left can change
/// (four a move, as castling does). The search stops after ``nodeLimit`` expanded positions:
/// the gap is then too far to judge.
struct ReportedLineSearch {
    /// What the search found.
    enum Outcome: Equatable {
        /// Exactly one cheapest line; `reported[i]` says whether its `i`-th move was reported.
        case line([Move], reported: [Bool])
        /// Several cheapest lines (up to ``maxLines`` listed; none when more, or when the
        /// search ran out of nodes). `plies` is the length of the shortest.
        case ambiguous(plies: Int, lines: [[Move]])
        /// No line within the bounds.
        case notFound
    }

    /// The most unreported moves plus left-out reports a line may have.
    var maxCost = 3
    /// The most positions expanded before giving up (a few tenths of a second in a debug
    /// build: the bridge's event loop waits meanwhile).
    var nodeLimit = 20_000
    /// How many plies the line has, when the board says (its game's move number): then
    /// every line is that long, and a line that leaves out no report is always among the
    /// cheapest, so the board's own line (none left out) is found whenever it is within the
    /// bounds.
    var exactPlies: Int?
    /// The most candidate lines reported for an ambiguous gap.
    static let maxLines = 8

    /// Positions expanded by the last ``run(from:board:reports:to:)``.
    private(set) var nodes = 0
    private var reports: [BoardMove] = []
    private var target = PackedBoard()
    private var path: [Move] = []
    private var flags: [Bool] = []
    private var found: [(line: [Move], reported: [Bool])] = []

    /// Searches from `position` (whose pieces are `board`) for the line that plays `reports`
    /// and ends on `target`.
    mutating func run(
        from position: Position, board: PackedBoard, reports: [BoardMove], to target: PackedBoard
    ) -> Outcome {
        self.reports = reports
        self.target = target
        nodes = 0
        for budget in 0...max(0, maxCost) {
            found = []
            path = []
            flags = []
            search(position, board, index: 0, budget: budget)
            var lines: [[Move]] = []
            var first: [Bool] = []
            for candidate in found where !lines.contains(candidate.line) {
                if lines.isEmpty { first = candidate.reported }
                lines.append(candidate.line)
            }
            if nodes > nodeLimit {
                return lines.isEmpty ? .notFound : .ambiguous(plies: lines.map(\.count).min() ?? 0, lines: [])
            }
            if lines.count == 1 { return .line(lines[0], reported: first) }
            if lines.count > 1 {
                return .ambiguous(
                    plies: lines.map(\.count).min() ?? 0, lines: lines.count > Self.maxLines ? [] : lines)
            }
        }
        return .notFound
    }

    /// Whether `move` is what `report` names (a report without its promotion piece names
    /// every promotion of that pawn).
    static func matches(_ move: Move, _ report: BoardMove) -> Bool {
        move.from == report.from && move.to == report.to && (report.promotion == nil || report.promotion == move.promotion)
    }

    private mutating func search(_ position: Position, _ board: PackedBoard, index: Int, budget: Int) {
        guard nodes <= nodeLimit, found.count <= Self.maxLines else { return }
        if index == reports.count, budget == 0 {
            if board == target, exactPlies.map({ $0 == path.count }) ?? true { found.append((path, flags)) }
            return
        }
        // Each move changes at most four squares (castling).
        var movesLeft = reports.count - index + budget
        if let exactPlies {
            movesLeft = min(movesLeft, exactPlies - path.count)
            guard movesLeft >= 0 else { return }
        }
        guard board.differences(from: target).nonzeroBitCount <= 4 * movesLeft else { return }
        nodes += 1
        let legal = position.legalMoves()
        let report = index < reports.count ? reports[index] : nil
        if let report {
            for move in legal where Self.matches(move, report) {
                play(move, reported: true, position, board, index: index + 1, budget: budget)
            }
            // The report left out: a stale retransmission, or a move of another line.
            if budget > 0 { search(position, board, index: index + 1, budget: budget - 1) }
        }
        guard budget > 0 else { return }
        for move in legal where report.map({ !Self.matches(move, $0) }) ?? true {
            play(move, reported: false, position, board, index: index, budget: budget - 1)
        }
    }

    private mutating func play(
        _ move: Move, reported: Bool, _ position: Position, _ board: PackedBoard, index: Int, budget: Int
    ) {
        path.append(move)
        flags.append(reported)
        search(position.applying(move), MoveCandidate(move: move, on: board).result, index: index, budget: budget)
        path.removeLast()
        flags.removeLast()
    }
}
