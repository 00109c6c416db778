import BoardKit
import Chess

/// Finds the moves made while nobody watched (the link or the bridge was down): the legal
/// lines from the last known position to what the board shows now, shortest first.
///
/// Iterative deepening up to ``maxPlies``; a branch is cut as soon as the plies left
/// cannot reach the target:
/// - identity: every square where the target holds a piece of one colour that the board
///   does not hold there needs a move of that colour to put it there (one move puts one
///   piece, castling two), every piece missing a move of the other colour to take it
///   (and one more to leave the square when that side has no new square and lost nothing);
/// - occupancy: the line makes exactly as many captures as pieces are gone; every square
///   the target fills needs a move to fill it (castling fills two), and every square of one
///   colour's piece that the target empties needs a move of that colour from it (castling
///   empties two) or a capture.
///
/// On an identity board the shortest lines are the answer: a line that puts a piece
/// somewhere and takes it back leaves the board as a shorter line does.
///
/// On an occupancy board (``distinctPositions``) the lines are grouped by the placement
/// they lead to, and the search goes on past the shortest line for ``extraPlies`` more
/// (up to ``maxPlies``). The board is read only when every line leads to one
/// placement; its shortest line is the answer, as a piece board reads it (a longer line to
/// the same placement is that line with moves that cancel out: a piece out and back, a
/// tempo lost). Two lines to different placements that fill the same squares — other
/// pieces, another capture, a promotion to another piece — are ambiguous: reported, never
/// guessed. The search stops after the length where a second placement is found.
///
/// A line three or more plies longer than the shortest may still lead to another
/// placement with the same squares filled (after `1. e4 e5`, `2. Qe2 Nf6 3. Kd1 Ng8`
/// fills what `2. Ke2` fills, king and queen swapped), so a line found is then checked
/// against every line of up to ``maxPlies``: a second search, cut the same way, that
/// remembers each position with the plies it was searched for (transpositions, tempo
/// moves and moves that cancel out are searched once), stops at the first line to another
/// placement (ambiguous: both lines are listed) and gives up after ``confirmNodeLimit``
/// positions (ambiguous, nothing listed: the board cannot be read safely).
///
/// The search also stops after ``nodeLimit`` expanded positions (a fraction of a second):
/// the gap is then too far to judge (ambiguous when a line was found: the rest of the
/// search could have found another placement). Positions proved to lead nowhere in the
/// plies left are remembered (at most ``deadLimit`` of them) and not searched again.
struct GapSearch {
    /// What the board shows.
    enum Target: Equatable, Sendable {
        /// A piece-identity placement.
        case placement(PackedBoard)
        /// The occupied squares only.
        case occupancy(UInt64)
    }

    /// What the search found.
    enum Outcome: Equatable {
        /// Exactly one shortest line.
        case line([Move])
        /// Several shortest lines, of `plies` each; `lines` lists up to ``maxLines`` of them
        /// (none when there are more).
        case ambiguous(plies: Int, lines: [[Move]])
        /// No line within the bounds.
        case notFound
    }

    /// A position searched with some plies left (its moves depend on castling and en passant).
    private struct Node: Hashable {
        var board: PackedBoard
        var sideToMove: PieceColor
        var castlingRights: CastlingRights
        var enPassantSquare: Square?
        var remaining: Int
    }

    /// The longest line looked for.
    var maxPlies: Int
    /// The most positions generated before giving up.
    var nodeLimit: Int = 200_000
    /// The most dead ends remembered.
    var deadLimit: Int = 100_000
    /// Whether the lines must all lead to one placement, up to ``extraPlies`` past the
    /// shortest (occupancy: lines to different placements may fill the same squares);
    /// otherwise the shortest lines are the answer.
    var distinctPositions = false
    /// With ``distinctPositions``: how many plies past the shortest line the search goes on
    /// (up to ``maxPlies``) looking for a line to another placement.
    var extraPlies = 2
    /// With ``distinctPositions``: the most positions expanded while making sure that no line
    /// of up to ``maxPlies`` leads to another placement that fills the same squares (past
    /// that the gap is too far to judge).
    var confirmNodeLimit = 200_000
    /// The most positions remembered (with the plies searched from them) by that check.
    var seenLimit = 200_000
    /// The most candidate lines reported for an ambiguous gap.
    static let maxLines = 8
    /// The most lines (and placements) the search keeps before it stops: ``maxLines``, or
    /// more for ``allLines(from:board:occupancy:limit:)``.
    private var lineLimit = Self.maxLines

