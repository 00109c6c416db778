import BoardKit
import Chess

/// Finds the line a move-reporting board (ChessUp) played from the last committed position
/// to its own game, with the reports that arrived as its guide.
///
/// The board's state says where its game stands: its pieces and how many plies it played
/// since the committed position (``plies``). The reports that arrived are the board's moves
/// in order, less the ones the link lost, plus repeats of reports already seen (a
/// retransmission the host had acknowledged already). So a line is explained by the
/// reports it plays in order, the moves nobody reported (at most ``maxUnexplained``
/// together with the repeats left out) and repeats left out: a report may be left out only
/// when it repeats a move already committed (``committed``) or a report before it.
///
/// Every legal line of exactly ``plies`` plies that ends on the board's pieces and is
/// explained within the bound is collected. One is the board's game; two or more are
/// ambiguous (the pieces cannot tell them apart: two unreported moves in either order,
/// another piece that went there), reported, never guessed. The board's own line is
/// always among them when it is within the bound, so a line is committed only when no
/// other fits what the board said.
///
/// With ``unordered`` the reports are a set, not a sequence: after a new link the board
/// resends every report not yet acknowledged, some before the host listens, and its acks
/// take off the oldest frames whichever the host heard, so the order in which reports
/// arrive is not the order they were played in. Every order of the reported moves that
/// fits is then a candidate line.
///
/// A branch is cut when the squares still wrong are more than the plies left can change
/// (four a ply, as castling does), or when the reports left need more plies than remain.
/// The search stops after ``nodeLimit`` expanded positions: the gap is then too far to
/// judge.
struct ReportedLineSearch {
    /// What the search found.
    enum Outcome: Equatable {
        /// Exactly one line; `reported[i]` says whether its `i`-th move was reported.
        case line([Move], reported: [Bool])
        /// Several lines (up to ``maxLines`` listed; none when more, or when the search ran
        /// out of nodes), of `plies` plies.
        case ambiguous(plies: Int, lines: [[Move]])
        /// No line within the bounds.
        case notFound
    }

    /// How many plies the board played since the committed position.
    var plies: Int
    /// The most unreported moves plus repeats left out a line may have.
    var maxUnexplained = 3
    /// The most positions expanded before giving up (a few tenths of a second in a debug
    /// build: the bridge's event loop waits meanwhile).
    var nodeLimit = 20_000
    /// The moves committed lately: a report repeating one of them may be left out.
    var committed: [Move] = []
    /// Whether the reports may have been played in any order (they came after a new link).
    var unordered = false
    /// The most candidate lines reported for an ambiguous gap.
    static let maxLines = 8

    /// Positions expanded by the last ``run(from:board:reports:to:)``.
    private(set) var nodes = 0
    private var reports: [BoardMove] = []
    /// Whether each report may be left out (it repeats a committed move or an earlier report).
    private var repeats: [Bool] = []
    private var target = PackedBoard()
    private var path: [Move] = []
    private var flags: [Bool] = []
    private var found: [(line: [Move], reported: [Bool])] = []

    /// A search for a line of `plies` plies.
    init(plies: Int) {
        self.plies = plies
    }

    /// Searches from `position` (whose pieces are `board`) for the lines that play `reports`
    /// and end on `target`.
    mutating func run(
        from position: Position, board: PackedBoard, reports: [BoardMove], to target: PackedBoard
    ) -> Outcome {
        self.reports = reports
        self.target = target
        repeats = reports.indices.map { index in
            committed.contains { Self.matches($0, reports[index]) } || reports[..<index].contains(reports[index])
        }
        nodes = 0
        found = []
        path = []
        flags = []
        if unordered {
            guard reports.count <= 64 else { return .notFound }
            searchUnordered(position, board, used: 0, budget: maxUnexplained)
        } else {
            search(position, board, index: 0, budget: maxUnexplained)
        }
        var lines: [[Move]] = []
        var first: [Bool] = []
        for candidate in found where !lines.contains(candidate.line) {
            if lines.isEmpty { first = candidate.reported }
            lines.append(candidate.line)
        }
        if nodes > nodeLimit { return lines.isEmpty ? .notFound : .ambiguous(plies: plies, lines: []) }
        if lines.count == 1 { return .line(lines[0], reported: first) }
        if lines.count > 1 { return .ambiguous(plies: plies, lines: lines.count > Self.maxLines ? [] : lines) }
        return .notFound
    }

    /// Whether `move` is what `report` names (a report without its promotion piece names
    /// every promotion of that pawn).
    static func matches(_ move: Move, _ report: BoardMove) -> Bool {
        move.from == report.from && move.to == report.to
            && (report.promotion == nil || report.promotion == move.promotion)
    }

    private mutating func search(_ position: Position, _ board: PackedBoard, index: Int, budget: Int) {
        guard nodes <= nodeLimit, found.count <= Self.maxLines else { return }
        let left = plies - path.count
        if left == 0 {
            let rest = repeats[index...]
            if board == target, rest.count <= budget, rest.allSatisfy({ $0 }) { found.append((path, flags)) }
            return
        }
        // Each ply changes at most four squares (castling); the reports not left out need a
        // ply each, and the plies no report fills cost one each.
        let mandatory = repeats[index...].lazy.filter { !$0 }.count
        guard board.differences(from: target).nonzeroBitCount <= 4 * left, mandatory <= left,
            left - (reports.count - index) <= budget
        else { return }
        nodes += 1
        let legal = position.legalMoves()
        if index < reports.count {
            let report = reports[index]
            for move in legal where Self.matches(move, report) {
                play(move, reported: true, position, board, index: index + 1, budget: budget)
            }
            // A repeat left out.
            if repeats[index], budget > 0 { search(position, board, index: index + 1, budget: budget - 1) }
        }
        guard budget > 0 else { return }
        let report = index < reports.count ? reports[index] : nil
        for move in legal where report.map({ !Self.matches(move, $0) }) ?? true {
            play(move, reported: false, position, board, index: index, budget: budget - 1)
        }
    }

    /// ``search(_:_:index:budget:)`` for reports in any order: `used` has a bit per report a
    /// move of the line has played (the first unused one it matches).
    private mutating func searchUnordered(_ position: Position, _ board: PackedBoard, used: UInt64, budget: Int) {
        guard nodes <= nodeLimit, found.count <= Self.maxLines else { return }
        let left = plies - path.count
        let unused = reports.indices.filter { used & (1 << UInt64($0)) == 0 }
        let mandatory = unused.filter { !repeats[$0] }.count
        if left == 0 {
            if board == target, mandatory == 0, unused.count <= budget { found.append((path, flags)) }
            return
        }
        guard board.differences(from: target).nonzeroBitCount <= 4 * left, mandatory <= left else { return }
        nodes += 1
        for move in position.legalMoves() {
            let index = unused.first { Self.matches(move, reports[$0]) }
            guard index != nil || budget > 0 else { continue }
            path.append(move)
            flags.append(index != nil)
            searchUnordered(
                position.applying(move), board.applying(move),
                used: index.map { used | (1 << UInt64($0)) } ?? used, budget: index == nil ? budget - 1 : budget)
            path.removeLast()
            flags.removeLast()
        }
    }

    private mutating func play(
        _ move: Move, reported: Bool, _ position: Position, _ board: PackedBoard, index: Int, budget: Int
    ) {
        path.append(move)
        flags.append(reported)
        search(position.applying(move), board.applying(move), index: index, budget: budget)
        path.removeLast()
        flags.removeLast()
    }
}
