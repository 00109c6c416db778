public import BoardKit
public import FoundationEssentials

extension ChessnutAdapter {
    /// The Move's LED colour codes (nibble values of a `43 20` frame).
    public enum LEDColor: UInt8, Hashable, Sendable, CaseIterable {
        /// Off.
        case off = 0
        /// Red.
        case red = 1
        /// Green.
        case green = 2
        /// Blue.
        case blue = 3

        /// The colour the Move shows for `style`: moves green, hints and highlights blue,
        /// check and alerts red.
        public init(style: IndicationStyle) {
            switch style {
            case .move: self = .green
            case .highlight, .hint: self = .blue
            case .check, .alert: self = .red
            }
        }
    }

    /// The wire bytes for `command`:
    /// - `startSession`, `requestState`: `21 01 00` (realtime on; forces a fresh frame);
    /// - `requestBattery`: `29 01 00` (Move: `41 01 0C`);
    /// - `indicate`: `0A 08` + 8 rank bytes (Move: `43 20` + 32 colour nibbles);
    /// - `clearIndications`: the same frames all off;
    /// - `executeMove` (Move only, once a board frame has arrived): `42 21` + the target
    ///   position + the interference flag;
    /// - `custom`: the bytes as they are.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession, .requestState:
            return Data(ChessnutWire.enableRealtime)
        case .requestBattery:
            return Data(model == .move ? ChessnutWire.requestMoveBattery : ChessnutWire.requestBattery)
        case .indicate(let squares, let style):
            return ledFrame(squares, color: LEDColor(style: style))
        case .clearIndications:
            return ledFrame([], color: .off)
        case .executeMove(let uci):
            guard model == .move, let move = BoardMove(uci: uci), let board = lastSnapshot,
                let target = Self.position(after: move, on: board)
            else { return nil }
            return Data([0x42, 0x21] + ChessnutWire.boardBytes(target) + [autoMoveStopsOnInterference ? 1 : 0])
        case .custom(let bytes):
            return bytes
        case .loadPosition, .judgeMove, .endGame:
            return nil
        }
    }

    private func ledFrame(_ squares: [Square], color: LEDColor) -> Data {
        switch model {
        case .classic:
            return Data([0x0A, 0x08] + ChessnutWire.ledBytes(squares))
        case .move:
            let lit = Set(squares)
            return Data([0x43, 0x20] + ChessnutWire.packNibbles { lit.contains($0) ? color.rawValue : 0 })
        }
    }

    /// The physical position after `move` on `board` (castling moves the rook, en passant
    /// removes the taken pawn, a pawn on the last rank becomes the promotion piece or a
    /// queen), or `nil` when `move.from` is empty.
    static func position(after move: BoardMove, on board: BoardSnapshot) -> BoardSnapshot? {
        guard let mover = board[move.from] else { return nil }
        var result = board
        result[move.from] = nil
        let fileDistance = move.to.file - move.from.file
        if mover.kind == .king, move.from.rank == move.to.rank, abs(fileDistance) == 2,
            let rookFrom = Square(file: fileDistance > 0 ? 7 : 0, rank: move.from.rank),
            let rookTo = Square(file: move.from.file + fileDistance / 2, rank: move.from.rank),
            board[rookFrom]?.kind == .rook
        {
            result[rookTo] = board[rookFrom]
            result[rookFrom] = nil
        }
        if mover.kind == .pawn, abs(fileDistance) == 1, board[move.to] == nil,
            let taken = Square(file: move.to.file, rank: move.from.rank), board[taken]?.kind == .pawn
        {
            result[taken] = nil
        }
        var placed = mover
        if mover.kind == .pawn, move.to.rank == 0 || move.to.rank == 7 {
            placed = Piece(mover.color, move.promotion ?? .queen)
        }
        result[move.to] = placed
        return result
    }
}