    /// Positions expanded by the last ``run(from:board:to:)`` (both searches).
    var nodes: Int { searchNodes + confirmNodes }
    private var searchNodes = 0
    private var found: [[Move]] = []
    private var ends: [PackedBoard: [[Move]]] = [:]
    private var dead: Set<Node> = []
    private var path: [Move] = []
    private var seen: [Node: Int] = [:]
    private var other: [Move]?
    private var confirmNodes = 0

    /// A search for lines of up to `maxPlies` plies.
    init(maxPlies: Int) {
        self.maxPlies = maxPlies
    }

    /// Searches from `position` (placed as `board`) to `target`.
    mutating func run(from position: Position, board: PackedBoard, to target: Target) -> Outcome {
        searchNodes = 0
        confirmNodes = 0
        found = []
        ends = [:]
        dead = []
        guard maxPlies > 0 else { return .notFound }
        var shortest: Int?
        var horizon = maxPlies
        for depth in 1...maxPlies where depth <= horizon {
            path = []
            _ = search(position, board, target, remaining: depth)
            if searchNodes > nodeLimit {
                if distinctPositions { return ends.isEmpty ? .notFound : groupedOutcome(complete: false) }
                return shortest == nil ? .notFound : .ambiguous(plies: shortest ?? depth, lines: [])
            }
            if distinctPositions {
                if ends.count > 1 { return groupedOutcome(complete: true) }
                if !ends.isEmpty, shortest == nil {
                    shortest = depth
                    horizon = min(maxPlies, depth + extraPlies)
                }
                continue
            }
            if !found.isEmpty, shortest == nil { shortest = depth }
            if let shortest {
                return found.count == 1
                    ? .line(found[0]) : .ambiguous(plies: shortest, lines: found.count > Self.maxLines ? [] : found)
            }
        }
        guard distinctPositions, !ends.isEmpty else { return .notFound }
        let outcome = groupedOutcome(complete: true)
        guard case .occupancy(let occupancy) = target else { return outcome }
        return confirmed(outcome, from: position, board: board, occupancy: occupancy)
    }

    /// Every line of up to ``maxPlies`` plies from `position` (placed as `board`) that fills
    /// `occupancy`: for each placement reached, its shortest lines (a longer line to a
    /// placement already reached is one of them with moves that cancel out). `nil` when there
    /// are more than `limit`, or the search was cut short at ``nodeLimit``: the gap cannot be
    /// followed line by line (``GapHistories``).
    mutating func allLines(
        from position: Position, board: PackedBoard, occupancy: UInt64, limit: Int
    ) -> [[Move]]? {
        searchNodes = 0
        confirmNodes = 0
        found = []
        ends = [:]
        dead = []
        let kept = (distinctPositions, lineLimit)
        distinctPositions = true
        lineLimit = limit
        defer { (distinctPositions, lineLimit) = kept }
        guard maxPlies > 0 else { return nil }
        for depth in 1...maxPlies {
            path = []
            _ = search(position, board, .occupancy(occupancy), remaining: depth)
            guard searchNodes <= nodeLimit, ends.count <= limit else { return nil }
        }
        let lines = ends.values.flatMap { $0 }
        guard lines.count <= limit, ends.values.allSatisfy({ $0.count <= limit }) else { return nil }
        return lines.sorted { $0.count < $1.count }
    }

    /// The one line found, when no line of up to ``maxPlies`` plies leads to another
    /// placement with the same `occupancy`; otherwise ambiguous, listing the line and the
    /// first line found to another placement (none when the check was cut short: the gap
    /// is then too far to read safely).
    private mutating func confirmed(
        _ outcome: Outcome, from position: Position, board: PackedBoard, occupancy: UInt64
    ) -> Outcome {
        guard case .line(let line) = outcome else { return outcome }
        let known = line.reduce(board) { MoveCandidate(move: $1, on: $0).result }
        path = []
        other = nil
        let complete = confirm(position, board, known: known, occupancy, remaining: maxPlies)
        seen = [:]
        if let other { return .ambiguous(plies: line.count, lines: [line, other]) }
        return complete ? .line(line) : .ambiguous(plies: line.count, lines: [])
    }

