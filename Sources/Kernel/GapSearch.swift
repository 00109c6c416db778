import BoardKit
import Chess

/// Finds the moves made while nobody watched (the link or the bridge was down) on a
/// piece-identity board: the legal lines from the last known position to the placement
/// the board shows now, shortest first. (An occupancy board's gaps are searched by
/// ``OccupancyGapSearch``, which lists every placement that fills the squares shown.)
///
/// Iterative deepening up to ``maxPlies``; a branch is cut as soon as the plies left
/// cannot reach the target: every square where the target holds a piece of one colour
/// that the board does not hold there needs a move of that colour to put it there (one
/// move puts one piece, castling two), every piece missing a move of the other colour to
/// take it (and one more to leave the square when that side has no new square and lost
/// nothing).
///
/// The shortest lines are the answer: a line that puts a piece somewhere and takes it
/// back leaves the board as a shorter line does.
///
/// The search stops after ``nodeLimit`` expanded positions (a fraction of a second): the
/// gap is then too far to judge (ambiguous when a line was found). Positions proved to
/// lead nowhere in the plies left are remembered (at most ``deadLimit`` of them) and not
/// searched again.
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
    /// The most candidate lines reported for an ambiguous gap.
    static let maxLines = 8

    /// Positions expanded by the last ``run(from:board:to:)``.
    private(set) var nodes = 0
    private var found: [[Move]] = []
    private var dead: Set<Node> = []
    private var path: [Move] = []

    /// A search for lines of up to `maxPlies` plies.
    init(maxPlies: Int) {
        self.maxPlies = maxPlies
    }

    /// Searches from `position` (placed as `board`) to `placement`.
    mutating func run(from position: Position, board: PackedBoard, to placement: PackedBoard) -> Outcome {
        nodes = 0
        found = []
        dead = []
        guard maxPlies > 0 else { return .notFound }
        for depth in 1...maxPlies {
            path = []
            _ = search(position, board, placement, remaining: depth)
            if nodes > nodeLimit { return found.isEmpty ? .notFound : .ambiguous(plies: depth, lines: []) }
            guard !found.isEmpty else { continue }
            return found.count == 1
                ? .line(found[0]) : .ambiguous(plies: depth, lines: found.count > Self.maxLines ? [] : found)
        }
        return .notFound
    }

    /// Searches `remaining` plies on; returns whether a line was found below.
    private mutating func search(
        _ position: Position, _ board: PackedBoard, _ target: PackedBoard, remaining: Int
    ) -> Bool {
        if remaining == 0 {
            guard board == target else { return false }
            found.append(path)
            return true
        }
        guard found.count <= Self.maxLines, nodes <= nodeLimit,
            canReach(position.sideToMove, position.castlingRights, board, target, in: remaining)
        else { return false }
        let node = Node(
            board: board, sideToMove: position.sideToMove, castlingRights: position.castlingRights,
            enPassantSquare: position.enPassantSquare, remaining: remaining)
        guard !dead.contains(node) else { return false }
        nodes += 1
        var any = false
        let opponent = position.sideToMove.opponent
        for move in position.legalMoves() {
            let next = board.applying(move)
            // Cut before the position is made (the rights after the move are a subset of
            // these, so the bound stays safe).
            let promising =
                remaining == 1
                ? next == target : canReach(opponent, position.castlingRights, next, target, in: remaining - 1)
            guard promising else { continue }
            path.append(move)
            if search(position.applying(move), next, target, remaining: remaining - 1) { any = true }
            path.removeLast()
        }
        if !any, nodes <= nodeLimit, dead.count < deadLimit { dead.insert(node) }
        return any
    }

    /// Whether `remaining` plies from `board`, `mover` to move with `rights` (or fewer),
    /// may still reach `placement` (never `false` when they can).
    private func canReach(
        _ mover: PieceColor, _ rights: CastlingRights, _ board: PackedBoard, _ placement: PackedBoard, in remaining: Int
    ) -> Bool {
        let moverMoves = (remaining + 1) / 2
        let otherMoves = remaining / 2
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

extension Position {
    /// The legal moves; only those from the squares of `squares` when given (a gap's line
    /// whose moves must start where the board changed).
    func legalMoves(fromAny squares: UInt64?) -> [Move] {
        guard let squares else { return legalMoves() }
        return legalMoves(fromSquaresIn: squares)
    }
}
