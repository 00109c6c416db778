public import BoardKit
public import FoundationEssentials

/// Byte values and square/piece conversions of the ChessUp protocol (reference §2), shared by
/// ``ChessUpAdapter`` and the emulated board so that both speak exactly the same bytes.
///
/// Square indices on the wire are `rank × 8 + file` (a1 = 0), the same numbering as
/// ``Square``; the `A3` move frame uses (column, row) pairs instead.
public enum ChessUpWire {
    /// Board → host: a completed move, `A3 35 fromCol fromRow toCol toRow` (6 bytes).
    public static let moveOpcode: UInt8 = 0xA3
    /// The constant second byte of every `A3` move frame.
    public static let moveSubtype: UInt8 = 0x35
    /// Board → host: the player's promotion pick, `97 p` (p = 1 R, 2 N, 3 B, 4 Q). Host → board:
    /// the host's promotion choice.
    public static let promotionOpcode: UInt8 = 0x97
    /// Board → host: the 73-byte game state; host → board: a state request.
    public static let stateOpcode: UInt8 = 0x67
    /// Board → host: a piece was touched, `B8 square code`.
    public static let touchOpcode: UInt8 = 0xB8
    /// Board → host: all touches released.
    public static let releaseOpcode: UInt8 = 0xBB
    /// Board → host: a FEN load (`66`) completed.
    public static let loadCompleteOpcode: UInt8 = 0xB1
    /// Board → host: an undo was made on the board.
    public static let undoOpcode: UInt8 = 0xBD
    /// Board → host: the charging flag, `33 00|01`.
    public static let chargingOpcode: UInt8 = 0x33
    /// Pieces-in-start-position flag (`B0 00|01` from the board; `B0` alone is the host's query).
    public static let startPositionOpcode: UInt8 = 0xB0
    /// Board → host: board info, `B2` + 16 ASCII characters.
    public static let boardInfoOpcode: UInt8 = 0xB2
    /// Board → host: both leading bytes of the 10-byte occupancy bitmap `FD FD` + 8 bytes.
    public static let occupancyMarker: UInt8 = 0xFD
    /// Host → board: the mandatory acknowledgement of an `A3` move frame.
    public static let moveAck: UInt8 = 0x21
    /// The acknowledgement of a promotion frame (`97`), in both directions.
    public static let promotionAck: UInt8 = 0x23
    /// Board → host: the acknowledgement of a host `99` show-move frame.
    public static let showMoveAck: UInt8 = 0x22
    /// Board → host: a generic OK.
    public static let okAck: UInt8 = 0x24
    /// Host → board: game settings (`B9` + 11 bytes); mode 5 opens a phoneOTB session.
    public static let settingsOpcode: UInt8 = 0xB9
    /// Host → board: show (or, in remote modes, inject) a move, `99 from to`.
    public static let showMoveOpcode: UInt8 = 0x99
    /// Host → board: load a position (`66` + "/" + FEN fields + " " + halfmove + fullmove bytes).
    public static let loadPositionOpcode: UInt8 = 0x66
    /// Host → board: enable the `FD FD` occupancy stream.
    public static let enableOccupancyOpcode: UInt8 = 0x50
    /// The piece code of an empty square.
    public static let emptyCode: UInt8 = 0x40
    /// The settings mode byte of a phoneOTB session (the only mode that streams `A3` moves).
    public static let phoneOTBMode: UInt8 = 5

    /// The session-open frame: phoneOTB, both sides human (level 1), no hints, no remote side.
    public static let sessionOpenFrame = Data([0xB9, 0x05, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])

    /// The total length of the board → host frame starting with `opcode`, or `nil` when the
    /// opcode is unknown.
    public static func frameLength(opcode: UInt8) -> Int? {
        switch opcode {
        case moveOpcode: 6
        case promotionOpcode: 2
        case stateOpcode: ChessUpState.frameLength
        case touchOpcode: 3
        case releaseOpcode, loadCompleteOpcode, undoOpcode, showMoveAck, promotionAck, okAck: 1
        case chargingOpcode, startPositionOpcode: 2
        case boardInfoOpcode: 17
        case occupancyMarker: 10
        default: nil
        }
    }

    /// The code of `piece` in `67` state frames (white P 00 … K 05, black p 08 … k 0D, empty 40).
    public static func code(of piece: Piece?) -> UInt8 {
        guard let piece else { return emptyCode }
        return kindCode(piece.kind) + (piece.color == .black ? 8 : 0)
    }

    /// The piece a state-frame code names: `.some(nil)` for empty, `nil` for an invalid code.
    public static func piece(code: UInt8) -> Piece?? {
        if code == emptyCode { return .some(nil) }
        let color: PieceColor = code & 0x08 == 0 ? .white : .black
        guard code & ~0x0F == 0, let kind = kind(code: code & 0x07) else { return nil }
        return .some(Piece(color, kind))
    }

    /// The colourless type code of `kind` (pawn 0 … king 5), as `B8` touch frames carry it.
    public static func kindCode(_ kind: PieceKind) -> UInt8 {
        switch kind {
        case .pawn: 0
        case .rook: 1
        case .knight: 2
        case .bishop: 3
        case .queen: 4
        case .king: 5
        }
    }