    /// Looks for a line of up to `remaining` plies on to a placement other than `known`
    /// that fills `occupancy` (kept in ``other``); returns whether the search was complete.
    /// A position already searched with as many plies left or more is not searched again:
    /// it reaches no placement it did not reach then (transpositions, moves that cancel
    /// out, tempo moves).
    private mutating func confirm(
        _ position: Position, _ board: PackedBoard, known: PackedBoard, _ occupancy: UInt64, remaining: Int
    ) -> Bool {
        if board.occupancy == occupancy, board != known {
            other = path
            return true
        }
        guard remaining > 0 else { return true }
        guard confirmNodes < confirmNodeLimit else { return false }
        let node = Node(
            board: board, sideToMove: position.sideToMove, castlingRights: position.castlingRights,
            enPassantSquare: position.enPassantSquare, remaining: 0)
        if let searched = seen[node], searched >= remaining { return true }
        if seen.count < seenLimit || seen[node] != nil { seen[node] = remaining }
        confirmNodes += 1
        let opponent = position.sideToMove.opponent
        for move in Self.moves(of: position, toward: remaining == 1 ? board.occupancy & ~occupancy : nil) {
            let next = MoveCandidate(move: move, on: board).result
            guard canReach(opponent, position.castlingRights, next, .occupancy(occupancy), in: remaining - 1) else {
                continue
            }
            path.append(move)
            let complete = confirm(position.applying(move), next, known: known, occupancy, remaining: remaining - 1)
            path.removeLast()
            guard complete, other == nil else { return complete }
        }
        return true
    }

    /// The legal moves of `position`; only those from `leaving` when given (a last move
    /// must leave a square the target empties: every move leaves its own).
    private static func moves(of position: Position, toward leaving: UInt64?) -> [Move] {
        guard var bits = leaving else { return position.legalMoves() }
        var moves: [Move] = []
        while bits != 0 {
            if let square = Square(rawValue: bits.trailingZeroBitCount) {
                moves += position.legalMoves(from: square)
            }
            bits &= bits - 1
        }
        return moves
    }

    /// The outcome of an occupancy search: the shortest line of the one placement reached,
    /// or the shortest line of every placement (ambiguous).
    private func groupedOutcome(complete: Bool) -> Outcome {
        let lines = ends.values.flatMap { $0 }.sorted { $0.count < $1.count }
        let plies = lines.first?.count ?? 0
        if ends.count == 1, lines.count == 1, complete { return .line(lines[0]) }
        let listed = ends.count == 1 ? lines : ends.values.compactMap(\.first).sorted { $0.count < $1.count }
        return .ambiguous(plies: plies, lines: listed.count > Self.maxLines || !complete ? [] : listed)
    }

    /// Searches `remaining` plies on; returns whether a line was found below.
    private mutating func search(_ position: Position, _ board: PackedBoard, _ target: Target, remaining: Int) -> Bool {
        if remaining == 0 {
            guard reaches(board, target) else { return false }
            if distinctPositions {
                record(board)
            } else {
                found.append(path)
            }
            return true
        }
        guard found.count <= lineLimit, ends.count <= lineLimit, searchNodes <= nodeLimit,
            canReach(position.sideToMove, position.castlingRights, board, target, in: remaining)
        else { return false }
        let node = Node(
            board: board, sideToMove: position.sideToMove, castlingRights: position.castlingRights,
            enPassantSquare: position.enPassantSquare, remaining: remaining)
        guard !dead.contains(node) else { return false }
        searchNodes += 1
        var any = false
        let opponent = position.sideToMove.opponent
        for move in position.legalMoves() {
            let next = MoveCandidate(move: move, on: board).result
            // Cut before the position is made (the rights after the move are a subset of
            // these, so the bound stays safe).
            let promising =
                remaining == 1
                ? reaches(next, target) : canReach(opponent, position.castlingRights, next, target, in: remaining - 1)
            guard promising else { continue }
            path.append(move)
            if search(position.applying(move), next, target, remaining: remaining - 1) { any = true }
            path.removeLast()
        }
        if !any, searchNodes <= nodeLimit, dead.count < deadLimit { dead.insert(node) }
        return any
    }

