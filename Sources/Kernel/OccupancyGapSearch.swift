import BoardKit
import Chess

/// Finds every placement the moves made while nobody watched may have left on an occupancy
/// board: the board says only which squares hold a piece, and lines to different
/// placements may fill the same squares (another piece, another capture, a promotion to
/// another piece, two pieces of a side that changed places). Each placement is given with
/// its shortest lines; a longer line to a placement already reached is one of them with
/// moves that cancel out (a piece out and back, a tempo lost), which no board tells apart.
///
/// Breadth first, one ply at a time up to ``maxPlies``: every position is expanded once,
/// at the first ply it is reached (a later arrival is a longer way to the same position,
/// and reaches nothing it does not), and kept only while the plies left may still fill the
/// squares shown (``OccupancyReach``). Each position keeps up to ``linesPerPlacement`` of
/// the moves that reached it first, so that the orders of the same moves to one placement
/// are all listed.
///
/// Bounded: past ``nodeLimit`` expanded positions the search gives up (the gap is too far
/// to read), and so it does past
/// ``lineLimit`` lines (more than are followed, ``GapHistories/capacity``).
struct OccupancyGapSearch {
    /// A position: its moves depend on the side to move, castling and en passant.
    private struct State: Hashable {
        var board: PackedBoard
        var sideToMove: PieceColor
        var castlingRights: CastlingRights
        var enPassantSquare: Square?
    }

    /// A position reached, with the move that reached it first.
    private struct Reached {
        var position: Position
        var board: PackedBoard
        var ply: Int
        /// The position (index) it was first reached from, and the move; `nil` at the start.
        var parent: (index: Int, move: Move)?
    }

    /// The positions reached, and for those reached at their first ply in more than one way
    /// (another order of the same moves) the other ways.
    private struct Tree {
        var reached: [Reached]
        var otherParents: [Int: [(index: Int, move: Move)]] = [:]

        /// Every way `index` was first reached.
        func parents(of index: Int) -> [(index: Int, move: Move)] {
            guard let first = reached[index].parent else { return [] }
            return [first] + (otherParents[index] ?? [])
        }
    }

    /// The longest line looked for.
    var maxPlies: Int
    /// The most positions expanded before giving up.
    var nodeLimit = 30_000
    /// The most lines (and so placements) before giving up.
    var lineLimit = GapHistories.capacity
    /// The most shortest lines kept for one placement (orders of the same moves).
    static let linesPerPlacement = 4

    /// Positions expanded by the last search.
    private(set) var nodes = 0

    /// A search for lines of up to `maxPlies` plies.
    init(maxPlies: Int) {
        self.maxPlies = maxPlies
    }

    /// What the search found.
    enum Found: Equatable {
        /// For every placement that fills the squares: its shortest lines (up to
        /// ``linesPerPlacement``), all shortest first; none when no line fills them.
        case lines([[Move]])
        /// The search gave up; `plies` is the length of the shortest line it had found, if any.
        case tooMany(plies: Int?)
    }

