public import BoardKit
import FoundationEssentials

/// The classic DGT e-Board wire vocabulary shared by ``DGTAdapter`` and the emulated board
/// (board-protocols.md §4.1). Written from the documented facts only; DGT states its
/// copyright on the protocol, and no one's code was used.
///
/// Board → host messages carry a 3-byte header: the message id with bit 7 set, then the
/// total size (header included) as two 7-bit halves; only the id byte has bit 7 set.
/// Fields are numbered a8 = 0, b8 = 1 … h1 = 63, counted from the corner left of the
/// connector, whichever way the board is set up.
public enum DGTWire {
    /// Host → board: idle mode, no reply.
    public static let reset: UInt8 = 0x40
    /// Host → board: the clock's times now (→ `8D`).
    public static let requestClock: UInt8 = 0x41
    /// Host → board: the board dump (→ `86`).
    public static let requestBoard: UInt8 = 0x42
    /// Host → board: field updates, and the clock every second.
    public static let requestUpdates: UInt8 = 0x43
    /// Host → board: field updates only.
    public static let requestBoardUpdates: UInt8 = 0x44
    /// Host → board: the serial number (→ `91`).
    public static let requestSerial: UInt8 = 0x45
    /// Host → board: the trademark text (→ `92`).
    public static let requestTrademark: UInt8 = 0x47
    /// Host → board: field updates, and the clock when it changes.
    public static let requestUpdatesNice: UInt8 = 0x4B
    /// Host → board: battery status (→ `A0`; Bluetooth boards).
    public static let requestBattery: UInt8 = 0x4C
    /// Host → board: the firmware version (→ `93`).
    public static let requestVersion: UInt8 = 0x4D
    /// Host → board: the long serial number (→ `A2`).
    public static let requestLongSerial: UInt8 = 0x55
    /// Host → board: Revelation II LEDs, `60 04 <pattern> <start> <end> 00`.
    public static let led: UInt8 = 0x60
    /// Host → board: a message for the attached clock, `2B <len> 03 <command> … 00`.
    public static let clockMessage: UInt8 = 0x2B

    /// Board → host: board dump, 64 piece codes (`86 00 43`).
    public static let boardDump: UInt8 = 0x86
    /// Board → host: the clock's times, or a clock ack (`8D 00 0A` + 7 bytes).
    public static let clockTimes: UInt8 = 0x8D
    /// Board → host: one field changed (`8E 00 05 <field> <code>`).
    public static let fieldUpdate: UInt8 = 0x8E
    /// Board → host: the stored change log.
    public static let storedMoves: UInt8 = 0x8F
    /// Board → host: the bus address.
    public static let busAddress: UInt8 = 0x90
    /// Board → host: the serial number, 5 ASCII characters (8 bytes in all).
    public static let serialNumber: UInt8 = 0x91
    /// Board → host: the trademark text.
    public static let trademark: UInt8 = 0x92
    /// Board → host: the firmware version (`93 00 05 <major> <minor>`).
    public static let version: UInt8 = 0x93
    /// Board → host: battery status (the size is given as 7 and as 12: both are taken).
    public static let batteryStatus: UInt8 = 0xA0
    /// Board → host: the long serial number, 10 ASCII characters (13 bytes in all).
    public static let longSerialNumber: UInt8 = 0xA2

    /// The piece codes 1…12 in order: P R N B K Q, then p r n b k q (king 5, queen 6).
    static let pieces: [Piece] = [.white, .black].flatMap { color in
        [PieceKind.pawn, .rook, .knight, .bishop, .king, .queen].map { Piece(color, $0) }
    }

    /// The piece a code stands for, `.some(nil)` for an empty field (and the three
    /// "magic pieces" `0D`…`0F`, which are no chess pieces), `nil` for a code above `0F`.
    public static func piece(code: UInt8) -> Piece?? {
        switch code {
        case 0x00, 0x0D...0x0F: return .some(nil)
        case 0x01...0x0C: return .some(pieces[Int(code) - 1])
        default: return nil
        }
    }

    /// The code of `piece` (`00` for an empty field).
    public static func code(of piece: Piece?) -> UInt8 {
        guard let piece, let index = pieces.firstIndex(of: piece) else { return 0 }
        return UInt8(index + 1)
    }

    /// The field index of `square` (a8 = 0 … h1 = 63).
    public static func field(of square: Square) -> UInt8 { PegasusWire.field(of: square) }

    /// The square of a field index, or `nil` outside 0…63.
    public static func square(field: UInt8) -> Square? { PegasusWire.square(field: field) }

    /// A message with its 3-byte header.
    public static func message(_ id: UInt8, _ payload: [UInt8]) -> [UInt8] { PegasusWire.message(id, payload) }

    /// The 64 piece codes of `snapshot` in field order (a8 first).
    public static func fields(_ snapshot: BoardSnapshot) -> [UInt8] {
        (0..<64).map { code(of: snapshot[square(field: UInt8($0))!]) }
    }

    /// A Revelation II LED command lighting (`on`) or darkening fields `start`…`end`.
    public static func ledCommand(on: Bool, from start: UInt8, to end: UInt8) -> [UInt8] {
        [led, 0x04, on ? 0x01 : 0x00, start, end, 0x00]
    }
}
