public import BoardKit

/// How a person plays moves on a physical board: the order of the hand movements where
/// people differ. Each choice can be fixed or drawn at random for every move.
public struct HumanMoveStyle: Hashable, Sendable {
    /// The order of the two lifts in a capture.
    public enum CaptureOrder: Hashable, Sendable, CaseIterable {
        /// The captured piece is lifted off first, then the capturing piece is lifted.
        case capturedFirst
        /// The capturing piece is lifted first, then the captured piece is removed.
        case capturingFirst
        /// Either, chosen at random for every capture.
        case random
    }

    /// The order of king and rook when castling.
    public enum CastlingOrder: Hashable, Sendable, CaseIterable {
        /// The king is moved two files, then the rook jumps over it.
        case kingFirst
        /// The rook is moved first, then the king.
        case rookFirst
        /// Either, chosen at random for every castling.
        case random
    }

    /// When the pawn taken en passant leaves the board.
    public enum EnPassantRemoval: Hashable, Sendable, CaseIterable {
        /// The captured pawn is removed before the capturing pawn is lifted.
        case before
        /// The capturing pawn is moved first, then the captured pawn is removed.
        case after
        /// Either, chosen at random for every en-passant capture.
        case random
    }

    /// The order of the lifts in a capture.
    public var capture: CaptureOrder
    /// The order of king and rook when castling.
    public var castling: CastlingOrder
    /// When the pawn taken en passant is removed.
    public var enPassant: EnPassantRemoval

    /// Creates a style.
    public init(
        capture: CaptureOrder = .capturedFirst, castling: CastlingOrder = .kingFirst,
        enPassant: EnPassantRemoval = .after
    ) {
        self.capture = capture
        self.castling = castling
        self.enPassant = enPassant
    }

    /// The textbook way: captured piece off first, king first, en-passant pawn removed after.
    public static let standard = HumanMoveStyle()

    /// Every choice drawn at random for every move.
    public static let random = HumanMoveStyle(capture: .random, castling: .random, enPassant: .random)
}

/// Plans the physical actions a person makes to play a move, from the physical board
/// alone (no game state): a king moving two files is castling, a pawn moving diagonally
/// onto an empty square next to an enemy pawn is an en-passant capture, a pawn reaching
/// the last rank promotes. Shared by every board family's emulation.
public enum HumanMoves {
    /// The actions that play `move` on `board`, in the order a person makes them.
    ///
    /// - A quiet move: lift the piece, place it.
    /// - A capture: both pieces lifted (order per `style.capture`), the mover placed.
    /// - Castling: king and rook each lifted and placed (order per `style.castling`).
    /// - En passant: the capturing pawn moved, the taken pawn lifted before or after.
    /// - Promotion: the pawn lifted (and any captured piece), the promoted piece placed
    ///   (a queen when the move names no promotion piece).
    ///
    /// Returns `[]` when `board` has no piece on `move.from`.
    public static func actions(
        for move: BoardMove, on board: BoardSnapshot, style: HumanMoveStyle,
        using generator: inout some RandomNumberGenerator
    ) -> [PhysicalAction] {
        guard let mover = board[move.from] else { return [] }
        let fileDistance = move.to.file - move.from.file

        if mover.kind == .king, move.from.rank == move.to.rank, abs(fileDistance) == 2 {
            return castling(king: mover, move: move, board: board, style: style, using: &generator)
        }
        if mover.kind == .pawn, abs(fileDistance) == 1, board[move.to] == nil,
            let taken = Square(file: move.to.file, rank: move.from.rank),
            let victim = board[taken], victim.kind == .pawn, victim.color != mover.color
        {
            let removeBefore: Bool
            switch style.enPassant {
            case .before: removeBefore = true
            case .after: removeBefore = false
            case .random: removeBefore = Bool.random(using: &generator)
            }
            let moving: [PhysicalAction] = [.lift(move.from), .place(mover, on: move.to)]
            return removeBefore ? [.lift(taken)] + moving : moving + [.lift(taken)]
        }

        var placed = mover
        if mover.kind == .pawn, move.to.rank == 0 || move.to.rank == 7 {
            placed = Piece(mover.color, move.promotion ?? .queen)
        }
        guard board[move.to] != nil else {
            return [.lift(move.from), .place(placed, on: move.to)]
        }
        let capturedFirst: Bool
        switch style.capture {
        case .capturedFirst: capturedFirst = true
        case .capturingFirst: capturedFirst = false
        case .random: capturedFirst = Bool.random(using: &generator)
        }
        let lifts: [PhysicalAction] =
            capturedFirst ? [.lift(move.to), .lift(move.from)] : [.lift(move.from), .lift(move.to)]
        return lifts + [.place(placed, on: move.to)]
    }

    /// The board after `actions`, as a person's hands leave it: lifts empty a square,
    /// places put the piece down; other actions leave the pieces alone.
    public static func applying(_ actions: [PhysicalAction], to board: BoardSnapshot) -> BoardSnapshot {
        var result = board
        for action in actions {
            switch action {
            case .lift(let square), .knockOver(let square): result[square] = nil
            case .place(let piece, let square): result[square] = piece
            case .setBattery, .pressButton: break
            }
        }
        return result
    }

    private static func castling(
        king: Piece, move: BoardMove, board: BoardSnapshot, style: HumanMoveStyle,
        using generator: inout some RandomNumberGenerator
    ) -> [PhysicalAction] {
        let kingSide = move.to.file > move.from.file
        let kingMoves: [PhysicalAction] = [.lift(move.from), .place(king, on: move.to)]
        guard let rookFrom = Square(file: kingSide ? 7 : 0, rank: move.from.rank),
            let rookTo = Square(file: kingSide ? move.to.file - 1 : move.to.file + 1, rank: move.from.rank),
            let rook = board[rookFrom], rook.kind == .rook, rook.color == king.color
        else { return kingMoves }
        let rookMoves: [PhysicalAction] = [.lift(rookFrom), .place(rook, on: rookTo)]
        let kingFirst: Bool
        switch style.castling {
        case .kingFirst: kingFirst = true
        case .rookFirst: kingFirst = false
        case .random: kingFirst = Bool.random(using: &generator)
        }
        return kingFirst ? kingMoves + rookMoves : rookMoves + kingMoves
    }
}
