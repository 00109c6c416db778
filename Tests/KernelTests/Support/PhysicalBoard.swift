import BoardKit
import Chess
import Kernel

/// A deterministic random number generator (SplitMix64) for reproducible property tests.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One thing a person does to a board.
enum Step: Equatable {
    case lift(Square)
    case place(Piece, Square)
    /// The player picks the promotion piece on the board's own interface.
    case pick(PieceKind)
}

/// A physical board in front of a tracker: it holds the real pieces and turns each
/// step into the events a board of the given path would send.
struct PhysicalBoard {
    var board: BoardSnapshot
    var orientation: BoardOrientation = .whiteNear
    var path: TrackerInputPath
    var hand: [Piece] = []

    init(_ board: BoardSnapshot = .startingPosition, path: TrackerInputPath, orientation: BoardOrientation = .whiteNear)
    {
        self.board = board
        self.path = path
        self.orientation = orientation
    }

    /// The events the board sends for `step` (identity: a full snapshot after it;
    /// occupancy: a lift or place event; picks as they are).
    mutating func perform(_ step: Step) -> [BoardEvent] {
        switch step {
        case .lift(let square):
            if let piece = board[square] { hand.append(piece) }
            board[square] = nil
            switch path {
            case .identity: return [.pieces(orientation.map(board))]
            case .occupancy, .reportedMoves: return [.pieceLifted(orientation.map(square))]
            }
        case .place(let piece, let square):
            if let index = hand.firstIndex(of: piece) { hand.remove(at: index) }
            board[square] = piece
            switch path {
            case .identity: return [.pieces(orientation.map(board))]
            case .occupancy, .reportedMoves: return [.piecePlaced(orientation.map(square), piece: nil)]
            }
        case .pick(let kind):
            return [.promotionPicked(kind)]
        }
    }

    /// The current board as a snapshot event.
    var snapshotEvent: BoardEvent { .pieces(orientation.map(board)) }
}

/// The real-world ways of making `move` in `position`, as step lists; `variant` picks one.
func steps(for move: Move, in position: Position, variant: Int) -> [Step] {
    guard let mover = position[move.from] else { return [] }
    let captured = position[move.to]
    let landing = move.promotion.map { Piece(mover.color, $0) } ?? mover
    // Castling: king first, rook first, or both in hand.
    if mover.kind == .king, abs(move.to.file - move.from.file) == 2 {
        let kingside = move.to.file > move.from.file
        let rank = move.from.rank
        let rookFrom = Square(file: kingside ? 7 : 0, rank: rank)!
        let rookTo = Square(file: kingside ? 5 : 3, rank: rank)!
        let rook = Piece(mover.color, .rook)
        switch variant % 3 {
        case 0: return [.lift(move.from), .place(mover, move.to), .lift(rookFrom), .place(rook, rookTo)]
        case 1: return [.lift(rookFrom), .place(rook, rookTo), .lift(move.from), .place(mover, move.to)]
        default: return [.lift(move.from), .lift(rookFrom), .place(mover, move.to), .place(rook, rookTo)]
        }
    }
    // En passant: the captured pawn removed first, last, or between.
    if mover.kind == .pawn, move.from.file != move.to.file, captured == nil {
        let victim = Square(file: move.to.file, rank: move.from.rank)!
        switch variant % 3 {
        case 0: return [.lift(move.from), .place(mover, move.to), .lift(victim)]
        case 1: return [.lift(victim), .lift(move.from), .place(mover, move.to)]
        default: return [.lift(move.from), .lift(victim), .place(mover, move.to)]
        }
    }
    var result: [Step] = []
    if captured != nil {
        // The captured piece lifted first, or the capturing piece first.
        result = variant % 2 == 0 ? [.lift(move.to), .lift(move.from)] : [.lift(move.from), .lift(move.to)]
    } else {
        result = [.lift(move.from)]
    }
    if let promotion = move.promotion {
        // The pawn put down on the last rank and swapped, or the new piece put down at once.
        if (variant / 2) % 2 == 0 {
            result += [.place(mover, move.to), .lift(move.to), .place(landing, move.to)]
        } else {
            result += [.place(landing, move.to)]
        }
        // Boards that let the player pick report it after the move.
        result.append(.pick(promotion))
    } else {
        result.append(.place(landing, move.to))
    }
    return result
}

/// Whether `move` castles, takes en passant or promotes.
func isSpecial(_ move: Move, in position: Position) -> Bool {
    guard let mover = position[move.from] else { return false }
    if move.promotion != nil { return true }
    if mover.kind == .king, abs(move.to.file - move.from.file) == 2 { return true }
    return mover.kind == .pawn && move.from.file != move.to.file && position[move.to] == nil
}

/// A random legal game that favours castling, en passant and promotions.
func randomGame(seed: UInt64, maxPlies: Int = 120) -> [Move] {
    var rng = SplitMix64(seed: seed)
    var game = Game()
    var moves: [Move] = []
    while moves.count < maxPlies, game.result == .ongoing {
        let position = game.position
        let legal = position.legalMoves()
        guard !legal.isEmpty else { break }
        let special = legal.filter { isSpecial($0, in: position) }
        let pawnMoves = legal.filter { position[$0.from]?.kind == .pawn }
        let homeRank = position.sideToMove == .white ? 0 : 7
        let development = legal.filter {
            $0.from.rank == homeRank && [.knight, .bishop, .queen].contains(position[$0.from]?.kind)
        }
        let roll = rng.next() % 10
        let move: Move
        if !special.isEmpty, roll < 6 {
            move = special[Int(rng.next() % UInt64(special.count))]
        } else if !development.isEmpty, roll < 8, moves.count < 30 {
            move = development[Int(rng.next() % UInt64(development.count))]
        } else if !pawnMoves.isEmpty, roll < 8 {
            move = pawnMoves[Int(rng.next() % UInt64(pawnMoves.count))]
        } else {
            move = legal[Int(rng.next() % UInt64(legal.count))]
        }
        do { try game.play(move) } catch { break }
        moves.append(move)
    }
    return moves
}

extension Array where Element == TrackerOutput {
    /// The committed moves among the outputs.
    var moves: [CommittedMove] {
        compactMap {
            if case .move(let move) = $0 { return move }
            return nil
        }
    }

    /// The sync states among the outputs.
    var syncStates: [SyncState] {
        compactMap {
            if case .syncChanged(let state) = $0 { return state }
            return nil
        }
    }
}

/// A snapshot from a FEN placement (test data only).
func placement(_ fen: String) -> BoardSnapshot {
    BoardSnapshot(fenPlacement: fen)!
}

/// A position from FEN (test data only).
func position(_ fen: String) -> Position {
    try! Position(fen: fen)
}

/// A tracker on a new game (desync grace 2 s, white near), the physical board it watches in
/// the start position, and the reference game the board's moves are checked against; the
/// tracker has seen the board's first snapshot, at time 0.
func startedTracker(path: TrackerInputPath) -> (tracker: GameTracker, board: PhysicalBoard, reference: Game) {
    var tracker = GameTracker(
        game: Game(), inputPath: path, options: TrackerOptions(desyncGrace: 2, orientation: .whiteNear))
    let board = PhysicalBoard(path: path)
    _ = tracker.handle(board.snapshotEvent, at: 0)
    return (tracker, board, Game())
}
