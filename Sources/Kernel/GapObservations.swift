import Chess

/// What the board showed after a gap that no line could read: every line later taken for
/// the gap must pass through each of these boards, in a position or between two
/// consecutive ones (a move under way).
///
/// Without them, a board that left the game by four plies (a gap refused as missed) and
/// came back, with two more moves that undid two of the four, to a placement that a
/// two-ply line also reaches, was read as those two plies: every later move was then
/// numbered four plies low (issue #29). The boards seen on the way rule that line out.
///
/// Bounded: past ``capacity`` boards the gap is taken as unreadable (no line is allowed
/// until the arbiter or a new game resets it), so memory stays small whatever the board
/// shows.
struct GapObservations: Sendable, Equatable {
    /// The most boards kept for one gap.
    static let capacity = 32
    /// How many pieces a board between two positions may lack (held in hand, or knocked
    /// over) and still stand between them.
    static let piecesInHand = 2

    private var boards: [GapSearch.Target] = []
    /// Whether more boards were seen than are kept.
    private(set) var overflowed = false

    /// The most boards one move in progress shows on an occupancy board (castling with both
    /// pieces lifted: king, rook, and one placed).
    static let oneMove = 3

    /// How many boards were seen (more than ``capacity`` when overflowed).
    var count: Int { overflowed ? Self.capacity + 1 : boards.count }

    /// Whether nothing was seen that a line must pass.
    var isEmpty: Bool { boards.isEmpty && !overflowed }

    /// The board showed `target`, which no line read.
    mutating func record(_ target: GapSearch.Target) {
        guard !overflowed, boards.last != target else { return }
        boards.append(target)
        if boards.count > Self.capacity {
            overflowed = true
            boards = []
        }
    }

    /// Forgets every board (the gap is read, or the game was replaced).
    mutating func clear() {
        self = GapObservations()
    }

    /// Whether `moves` from `start` may be taken for the gap: every board seen stands on
    /// the way, or the board now shows what no play from the last board seen can reach
    /// (pawns gone back, pieces come back: the moves were taken back or the board set up
    /// again, and what it shows now is all there is to read).
    func allow(_ moves: [Move], from start: Position, showing target: GapSearch.Target) -> Bool {
        guard !overflowed else { return false }
        guard let last = boards.last else { return true }
        if passes(moves, from: start) { return true }
        return !Self.playMayLead(from: last, to: target)
    }

    /// Whether every board seen stands on the way from `start` along `moves`.
    private func passes(_ moves: [Move], from start: Position) -> Bool {
        var placements = [PackedBoard(position: start)]
        var position = start
        for move in moves {
            position = position.applying(move)
            placements.append(PackedBoard(position: position))
        }
        let last = placements[placements.count - 1]
        let steps = Array(zip(placements, placements.dropFirst())) + [(last, last)]
        return boards.allSatisfy { seen in
            steps.contains { step in
                switch seen {
                case .placement(let board): Self.stands(board, between: step.0, and: step.1)
                case .occupancy(let bits): Self.stands(bits, between: step.0.occupancy, and: step.1.occupancy)
                }
            }
        }
    }

    /// Whether `seen` is `before`, `after`, or a board on the way from one to the other:
    /// each square holds what one of them holds, or is empty where both hold a piece (at
    /// most ``piecesInHand`` such squares).
    static func stands(_ seen: PackedBoard, between before: PackedBoard, and after: PackedBoard) -> Bool {
        var inHand = 0
        for square in 0..<64 {
            let code = seen.code(at: square)
            let first = before.code(at: square)
            let second = after.code(at: square)
            if code == first || code == second { continue }
            guard code == 0 else { return false }
            inHand += 1
            if inHand > piecesInHand { return false }
        }
        return true
    }

    /// The same for occupancy: no square filled that neither fills, at most
    /// ``piecesInHand`` empty that both fill.
    static func stands(_ seen: UInt64, between before: UInt64, and after: UInt64) -> Bool {
        seen & ~(before | after) == 0 && ((before & after) & ~seen).nonzeroBitCount <= piecesInHand
    }

    /// Whether legal play may lead from the board `seen` to `target` (a necessary test: a
    /// `false` is certain). No side gains pieces, and every pawn of `target` has a pawn of
    /// its colour in `seen` that can walk there (never backwards, one file aside per rank
    /// at most). Occupancy says no more than the count of pieces.
    static func playMayLead(from seen: GapSearch.Target, to target: GapSearch.Target) -> Bool {
        switch (seen, target) {
        case (.placement(let from), .placement(let to)):
            for color: UInt64 in [0, 8] {
                func count(_ board: PackedBoard, pawnsOnly: Bool) -> Int {
                    (0..<64).filter { square in
                        let code = board.code(at: square)
                        return code != 0 && code & 8 == color && (!pawnsOnly || code & 7 == 1)
                    }.count
                }
                if count(to, pawnsOnly: false) > count(from, pawnsOnly: false) { return false }
                if count(to, pawnsOnly: true) > count(from, pawnsOnly: true) { return false }
                let pawn = color | 1
                let sources = (0..<64).filter { from.code(at: $0) == pawn }
                for square in 0..<64 where to.code(at: square) == pawn {
                    let reachable = sources.contains { source in
                        let advance = color == 0 ? (square >> 3) - (source >> 3) : (source >> 3) - (square >> 3)
                        return advance >= 0 && abs((square & 7) - (source & 7)) <= advance
                    }
                    if !reachable { return false }
                }
            }
            return true
        default:
            let from = Self.bits(of: seen)
            let to = Self.bits(of: target)
            return to.nonzeroBitCount <= from.nonzeroBitCount
        }
    }

    private static func bits(of target: GapSearch.Target) -> UInt64 {
        switch target {
        case .placement(let board): board.occupancy
        case .occupancy(let bits): bits
        }
    }
}