    /// Every placement that fills `occupancy` and that a line of up to ``maxPlies`` plies
    /// from `position` (placed as `board`) reaches, with its shortest lines.
    mutating func lines(from position: Position, board: PackedBoard, occupancy: UInt64) -> Found {
        nodes = 0
        guard maxPlies > 0 else { return .lines([]) }
        var tree = Tree(reached: [Reached(position: position, board: board, ply: 0, parent: nil)])
        var index: [State: Int] = [Self.state(position, board): 0]
        // For each placement filling the squares: the positions of its shortest lines.
        var ends: [PackedBoard: [Int]] = [:]
        var frontier = [0]
        var shortest: Int?
        for ply in 1...maxPlies where !frontier.isEmpty {
            var next: [Int] = []
            let remaining = maxPlies - ply
            for parent in frontier {
                nodes += 1
                guard nodes <= nodeLimit else { return .tooMany(plies: shortest) }
                let position = tree.reached[parent].position
                let board = tree.reached[parent].board
                let reach = OccupancyReach(target: occupancy, rights: position.castlingRights)
                // A last move must leave a square the target empties (every move leaves its own).
                let leaving = remaining == 0 ? board.occupancy & ~occupancy : nil
                for move in position.legalMoves(fromAny: leaving) {
                    let after = board.applying(move)
                    guard
                        remaining == 0
                            ? after.occupancy == occupancy
                            : reach.allows(after, mover: position.sideToMove.opponent, in: remaining)
                    else { continue }
                    let moved = position.applying(move)
                    let state = Self.state(moved, after)
                    if let known = index[state] {
                        // A second way of the same length: another order of the same moves.
                        if tree.reached[known].ply == ply,
                            tree.otherParents[known, default: []].count + 1 < Self.linesPerPlacement
                        {
                            tree.otherParents[known, default: []].append((parent, move))
                        }
                        continue
                    }
                    let new = tree.reached.count
                    index[state] = new
                    if after.occupancy == occupancy {
                        let first = ends[after]?.first.map { tree.reached[$0].ply }
                        if first == nil || first == ply {
                            ends[after, default: []].append(new)
                            shortest = shortest ?? ply
                            guard ends.count <= lineLimit else { return .tooMany(plies: shortest) }
                        }
                    }
                    next.append(new)
                    tree.reached.append(Reached(position: moved, board: after, ply: ply, parent: (parent, move)))
                }
            }
            frontier = next
        }
        var lines: [[Move]] = []
        for positions in ends.values {
            var found: [[Move]] = []
            for end in positions where found.count < Self.linesPerPlacement {
                found += Self.paths(to: end, in: tree, limit: Self.linesPerPlacement - found.count)
            }
            lines += found
            guard lines.count <= lineLimit else { return .tooMany(plies: shortest) }
        }
        return .lines(lines.sorted { $0.count < $1.count })
    }

    /// Up to `limit` lines from the start to the position `end`, by the moves that reached
    /// each position first.
    private static func paths(to end: Int, in tree: Tree, limit: Int) -> [[Move]] {
        let parents = tree.parents(of: end)
        guard !parents.isEmpty else { return [[]] }
        var paths: [[Move]] = []
        for (parent, move) in parents where paths.count < limit {
            for path in Self.paths(to: parent, in: tree, limit: limit - paths.count) {
                paths.append(path + [move])
            }
        }
        return paths
    }

    private static func state(_ position: Position, _ board: PackedBoard) -> State {
        State(
            board: board, sideToMove: position.sideToMove, castlingRights: position.castlingRights,
            enPassantSquare: position.enPassantSquare)
    }
}

/// Whether some plies from a placement may still fill exactly the squares of a target
/// occupancy (never `false` when they can): the line makes exactly as many captures as
/// pieces are gone; every square the target fills needs a move to fill it (castling fills
/// two), and every square of one colour's piece that the target empties needs a move of
/// that colour from it (castling empties two) or a capture.
struct OccupancyReach {
    /// The squares the board shows filled.
    var target: UInt64
    /// The castling rights before the move just made (those after it are a subset of these,
    /// so the bound stays safe).
    var rights: CastlingRights

    /// Whether `remaining` plies from `board`, `mover` to move, may fill `target`.
    func allows(_ board: PackedBoard, mover: PieceColor, in remaining: Int) -> Bool {
        let current = board.occupancy
        // Each capture removes one piece for good: exactly this many are left to make.
        let captures = current.nonzeroBitCount - target.nonzeroBitCount
        guard captures >= 0, captures <= remaining else { return false }
        let castlesWhite = rights.contains(anyOf: .white) ? 1 : 0
        let castlesBlack = rights.contains(anyOf: .black) ? 1 : 0
        let fills = (target & ~current).nonzeroBitCount
        guard fills <= remaining + castlesWhite + castlesBlack else { return false }
        // A square whose piece must go is left by a move of that piece's colour (castling
        // leaves two) or its piece is taken (a capture).
        let empties = current & ~target
        let whiteEmpties = GapSearch.count(of: .white, on: board, in: empties)
        let blackEmpties = empties.nonzeroBitCount - whiteEmpties
        let moverMoves = (remaining + 1) / 2
        let otherMoves = remaining / 2
        let (whiteMoves, blackMoves) = mover == .white ? (moverMoves, otherMoves) : (otherMoves, moverMoves)
        return whiteEmpties <= whiteMoves + castlesWhite + captures
            && blackEmpties <= blackMoves + castlesBlack + captures
    }
}