    /// The kind a colourless type code names, or `nil`.
    public static func kind(code: UInt8) -> PieceKind? {
        switch code {
        case 0: .pawn
        case 1: .rook
        case 2: .knight
        case 3: .bishop
        case 4: .queen
        case 5: .king
        default: nil
        }
    }

    /// The `97` promotion code of `kind` (1 R, 2 N, 3 B, 4 Q), or `nil` for pawn and king.
    public static func promotionCode(_ kind: PieceKind) -> UInt8? {
        switch kind {
        case .rook: 1
        case .knight: 2
        case .bishop: 3
        case .queen: 4
        case .pawn, .king: nil
        }
    }

    /// The kind a `97` promotion code names, or `nil`.
    public static func promotionKind(code: UInt8) -> PieceKind? {
        switch code {
        case 1: .rook
        case 2: .knight
        case 3: .bishop
        case 4: .queen
        default: nil
        }
    }

    /// The `A3` frame reporting `move` (the promotion piece, if any, travels in a `97` frame).
    public static func moveFrame(from: Square, to: Square) -> Data {
        Data([
            moveOpcode, moveSubtype, UInt8(from.file), UInt8(from.rank), UInt8(to.file), UInt8(to.rank),
        ])
    }

    /// The move an `A3` frame reports, or `nil` when `frame` is not a well-formed move frame.
    public static func move(frame: some Collection<UInt8>) -> BoardMove? {
        let bytes = Array(frame)
        guard bytes.count == 6, bytes[0] == moveOpcode, bytes[1] == moveSubtype,
            let from = Square(file: Int(bytes[2]), rank: Int(bytes[3])),
            let to = Square(file: Int(bytes[4]), rank: Int(bytes[5])), from != to
        else { return nil }
        return BoardMove(from: from, to: to)
    }

    /// The `FD FD` occupancy frame for `map`: rank 8 first, bit 0 = file a.
    public static func occupancyFrame(_ map: OccupancyMap) -> Data {
        var bytes: [UInt8] = [occupancyMarker, occupancyMarker]
        for rank in stride(from: 7, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: map.bits >> UInt64(rank * 8)))
        }
        return Data(bytes)
    }

    /// The occupancy an `FD FD` frame reports, or `nil` when `frame` is not one.
    public static func occupancy(frame: some Collection<UInt8>) -> OccupancyMap? {
        let bytes = Array(frame)
        guard bytes.count == 10, bytes[0] == occupancyMarker, bytes[1] == occupancyMarker else { return nil }
        var bits: UInt64 = 0
        for (offset, rank) in stride(from: 7, through: 0, by: -1).enumerated() {
            bits |= UInt64(bytes[2 + offset]) << UInt64(rank * 8)
        }
        return OccupancyMap(bits: bits)
    }

    /// The `66` load-position frame for a FEN (reference §2.4, BoardKit form): `66`, ASCII
    /// `/` + placement, side, castling and en-passant fields + a space, then the halfmove
    /// clock and fullmove number as raw bytes (clamped to 0…255; 0 and 1 when the FEN stops
    /// after four fields). `nil` when `fen` is not a well-formed FEN. The board answers `B1`.
    /// No ``BoardCommand`` maps to it; send it as ``BoardCommand/custom(_:)``.
    public static func loadPositionFrame(fen: String) -> Data? {
        let fields = fen.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 4 || fields.count == 6, BoardSnapshot(fenPlacement: fields[0]) != nil,
            fields[1] == "w" || fields[1] == "b",
            fields[2] == "-" || fields[2].allSatisfy({ "KQkq".contains($0) }),
            fields[3] == "-" || Square(fields[3]) != nil
        else { return nil }
        var halfmove = 0
        var fullmove = 1
        if fields.count == 6 {
            guard let half = Int(fields[4]), let full = Int(fields[5]), half >= 0, full >= 0 else { return nil }
            (halfmove, fullmove) = (half, full)
        }
        let text = "/" + fields[0...3].joined(separator: " ") + " "
        return Data([loadPositionOpcode]) + Data(text.utf8)
            + Data([UInt8(clamping: halfmove), UInt8(clamping: fullmove)])
    }

    /// The `B2` board-info frame for `model`, padded with spaces (or cut) to 16 characters;
    /// characters outside printable ASCII become `?`.
    public static func boardInfoFrame(model: String) -> Data {
        var text = model.utf8.prefix(16).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
        text += Array(repeating: UInt8(ascii: " "), count: 16 - text.count)
        return Data([boardInfoOpcode] + text)
    }

    /// The model string of a `B2` frame, without padding (spaces and NULs), or `nil`.
    public static func model(frame: some Collection<UInt8>) -> String? {
        let bytes = Array(frame)
        guard bytes.count == 17, bytes[0] == boardInfoOpcode else { return nil }
        var text = bytes.dropFirst().filter { $0 != 0 }
        guard text.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        while text.last == UInt8(ascii: " ") { text.removeLast() }
        while text.first == UInt8(ascii: " ") { text.removeFirst() }
        return String(decoding: text, as: UTF8.self)
    }
}
