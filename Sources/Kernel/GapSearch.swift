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
/// - occupancy: every square the target fills needs a move to fill it (castling fills
///   two), every square it empties a move or a capture to empty it.
///
/// On an occupancy board a promotion is ambiguous by nature (the four pieces fill the
/// same square): a line with one is reported, never guessed.
///
/// A line that puts a piece somewhere and takes it back leaves the board as a shorter
/// line does; the board cannot tell them apart, and on an identity board the shortest
/// lines are the ones returned. On an occupancy board a line counts only when no line
/// of any other length up to ``maxPlies`` fills the same squares (``everyLength``).
///
/// The search also stops after ``nodeLimit`` expanded positions (a fraction of a second):
/// the gap is then too far to judge.
struct GapSearch {
    /// What the board shows.
    enum Target {
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

    /// The longest line looked for.
    var maxPlies: Int
    /// The most positions generated before giving up.
    var nodeLimit: Int = 200_000
    /// Whether a line counts only when no line of another length leads there either
    /// (occupancy: a shorter line may fill the same squares with other pieces); otherwise
    /// the shortest lines are the answer.
    var everyLength = false
    /// The most candidate lines reported for an ambiguous gap.
    static let maxLines = 8

    private var nodes = 0
    private var found: [[Move]] = []
    private var path: [Move] = []

    /// A search for lines of up to `maxPlies` plies.
    init(maxPlies: Int) {
        self.maxPlies = maxPlies
    }

    /// Searches from `position` (placed as `board`) to `target`.
    mutating func run(from position: Position, board: PackedBoard, to target: Target) -> Outcome {
        nodes = 0
        found = []
        guard maxPlies > 0 else { return .notFound }
        var shortest: Int?
        for depth in 1...maxPlies {
            path = []
            search(position, board, target, remaining: depth)
            if nodes > nodeLimit {
                return shortest == nil ? .notFound : .ambiguous(plies: shortest ?? depth, lines: [])
            }
            if !found.isEmpty, shortest == nil { shortest = depth }
            if let shortest, !everyLength || found.count > Self.maxLines || depth == maxPlies {
                return found.count == 1
                    ? .line(found[0]) : .ambiguous(plies: shortest, lines: found.count > Self.maxLines ? [] : found)
            }
        }
        return .notFound
    }

    private mutating func search(_ position: Position, _ board: PackedBoard, _ target: Target, remaining: Int) {
        if remaining == 0 {
            if reaches(board, target) { found.append(path) }
            return
        }
        guard found.count <= Self.maxLines, nodes <= nodeLimit, canReach(position, board, target, in: remaining)
        else { return }
        nodes += 1
        for move in position.legalMoves() {
            let next = MoveCandidate(move: move, on: board).result
            path.append(move)
            search(position.applying(move), next, target, remaining: remaining - 1)
            path.removeLast()
        }
    }

    private func reaches(_ board: PackedBoard, _ target: Target) -> Bool {
        switch target {
        case .placement(let placement): board == placement
        case .occupancy(let occupancy): board.occupancy == occupancy
        }
    }

    /// Whether `remaining` plies from `position` may still reach `target` (never `false`
    /// when they can).
    private func canReach(_ position: Position, _ board: PackedBoard, _ target: Target, in remaining: Int) -> Bool {
        let moverMoves = (remaining + 1) / 2
        let otherMoves = remaining / 2
        switch target {
        case .placement(let placement):
            let mover = position.sideToMove
            let lostWhite = Self.count(of: .white, on: board) - Self.count(of: .white, on: placement)
            let lostBlack = Self.count(of: .black, on: board) - Self.count(of: .black, on: placement)
            guard lostWhite >= 0, lostBlack >= 0 else { return false }
            func fits(_ color: PieceColor, moves: Int) -> Bool {
                let arrivals = Self.arrivals(of: color, on: board, target: placement)
                let castles = position.castlingRights.contains(anyOf: color) ? 1 : 0
                let (lost, taken) = color == .white ? (lostWhite, lostBlack) : (lostBlack, lostWhite)
                // Each piece taken needs a move of its own; a capturer that was not taken
                // back and stands on no new square went home again: one move more.
                let captures = lost == 0 && arrivals == 0 && taken > 0 ? taken + 1 : taken
                return arrivals - castles <= moves && captures <= moves
            }
            return fits(mover, moves: moverMoves) && fits(mover.opponent, moves: otherMoves)
        case .occupancy(let occupancy):
            let current = board.occupancy
            let fills = (occupancy & ~current).nonzeroBitCount
            let empties = (current & ~occupancy).nonzeroBitCount
            let castles =
                (position.castlingRights.contains(anyOf: .white) ? 1 : 0)
                + (position.castlingRights.contains(anyOf: .black) ? 1 : 0)
            return fills <= remaining + castles && empties <= 2 * remaining
        }
    }

    /// The pieces of `color` on `board`.
    static func count(of color: PieceColor, on board: PackedBoard) -> Int {
        var count = 0
        var bits = board.occupancy
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