    /// Records a line that reaches the target with `end` on the board: the first (shortest)
    /// lines of each placement are kept; a longer one to a placement already reached is that
    /// line with moves that cancel out.
    private mutating func record(_ end: PackedBoard) {
        if let lines = ends[end] {
            guard let first = lines.first, first.count == path.count, lines.count <= lineLimit else { return }
            ends[end] = lines + [path]
        } else {
            ends[end] = [path]
        }
    }

    private func reaches(_ board: PackedBoard, _ target: Target) -> Bool {
        switch target {
        case .placement(let placement): board == placement
        case .occupancy(let occupancy): board.occupancy == occupancy
        }
    }

    /// Whether `remaining` plies from `board`, `mover` to move with `rights` (or fewer),
    /// may still reach `target` (never `false` when they can).
    private func canReach(
        _ mover: PieceColor, _ rights: CastlingRights, _ board: PackedBoard, _ target: Target, in remaining: Int
    ) -> Bool {
        let moverMoves = (remaining + 1) / 2
        let otherMoves = remaining / 2
        switch target {
        case .placement(let placement):
            let lostWhite = Self.count(of: .white, on: board) - Self.count(of: .white, on: placement)
            let lostBlack = Self.count(of: .black, on: board) - Self.count(of: .black, on: placement)
            guard lostWhite >= 0, lostBlack >= 0 else { return false }
            func fits(_ color: PieceColor, moves: Int) -> Bool {
                let arrivals = Self.arrivals(of: color, on: board, target: placement)
                let castles = rights.contains(anyOf: color) ? 1 : 0
                let (lost, taken) = color == .white ? (lostWhite, lostBlack) : (lostBlack, lostWhite)
                // Each piece taken needs a move of its own; a capturer that was not taken
                // back and stands on no new square went home again: one move more.
                let captures = lost == 0 && arrivals == 0 && taken > 0 ? taken + 1 : taken
                return arrivals - castles <= moves && captures <= moves
            }
            return fits(mover, moves: moverMoves) && fits(mover.opponent, moves: otherMoves)
        case .occupancy(let occupancy):
            let current = board.occupancy
            // Each capture removes one piece for good: exactly this many are left to make.
            let captures = current.nonzeroBitCount - occupancy.nonzeroBitCount
            guard captures >= 0, captures <= remaining else { return false }
            let castlesWhite = rights.contains(anyOf: .white) ? 1 : 0
            let castlesBlack = rights.contains(anyOf: .black) ? 1 : 0
            let fills = (occupancy & ~current).nonzeroBitCount
            guard fills <= remaining + castlesWhite + castlesBlack else { return false }
            // A square whose piece must go is left by a move of that piece's colour (castling
            // leaves two) or its piece is taken (a capture).
            let empties = current & ~occupancy
            let whiteEmpties = Self.count(of: .white, on: board, in: empties)
            let blackEmpties = empties.nonzeroBitCount - whiteEmpties
            let (whiteMoves, blackMoves) = mover == .white ? (moverMoves, otherMoves) : (otherMoves, moverMoves)
            return whiteEmpties <= whiteMoves + castlesWhite + captures
                && blackEmpties <= blackMoves + castlesBlack + captures
        }
    }

    /// The pieces of `color` on `board` (on the squares of `squares` only, when given).
    static func count(of color: PieceColor, on board: PackedBoard, in squares: UInt64? = nil) -> Int {
        var count = 0
        var bits = squares ?? board.occupancy
        let colorBit: UInt64 = color == .white ? 0 : 8
        while bits != 0 {
            if board.code(at: bits.trailingZeroBitCount) & 8 == colorBit { count += 1 }
            bits &= bits - 1
        }
        return count
    }

    /// The squares where `target` holds a piece of `color` that `board` does not hold there.
    static func arrivals(of color: PieceColor, on board: PackedBoard, target: PackedBoard) -> Int {
        var count = 0
        var bits = board.differences(from: target)
        let colorBit: UInt64 = color == .white ? 0 : 8
        while bits != 0 {
            let square = bits.trailingZeroBitCount
            let code = target.code(at: square)
            if code != 0, code & 8 == colorBit { count += 1 }
            bits &= bits - 1
        }
        return count
    }
}

extension CastlingRights {
    /// Whether any right of `color` is left.
    func contains(anyOf color: PieceColor) -> Bool {
        color == .white
            ? contains(.whiteKingside) || contains(.whiteQueenside)
            : contains(.blackKingside) || contains(.blackQueenside)
    }
}
