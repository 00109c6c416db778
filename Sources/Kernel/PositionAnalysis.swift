import BoardKit
import Chess

/// A move together with what it does to the board, precomputed so that a board
/// observation can be matched against it with a few integer operations.
struct MoveCandidate: Sendable {
    /// The move.
    let move: Move
    /// The placement after the move.
    let result: PackedBoard
    /// The squares whose content the move changes.
    let changed: UInt64
    /// The occupied squares after the move.
    let resultOccupancy: UInt64
    /// Whether the move promotes a pawn.
    let isPromotion: Bool
    /// Whether the move castles.
    let isCastling: Bool
    /// The mover's pawn code (for a pawn standing on the promotion square mid-move).
    let pawnCode: UInt64
    /// For a rook move that is also the rook half of a legal castling: that castling.
    var castlingCompletion: Move?

    /// Computes the candidate for `move` played on `board` (a legal or pseudo-legal move).
    init(move: Move, on board: PackedBoard) {
        self.move = move
        let colorBit = board.code(at: move.from.rawValue) & 8
        let result = board.applying(move)
        self.result = result
        changed = result.differences(from: board)
        resultOccupancy = result.occupancy
        isPromotion = move.promotion != nil
        isCastling = board.code(at: move.from.rawValue) & 7 == 6 && abs(move.to.file - move.from.file) == 2
        pawnCode = 1 | colorBit
    }

    /// The rook's squares for a castling move (`from`, `to`), or `nil` for any other move.
    var castlingRook: (from: Square, to: Square)? {
        guard isCastling else { return nil }
        let kingside = move.to.file > move.from.file
        let rank = move.from.rank
        guard let from = Square(file: kingside ? 7 : 0, rank: rank), let to = Square(file: kingside ? 5 : 3, rank: rank)
        else { return nil }
        return (from, to)
    }

    /// Whether `board`, which differs from `before` exactly on `difference`, is a state
    /// the board passes through while this move is being made: every differing square is
    /// one the move changes, and shows its old content (impossible, as it differs), its
    /// new content, nothing (a piece in the hand) or, on the promotion square, the pawn.
    @inline(__always)
    func isIntermediate(_ board: PackedBoard, difference: UInt64) -> Bool {
        guard difference & ~changed == 0 else { return false }
        var bits = difference
        while bits != 0 {
            let square = bits.trailingZeroBitCount
            let code = board.code(at: square)
            if code != 0, code != result.code(at: square),
                !(isPromotion && square == move.to.rawValue && code == pawnCode)
            {
                return false
            }
            bits &= bits - 1
        }
        return true
    }
}

/// A position with its legal moves precomputed as ``MoveCandidate``s.
struct PositionAnalysis: Sendable {
    /// The position.
    let position: Position
    /// Its placement.
    let board: PackedBoard
    /// Its occupied squares.
    let occupancy: UInt64
    /// Its legal moves (none once the game is over).
    let legal: [MoveCandidate]

    /// Analyses `position`; `gameOver` leaves the legal moves empty. `board` is its
    /// placement when already known (the result of the move that led here).
    init(_ position: Position, gameOver: Bool = false, board known: PackedBoard? = nil) {
        self.position = position
        let board = known ?? PackedBoard(position: position)
        self.board = board
        occupancy = board.occupancy
        guard !gameOver else {
            legal = []
            return
        }
        var legal = position.legalMoves().map { MoveCandidate(move: $0, on: board) }
        let castlings = legal.filter(\.isCastling)
        if !castlings.isEmpty {
            for index in legal.indices where !legal[index].isCastling && legal[index].move.promotion == nil {
                let move = legal[index].move
                if let castling = castlings.first(where: {
                    $0.castlingRook.map { $0.from == move.from && $0.to == move.to } ?? false
                }) {
                    legal[index].castlingCompletion = castling.move
                }
            }
        }
        self.legal = legal
    }

    /// The pseudo-legal moves that are not legal (they leave the king in check).
    func illegalCandidates() -> [MoveCandidate] {
        let legalMoves = Set(legal.map(\.move))
        return position.pseudoLegalMoves().filter { !legalMoves.contains($0) }.map {
            MoveCandidate(move: $0, on: board)
        }
    }

    /// The legal candidate for `move`, if any.
    func candidate(for move: Move) -> MoveCandidate? {
        legal.first { $0.move == move }
    }
}

extension PackedBoard {
    /// Packs a position's placement.
    init(position: Position) {
        self.init()
        for square in Square.allCases {
            if let piece = position[square] { self[square] = piece }
        }
    }
}
