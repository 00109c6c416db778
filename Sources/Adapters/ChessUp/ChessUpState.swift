public import BoardKit
public import FoundationEssentials

/// The board's own game state as the 73-byte `67` frame carries it: `67`, 64 piece codes
/// for a1, b1 … h8, side to move, castling rights (wK wQ bK bQ), en-passant byte, halfmove
/// clock and fullmove number (reference §2.3).
public struct ChessUpState: Hashable, Sendable {
    /// The length of a `67` frame, opcode included.
    public static let frameLength = 73
    /// The en-passant byte this implementation writes when there is no en-passant square.
    /// The reference only shows a square index (`2C` = e6); the "none" value is a guess.
    public static let noEnPassant: UInt8 = 0xFF

    /// The pieces of the board's game, in ``Square`` order.
    public var pieces: BoardSnapshot
    /// The side to move.
    public var sideToMove: PieceColor
    /// Castling rights in wire order: white king side, white queen side, black king side,
    /// black queen side.
    public var castlingRights: [Bool]
    /// The en-passant byte as sent: a square index (`rank × 8 + file`) or another value for none.
    public var enPassantByte: UInt8
    /// The halfmove clock (one byte on the wire).
    public var halfmoveClock: UInt8
    /// The fullmove number (one byte on the wire).
    public var fullmoveNumber: UInt8

    /// Creates a state. `castlingRights` must hold four entries (a programmer error otherwise).
    public init(
        pieces: BoardSnapshot, sideToMove: PieceColor, castlingRights: [Bool],
        enPassant: Square?, halfmoveClock: UInt8, fullmoveNumber: UInt8
    ) {
        precondition(castlingRights.count == 4, "four castling rights")
        self.pieces = pieces
        self.sideToMove = sideToMove
        self.castlingRights = castlingRights
        self.enPassantByte = enPassant.map { UInt8($0.rawValue) } ?? Self.noEnPassant
        self.halfmoveClock = halfmoveClock
        self.fullmoveNumber = fullmoveNumber
    }

    /// Parses a complete `67` frame; `nil` when it is not 73 valid bytes.
    public init?(frame: some Collection<UInt8>) {
        let bytes = Array(frame)
        guard bytes.count == Self.frameLength, bytes[0] == ChessUpWire.stateOpcode else { return nil }
        for index in 1..<Self.frameLength where !Self.isValid(byte: bytes[index], at: index) { return nil }
        var snapshot = BoardSnapshot()
        for square in Square.allCases {
            guard case .some(let piece) = ChessUpWire.piece(code: bytes[1 + square.rawValue]) else { return nil }
            snapshot[square] = piece
        }
        pieces = snapshot
        sideToMove = bytes[65] == 0 ? .white : .black
        castlingRights = bytes[66...69].map { $0 == 1 }
        enPassantByte = bytes[70]
        halfmoveClock = bytes[71]
        fullmoveNumber = bytes[72]
    }

    /// Whether `byte` may stand at `index` (0 = opcode) of a `67` frame; used by the framer to
    /// reject a false frame start as soon as one impossible byte arrives.
    public static func isValid(byte: UInt8, at index: Int) -> Bool {
        switch index {
        case 0: byte == ChessUpWire.stateOpcode
        case 1...64: ChessUpWire.piece(code: byte) != nil
        case 65...69: byte <= 1
        case 70..<frameLength: true
        default: false
        }
    }

    /// The en-passant square, when the en-passant byte names one of ranks 3 or 6.
    public var enPassantSquare: Square? {
        guard let square = Square(rawValue: Int(enPassantByte)), square.rank == 2 || square.rank == 5 else {
            return nil
        }
        return square
    }

    /// The wire bytes of this state.
    public var frame: Data {
        var bytes: [UInt8] = [ChessUpWire.stateOpcode]
        bytes.reserveCapacity(Self.frameLength)
        for square in Square.allCases { bytes.append(ChessUpWire.code(of: pieces[square])) }
        bytes.append(sideToMove == .white ? 0 : 1)
        bytes += castlingRights.map { $0 ? 1 : 0 }
        bytes += [enPassantByte, halfmoveClock, fullmoveNumber]
        return Data(bytes)
    }
}
