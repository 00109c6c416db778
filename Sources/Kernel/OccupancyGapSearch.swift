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
    /// A position: its moves depend on the side to move, castling and en passant (packed
    /// into one integer beside the placement).
    private struct State: Equatable {
        var board: PackedBoard
        /// Bit 0: Black to move; bits 1–4: castling rights; bits 8–15: the en passant
        /// square + 1 (0: none).
        var rest: UInt16

        init(_ position: Position, _ board: PackedBoard) {
            self.board = board
            let side: UInt16 = position.sideToMove == .black ? 1 : 0
            let enPassant = UInt16(position.enPassantSquare.map { $0.rawValue + 1 } ?? 0)
            rest = side | UInt16(position.castlingRights.rawValue) << 1 | enPassant << 8
        }

        /// An empty board, White to move: what a free slot of ``StateTable`` holds.
        init() {
            board = PackedBoard()
            rest = 0
        }

        static func == (lhs: State, rhs: State) -> Bool {
            lhs.rest == rhs.rest && lhs.board == rhs.board
        }
    }

    /// The positions reached, by state: an open-addressed table probed once per move kept
    /// (the search's hot spot: a `Dictionary` keyed by the state cost half of its time in
    /// `Hasher`, a lookup and then an insert, and its growth).
    private struct StateTable {
        private var keys: [State]
        /// The value stored in each slot; -1: the slot is free.
        private var values: [Int32]
        private var mask: Int
        private var count = 0

        /// Room for `capacity` states before it grows.
        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 { size *= 2 }
            keys = Array(repeating: State(), count: size)
            values = Array(repeating: -1, count: size)
            mask = size - 1
        }

        /// The value of `state` if it is in the table; otherwise `nil`, and it is added with `value`.
        mutating func value(of state: State, orAdd value: Int) -> Int? {
            if count * 2 >= values.count { grow() }
            var slot = Self.slot(of: state, mask: mask)
            while values[slot] >= 0 {
                if keys[slot] == state { return Int(values[slot]) }
                slot = (slot + 1) & mask
            }
            keys[slot] = state
            values[slot] = Int32(value)
            count += 1
            return nil
        }

        private static func slot(of state: State, mask: Int) -> Int {
            Int(truncatingIfNeeded: state.board.mixed(with: UInt64(state.rest))) & mask
        }

        private mutating func grow() {
            let (oldKeys, oldValues) = (keys, values)
            keys = Array(repeating: State(), count: keys.count * 2)
            values = Array(repeating: -1, count: keys.count)
            mask = keys.count - 1
            for (key, value) in zip(oldKeys, oldValues) where value >= 0 {
                var slot = Self.slot(of: key, mask: mask)
                while values[slot] >= 0 { slot = (slot + 1) & mask }
                keys[slot] = key
                values[slot] = value
            }
        }
    }

    /// A position still to be expanded: its index in the positions reached, itself, its placement.
    private typealias Open = (index: Int, position: Position, board: PackedBoard)

    /// A position reached, with the move that reached it first (the position itself is kept
    /// only while it is to be expanded: a long gap reaches hundreds of thousands).
    private struct Reached {
        var ply: Int
        /// The position (index) it was first reached from, and the move; `nil` at the start.
        var parent: (index: Int, move: Move)?
        /// The other ways it was reached at that ply (other orders of the same moves).
        var otherParents: [(index: Int, move: Move)] = []

        /// Every way it was first reached.
        var parents: [(index: Int, move: Move)] {
            guard let parent else { return [] }
            return [parent] + otherParents
        }
    }

    /// The longest line looked for.
    var maxPlies: Int
    /// The most positions expanded before giving up.
    var nodeLimit = 30_000
    /// The most lines (and so placements) before giving up.
    var lineLimit = GapHistories.capacity
    /// Whether the search stops building a ply it is sure not to expand within
    /// ``nodeLimit`` (its answer is the same; a test compares it with the search that does not).
    var givesUpOnceSure = true
    /// The most shortest lines kept for one placement (orders of the same moves).
    static let linesPerPlacement = 4

    /// The room made at once for the positions a search of 4 plies or more reaches.
    private static let reservedPositions = 1 << 14

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
        var reached = [Reached(ply: 0, parent: nil)]
        // A long gap reaches tens of thousands of positions: room made once.
        let capacity = maxPlies >= 4 ? Self.reservedPositions : 256
        reached.reserveCapacity(capacity)
        var index = StateTable(capacity: capacity)
        _ = index.value(of: State(position, board), orAdd: 0)
        // For each placement filling the squares: the positions of its shortest lines.
        var ends: [PackedBoard: [Int]] = [:]
        var frontier = [(index: 0, position: position, board: board)]
        var shortest: Int?
        for ply in 1...maxPlies where !frontier.isEmpty {
            var next: [Open] = []
            let remaining = maxPlies - ply
            // The positions of the next ply the limit lets be expanded.
            let budget = nodeLimit - nodes - frontier.count
            for (offset, (parent, position, board)) in frontier.enumerated() {
                if givesUpOnceSure, remaining > 0, next.count > budget {
                    // The next ply cannot be expanded within the limit: the search gives up
                    // there, and all that is left to learn is whether a line it would have
                    // found first is shorter than any found so far (a long gap's frontier
                    // ran to hundreds of thousands of positions, built only to be dropped).
                    return .tooMany(
                        plies: shortest
                            ?? firstEnd(after: frontier[offset...], ply: ply, then: next, occupancy: occupancy))
                }
                nodes += 1
                guard nodes <= nodeLimit else { return .tooMany(plies: shortest) }
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
                    let new = reached.count
                    if let known = index.value(of: State(moved, after), orAdd: new) {
                        // A second way of the same length: another order of the same moves.
                        if reached[known].ply == ply, reached[known].otherParents.count + 1 < Self.linesPerPlacement {
                            reached[known].otherParents.append((parent, move))
                        }
                        continue
                    }
                    if after.occupancy == occupancy {
                        let first = ends[after]?.first.map { reached[$0].ply }
                        if first == nil || first == ply {
                            ends[after, default: []].append(new)
                            shortest = shortest ?? ply
                            guard ends.count <= lineLimit else { return .tooMany(plies: shortest) }
                        }
                    }
                    reached.append(Reached(ply: ply, parent: (parent, move)))
                    // The last ply's positions are ends or nothing: none is expanded.
                    if remaining > 0 { next.append((new, moved, after)) }
                }
            }
            frontier = next
        }
        var lines: [[Move]] = []
        for positions in ends.values {
            var found: [[Move]] = []
            for end in positions where found.count < Self.linesPerPlacement {
                found += Self.paths(to: end, in: reached, limit: Self.linesPerPlacement - found.count)
            }
            lines += found
            guard lines.count <= lineLimit else { return .tooMany(plies: shortest) }
        }
        return .lines(lines.sorted { $0.count < $1.count })
    }

    /// The ply of the first line the search would have found before it gave up, once it is
    /// sure to give up in the ply after `ply` and has found none yet: the positions left of
    /// `ply` (`rest`), then those of `next` that the limit lets be expanded, are each looked
    /// at for one move to the squares shown, in the order the search would have expanded
    /// them. Whether a position is new does not matter here: one reached before with the
    /// squares shown would have been a line found.
    private mutating func firstEnd(
        after rest: ArraySlice<Open>, ply: Int,
        then next: [Open], occupancy: UInt64
    ) -> Int? {
        for (_, position, board) in rest {
            nodes += 1
            guard nodes <= nodeLimit else { return nil }
            if Self.reachesInOneMove(position, board, occupancy: occupancy) { return ply }
        }
        for (_, position, board) in next {
            nodes += 1
            guard nodes <= nodeLimit else { return nil }
            if Self.reachesInOneMove(position, board, occupancy: occupancy) { return ply + 1 }
        }
        return nil
    }

    /// Whether one legal move from `position` (placed as `board`) fills exactly `occupancy`:
    /// it leaves a square the target empties; a move changes at most four squares (castling).
    private static func reachesInOneMove(_ position: Position, _ board: PackedBoard, occupancy: UInt64) -> Bool {
        let changed = board.occupancy ^ occupancy
        let leaving = board.occupancy & ~occupancy
        guard leaving != 0, changed.nonzeroBitCount <= 4 else { return false }
        return position.legalMoves(fromSquaresIn: leaving).contains { board.applying($0).occupancy == occupancy }
    }

    /// Up to `limit` lines from the start to the position `end`, by the moves that reached
    /// each position first.
    private static func paths(to end: Int, in reached: [Reached], limit: Int) -> [[Move]] {
        let parents = reached[end].parents
        guard !parents.isEmpty else { return [[]] }
        var paths: [[Move]] = []
        for (parent, move) in parents where paths.count < limit {
            for path in Self.paths(to: parent, in: reached, limit: limit - paths.count) {
                paths.append(path + [move])
            }
        }
        return paths
    }
}

