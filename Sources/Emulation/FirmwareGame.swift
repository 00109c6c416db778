import Adapters
import BoardKit
import Chess

/// The position an emulated board's firmware keeps (a ChessUp's own game, the host's
/// position a Chess Peripheral Protocol board holds): the pieces, side to move, castling
/// rights, en-passant square and clocks, with the movement rules of each piece.
///
/// The firmware finds a move from its sensors by the movement of the pieces
/// (``isPseudoLegal(from:to:)``, ``castling(kingSide:)``, ``FirmwareMoveRecognizer``); a
/// board with an engine of its own (ChessUp) then keeps it only when the rules allow it
/// (``isLegal(_:)``: not into or through check).
struct FirmwareGame: Hashable, Sendable {
    var pieces: BoardSnapshot
    var sideToMove: PieceColor
    /// White king side, white queen side, black king side, black queen side.
    var castlingRights: [Bool]
    var enPassant: Square?
    var halfmoveClock: Int
    var fullmoveNumber: Int

    /// A new game from the standard starting position.
    static let standard = FirmwareGame(
        pieces: .startingPosition, sideToMove: .white, castlingRights: [true, true, true, true],
        enPassant: nil, halfmoveClock: 0, fullmoveNumber: 1)

    /// The game as FEN.
    var fen: String {
        let rights = zip(["K", "Q", "k", "q"], castlingRights).filter(\.1).map(\.0).joined()
        return [
            pieces.fenPlacement, sideToMove == .white ? "w" : "b", rights.isEmpty ? "-" : rights,
            enPassant?.name ?? "-", String(halfmoveClock), String(max(1, fullmoveNumber)),
        ].joined(separator: " ")
    }

    /// Whether the rules allow `move` (its king not left in or moved through check). A game
    /// that is no chess position (a loaded one without kings) falls back to the movement of
    /// the pieces.
    func isLegal(_ move: BoardMove) -> Bool {
        guard let position = try? Position(fen: fen) else { return true }
        return position.legalMove(uci: move.uci) != nil
    }

    /// The home rank of `color`.
    static func homeRank(_ color: PieceColor) -> Int { color == .white ? 0 : 7 }

    /// Whether the side to move may play `from` → `to` as an ordinary move (not castling).
    func isPseudoLegal(from: Square, to: Square) -> Bool {
        guard from != to, let piece = pieces[from], piece.color == sideToMove else { return false }
        if let target = pieces[to], target.color == piece.color || target.kind == .king { return false }
        let fileStep = to.file - from.file
        let rankStep = to.rank - from.rank
        switch piece.kind {
        case .pawn:
            let forward = piece.color == .white ? 1 : -1
            if fileStep == 0 {
                guard pieces[to] == nil else { return false }
                if rankStep == forward { return true }
                let startRank = piece.color == .white ? 1 : 6
                return rankStep == 2 * forward && from.rank == startRank
                    && from.offset(file: 0, rank: forward).map { pieces[$0] == nil } == true
            }
            return abs(fileStep) == 1 && rankStep == forward && (pieces[to] != nil || to == enPassant)
        case .knight:
            return (abs(fileStep) == 1 && abs(rankStep) == 2) || (abs(fileStep) == 2 && abs(rankStep) == 1)
        case .bishop:
            return abs(fileStep) == abs(rankStep) && isPathClear(from: from, to: to)
        case .rook:
            return (fileStep == 0 || rankStep == 0) && isPathClear(from: from, to: to)
        case .queen:
            return (fileStep == 0 || rankStep == 0 || abs(fileStep) == abs(rankStep)) && isPathClear(from: from, to: to)
        case .king:
            return max(abs(fileStep), abs(rankStep)) == 1
        }
    }

    /// The king's and the rook's moves of castling on `kingSide` for the side to move, when
    /// the right is kept, both pieces stand at home and the squares between are empty.
    func castling(kingSide: Bool) -> (king: BoardMove, rook: BoardMove)? {
        let color = sideToMove
        let rank = Self.homeRank(color)
        let rightIndex = (color == .white ? 0 : 2) + (kingSide ? 0 : 1)
        guard castlingRights[rightIndex],
            let kingFrom = Square(file: 4, rank: rank), let kingTo = Square(file: kingSide ? 6 : 2, rank: rank),
            let rookFrom = Square(file: kingSide ? 7 : 0, rank: rank),
            let rookTo = Square(file: kingSide ? 5 : 3, rank: rank),
            pieces[kingFrom] == Piece(color, .king), pieces[rookFrom] == Piece(color, .rook),
            isPathClear(from: kingFrom, to: rookFrom)
        else { return nil }
        return (BoardMove(from: kingFrom, to: kingTo), BoardMove(from: rookFrom, to: rookTo))
    }

