public import BoardKit

/// Chessnut wire vocabulary shared by ``ChessnutAdapter`` and the emulated board: frame
/// types, the nibble piece codes and the square packings (board-protocols.md §1).
///
/// Wire square index `s` runs h8, g8 … a8, h7 … a1, so `s = 63 - Square.rawValue`.
/// A board frame packs two squares per byte, the even index in the low nibble.
public enum ChessnutWire {
    /// Board → host: full board state (`01 24` + 32 board bytes + 4 counter bytes).
    public static let stateType: UInt8 = 0x01
    /// Board → host: generic ack (`23 01 00`) or rejection (`23 01 01`).
    public static let ackType: UInt8 = 0x23
    /// Board → host: battery reply (`2A 02 <level> <flag>`).
    public static let batteryType: UInt8 = 0x2A
    /// Board → host: button event (`0F 01 <button>`).
    public static let buttonType: UInt8 = 0x0F
    /// Board → host: stored-game count (`32 01 <n>`).
    public static let storedCountType: UInt8 = 0x32
    /// Board → host: stored-file metadata (`36 08 …`).
    public static let fileMetadataType: UInt8 = 0x36
    /// Board → host: stored-file begin/end (`37 01 BE` / `37 01 ED`).
    public static let fileMarkerType: UInt8 = 0x37
    /// Board → host: file CRC (`38 04 …`).
    public static let fileCRCType: UInt8 = 0x38
    /// Both directions, Chessnut Move: queries and replies (`41 …`).
    public static let moveQueryType: UInt8 = 0x41

    /// Host → board: realtime mode on (`21 01 00`); re-sending forces a fresh frame.
    public static let enableRealtime: [UInt8] = [0x21, 0x01, 0x00]
    /// Host → board: battery request (`29 01 00`).
    public static let requestBattery: [UInt8] = [0x29, 0x01, 0x00]
    /// Host → board, Chessnut Move: battery request (`41 01 0C`).
    public static let requestMoveBattery: [UInt8] = [0x41, 0x01, 0x0C]
    /// Board → host: the generic ack.
    public static let ack: [UInt8] = [0x23, 0x01, 0x00]
    /// The NEW GAME button code in a `0F 01 <button>` frame.
    public static let newGameButton: UInt8 = 0x02

    /// The pieces for nibble codes 0…15 (`nil` for empty and for the invalid codes D–F).
    static let pieceForNibble: [Piece?] = [
        nil, Piece(.black, .queen), Piece(.black, .king), Piece(.black, .bishop),
        Piece(.black, .pawn), Piece(.black, .knight), Piece(.white, .rook), Piece(.white, .pawn),
        Piece(.black, .rook), Piece(.white, .bishop), Piece(.white, .knight), Piece(.white, .queen),
        Piece(.white, .king), nil, nil, nil,
    ]

    /// The piece for a nibble code, or `nil` for empty (0) and invalid codes (D–F).
    public static func piece(forNibble code: UInt8) -> Piece? {
        pieceForNibble[Int(code & 0x0F)]
    }

    /// The nibble code of `piece` (0 for an empty square).
    public static func nibble(for piece: Piece?) -> UInt8 {
        guard let piece else { return 0 }
        switch (piece.color, piece.kind) {
        case (.black, .queen): return 0x1
        case (.black, .king): return 0x2
        case (.black, .bishop): return 0x3
        case (.black, .pawn): return 0x4
        case (.black, .knight): return 0x5
        case (.white, .rook): return 0x6
        case (.white, .pawn): return 0x7
        case (.black, .rook): return 0x8
        case (.white, .bishop): return 0x9
        case (.white, .knight): return 0xA
        case (.white, .queen): return 0xB
        case (.white, .king): return 0xC
        }
    }

    /// Whether both nibbles of a board byte are valid piece codes (0…C).
    @inline(__always)
    static func isValidBoardByte(_ byte: UInt8) -> Bool {
        byte & 0x0F <= 0x0C && byte >> 4 <= 0x0C
    }

    /// The 32 packed board bytes of a snapshot (the board-frame and auto-move layout).
    public static func boardBytes(_ snapshot: BoardSnapshot) -> [UInt8] {
        packNibbles { snapshot[$0].map { nibble(for: $0) } ?? 0 }
    }

    /// The snapshot in 32 packed board bytes, or `nil` when there are not 32 bytes or a
    /// nibble is not a valid piece code.
    public static func snapshot(boardBytes bytes: some Collection<UInt8>) -> BoardSnapshot? {
        guard bytes.count == 32, bytes.allSatisfy(isValidBoardByte) else { return nil }
        var squares = [Piece?](repeating: nil, count: 64)
        for (offset, byte) in bytes.enumerated() {
            squares[63 - 2 * offset] = pieceForNibble[Int(byte & 0x0F)]
            squares[62 - 2 * offset] = pieceForNibble[Int(byte >> 4)]
        }
        return BoardSnapshot(squares: squares)
    }

    /// The 8 LED bytes of a classic `0A 08` frame: one byte per rank from rank 8 down,
    /// bit 7 = file a … bit 0 = file h.
    public static func ledBytes(_ squares: some Sequence<Square>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8)
        for square in squares {
            bytes[7 - square.rank] |= UInt8(0x80) >> UInt8(square.file)
        }
        return bytes
    }

    /// The squares lit by 8 classic LED bytes (the inverse of ``ledBytes(_:)``).
    public static func squares(ledBytes bytes: [UInt8]) -> [Square] {
        guard bytes.count == 8 else { return [] }
        return Square.allCases.filter { bytes[7 - $0.rank] & (UInt8(0x80) >> UInt8($0.file)) != 0 }
    }

    /// 32 bytes in board packing whose nibble for each square is `code(square)`.
    public static func packNibbles(_ code: (Square) -> UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for square in Square.allCases {
            let index = 63 - square.rawValue
            let value = code(square) & 0x0F
            bytes[index / 2] |= index.isMultiple(of: 2) ? value : value << 4
        }
        return bytes
    }

    /// The nibble of `square` in 32 bytes of board packing (0 when there are fewer bytes).
    public static func nibble(of square: Square, in bytes: [UInt8]) -> UInt8 {
        let index = 63 - square.rawValue
        guard bytes.count == 32 else { return 0 }
        let byte = bytes[index / 2]
        return index.isMultiple(of: 2) ? byte & 0x0F : byte >> 4
    }
}
