public import BoardKit
public import FoundationEssentials

/// DGT Pegasus wire vocabulary shared by ``PegasusAdapter`` and the emulated board
/// (board-protocols.md §4.1, §4.2).
///
/// Board → host messages carry a 3-byte header: the message id with bit 7 set, then the
/// total size (header included) as two 7-bit halves. Only the id byte has bit 7 set.
/// Squares are numbered a8 = 0, b8 = 1 … h1 = 63 (FEN reading order).
public enum PegasusWire {
    /// Host → board: reset to idle (no reply).
    public static let reset: UInt8 = 0x40
    /// Host → board: send the board dump (→ `86`).
    public static let requestBoard: UInt8 = 0x42
    /// Host → board: field-update mode (→ `8E` on every change).
    public static let requestUpdates: UInt8 = 0x44
    /// Host → board: serial number (→ `91`).
    public static let requestSerial: UInt8 = 0x45
    /// Host → board: trademark (→ `92`).
    public static let requestTrademark: UInt8 = 0x47
    /// Host → board: hardware version (→ `96`).
    public static let requestHardwareVersion: UInt8 = 0x48
    /// Host → board: battery status (→ `A0`).
    public static let requestBattery: UInt8 = 0x4C
    /// Host → board: firmware version (→ `93`; major 1 identifies a Pegasus).
    public static let requestVersion: UInt8 = 0x4D
    /// Host → board: long serial number (→ `A2`).
    public static let requestLongSerial: UInt8 = 0x55
    /// Host → board: developer-key state (→ `A5`).
    public static let requestKeyState: UInt8 = 0x5A
    /// Host → board: LED command (`60 <len> …`).
    public static let led: UInt8 = 0x60
    /// Host → board: developer key (`63 07 <6 key bytes> 00`).
    public static let unlock: UInt8 = 0x63
    /// All LEDs off, as the DGT app sends it.
    public static let ledsOff: [UInt8] = [0x60, 0x02, 0x00, 0x00]

    /// Board → host: board dump, 64 squares (`86 00 43`).
    public static let boardDump: UInt8 = 0x86
    /// Board → host: one square changed (`8E 00 05 <field> <code>`).
    public static let fieldUpdate: UInt8 = 0x8E
    /// Board → host: serial number.
    public static let serialNumber: UInt8 = 0x91
    /// Board → host: trademark text.
    public static let trademark: UInt8 = 0x92
    /// Board → host: firmware version (`93 00 05 <major> <minor>`).
    public static let version: UInt8 = 0x93
    /// Board → host: hardware version (`96 00 05 <major> <minor>`).
    public static let hardwareVersion: UInt8 = 0x96
    /// Board → host: battery status (`A0 00 0C <percent> …`).
    public static let batteryStatus: UInt8 = 0xA0
    /// Board → host: long serial number.
    public static let longSerialNumber: UInt8 = 0xA2
    /// Board → host: developer-key state (`A5 00 01 <0|1>`, 4 bytes; the size field
    /// counts the payload only).
    public static let keyState: UInt8 = 0xA5
    /// The square code a locked board (no developer key) reports for every square.
    public static let lockedSquare: UInt8 = 0x7F

    /// The DGT field index of `square` (a8 = 0 … h1 = 63).
    public static func field(of square: Square) -> UInt8 {
        UInt8(square.readingIndex)
    }

    /// The square of a DGT field index, or `nil` outside 0…63.
    public static func square(field: UInt8) -> Square? {
        guard field < 64 else { return nil }
        return Square(readingIndex: Int(field))
    }

    /// A message with its 3-byte header (`id` gets bit 7, the size counts the header).
    public static func message(_ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let size = payload.count + 3
        return [id | 0x80, UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)] + payload
    }

    /// The developer-key unlock command for a 6-byte key.
    public static func unlockCommand(key: Data) -> Data {
        Data([unlock, UInt8(key.count + 1)] + Array(key) + [0x00])
    }
}