    /// The square of the pawn an en-passant capture `from` → `to` takes, when it is one.
    func enPassantVictim(from: Square, to: Square) -> Square? {
        guard to == enPassant, pieces[from]?.kind == .pawn, abs(to.file - from.file) == 1 else { return nil }
        return Square(file: to.file, rank: from.rank)
    }

    /// Plays `move` (assumed valid): castling moves the rook too, en passant removes the
    /// taken pawn, a pawn on the last rank becomes `move.promotion` (a queen when `nil`).
    mutating func apply(_ move: BoardMove) {
        guard let piece = pieces[move.from] else { return }
        let isCapture = pieces[move.to] != nil
        if let victim = enPassantVictim(from: move.from, to: move.to) { pieces[victim] = nil }
        if piece.kind == .king, abs(move.to.file - move.from.file) == 2,
            let rook = castling(kingSide: move.to.file > move.from.file)?.rook
        {
            pieces[rook.to] = pieces[rook.from]
            pieces[rook.from] = nil
        }
        pieces[move.from] = nil
        var placed = piece
        if piece.kind == .pawn, move.to.rank == 0 || move.to.rank == 7 {
            placed = Piece(piece.color, move.promotion ?? .queen)
        }
        pieces[move.to] = placed
        enPassant = nil
        if piece.kind == .pawn, abs(move.to.rank - move.from.rank) == 2 {
            enPassant = Square(file: move.from.file, rank: (move.from.rank + move.to.rank) / 2)
        }
        updateCastlingRights(touching: move.from)
        updateCastlingRights(touching: move.to)
        halfmoveClock = piece.kind == .pawn || isCapture ? 0 : halfmoveClock + 1
        if sideToMove == .black { fullmoveNumber += 1 }
        sideToMove = sideToMove.opponent
    }

    private mutating func updateCastlingRights(touching square: Square) {
        switch square {
        case .e1: castlingRights[0] = false; castlingRights[1] = false
        case .h1: castlingRights[0] = false
        case .a1: castlingRights[1] = false
        case .e8: castlingRights[2] = false; castlingRights[3] = false
        case .h8: castlingRights[2] = false
        case .a8: castlingRights[3] = false
        default: break
        }
    }

    private func isPathClear(from: Square, to: Square) -> Bool {
        let fileStep = (to.file - from.file).signum()
        let rankStep = (to.rank - from.rank).signum()
        var current = from.offset(file: fileStep, rank: rankStep)
        while let square = current, square != to {
            if pieces[square] != nil { return false }
            current = square.offset(file: fileStep, rank: rankStep)
        }
        return true
    }
}

extension FirmwareGame {
    /// A game from a FEN: its placement and side to move; castling rights, en-passant square
    /// and clocks when the FEN has them (castling rights otherwise where king and rook still
    /// stand at home). `nil` when the placement or the side is malformed.
    init?(fen: some StringProtocol) {
        let fields = fen.split(separator: " ")
        guard let placement = fields.first, let pieces = BoardSnapshot(fenPlacement: placement) else { return nil }
        self.pieces = pieces
        switch fields.count > 1 ? fields[1] : "w" {
        case "w": sideToMove = .white
        case "b": sideToMove = .black
        default: return nil
        }
        if fields.count > 2 {
            castlingRights = ["K", "Q", "k", "q"].map { fields[2].contains($0) }
        } else {
            let home: [(Square, Square, PieceColor)] = [
                (.e1, .h1, .white), (.e1, .a1, .white), (.e8, .h8, .black), (.e8, .a8, .black),
            ]
            castlingRights = home.map { king, rook, color in
                pieces[king] == Piece(color, .king) && pieces[rook] == Piece(color, .rook)
            }
        }
        enPassant = fields.count > 3 ? Square(fields[3]) : nil
        halfmoveClock = fields.count > 4 ? Int(fields[4]) ?? 0 : 0
        fullmoveNumber = fields.count > 5 ? Int(fields[5]) ?? 1 : 1
    }
}