/// Whether some plies from a placement may still fill exactly the squares of a target
/// occupancy (never `false` when they can): the line makes exactly as many captures as
/// pieces are gone; every square the target fills needs a move to fill it (castling fills
/// two), and every square of one colour's piece that the target empties needs a move of
/// that colour from it (castling empties two) or a capture.
struct OccupancyReach {
    /// The squares the board shows filled.
    let target: UInt64
    /// How many pieces the target holds.
    private let targetCount: Int
    /// Whether White, Black may still castle (1) or not (0), by the castling rights before
    /// the move just made (those after it are a subset of these, so the bound stays safe).
    private let castlesWhite: Int
    private let castlesBlack: Int

    /// The bound for `target`, with the castling rights before the move just made.
    init(target: UInt64, rights: CastlingRights) {
        self.target = target
        targetCount = target.nonzeroBitCount
        castlesWhite = rights.contains(anyOf: .white) ? 1 : 0
        castlesBlack = rights.contains(anyOf: .black) ? 1 : 0
    }

    /// Whether `remaining` plies from `board`, `mover` to move, may fill `target`.
    func allows(_ board: PackedBoard, mover: PieceColor, in remaining: Int) -> Bool {
        let current = board.occupancy
        // Each capture removes one piece for good: exactly this many are left to make.
        let captures = current.nonzeroBitCount - targetCount
        guard captures >= 0, captures <= remaining else { return false }
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
