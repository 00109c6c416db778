public import BoardKit
public import FoundationEssentials

/// Millennium ChessLink wire vocabulary shared by ``MillenniumAdapter`` and the emulated
/// board (board-protocols.md §5): 7-bit ASCII with odd parity in bit 7, every message
/// closed by the XOR of its 7-bit characters as two upper-case hex digits.
public enum MillenniumWire {
    /// The byte with odd parity: bit 7 set when the low 7 bits hold an even number of ones.
    @inline(__always)
    public static func withParity(_ character: UInt8) -> UInt8 {
        let low = character & 0x7F
        return low.nonzeroBitCount.isMultiple(of: 2) ? low | 0x80 : low
    }

    /// Whether `byte` carries odd parity (an odd number of ones in all 8 bits).
    @inline(__always)
    public static func hasOddParity(_ byte: UInt8) -> Bool {
        !byte.nonzeroBitCount.isMultiple(of: 2)
    }

    /// The XOR of the 7-bit values of `characters`.
    public static func checksum(_ characters: some Sequence<UInt8>) -> UInt8 {
        characters.reduce(0) { $0 ^ ($1 & 0x7F) }
    }

    /// Two upper-case hex digits (ASCII) for `value`.
    public static func hexDigits(_ value: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [digits[Int(value >> 4)], digits[Int(value & 0x0F)]]
    }

    /// The value of one hex digit (either case, 7-bit ASCII), or `nil`.
    @inline(__always)
    public static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The wire bytes of a message: `text` (7-bit ASCII) followed by its checksum, every
    /// byte with odd parity.
    public static func message(_ text: String) -> Data {
        message(Array(text.utf8))
    }

    /// The wire bytes of a message given as 7-bit characters.
    public static func message(_ characters: [UInt8]) -> Data {
        let full = characters + hexDigits(checksum(characters))
        return Data(full.map(withParity))
    }

    /// The 7-bit text of wire bytes (parity stripped), for logs and tests.
    public static func text(_ bytes: Data) -> String {
        String(decoding: bytes.map { $0 & 0x7F }, as: UTF8.self)
    }

    /// The status character of a piece: `KQRNBP` White, `kqrnbp` Black, `.` empty.
    public static func character(for piece: Piece?) -> UInt8 {
        guard let piece else { return UInt8(ascii: ".") }
        let letter: UInt8
        switch piece.kind {
        case .pawn: letter = UInt8(ascii: "p")
        case .knight: letter = UInt8(ascii: "n")
        case .bishop: letter = UInt8(ascii: "b")
        case .rook: letter = UInt8(ascii: "r")
        case .queen: letter = UInt8(ascii: "q")
        case .king: letter = UInt8(ascii: "k")
        }
        return piece.color == .white ? letter - 0x20 : letter
    }

    /// The piece for a status character; `.some(nil)` for `.`, `nil` for anything else.
    @inline(__always)
    public static func piece(forCharacter character: UInt8) -> Piece?? {
        let kind: PieceKind
        switch character | 0x20 {
        case UInt8(ascii: "."): return character == UInt8(ascii: ".") ? .some(nil) : nil
        case UInt8(ascii: "p"): kind = .pawn
        case UInt8(ascii: "n"): kind = .knight
        case UInt8(ascii: "b"): kind = .bishop
        case UInt8(ascii: "r"): kind = .rook
        case UInt8(ascii: "q"): kind = .queen
        case UInt8(ascii: "k"): kind = .king
        default: return nil
        }
        return .some(Piece(character & 0x20 == 0 ? .white : .black, kind))
    }

    /// The length in characters (checksum included) of the reply that starts with
    /// `letter`, or `nil` when no reply starts with it.
    @inline(__always)
    public static func replyLength(_ letter: UInt8) -> Int? {
        switch letter {
        case UInt8(ascii: "s"): 67
        case UInt8(ascii: "v"), UInt8(ascii: "w"), UInt8(ascii: "r"): 7
        case UInt8(ascii: "l"), UInt8(ascii: "x"): 3
        default: nil
        }
    }

    /// The 64 status characters of a snapshot in the documented order (A8, B8 … H1).
    public static func statusCharacters(_ snapshot: BoardSnapshot) -> [UInt8] {
        (0..<64).map { index in character(for: snapshot[square(statusIndex: index)]) }
    }

    /// The square of status-string index `index` in the documented order (A8 = 0 … H1 = 63).
    public static func square(statusIndex index: Int) -> Square {
        Square(readingIndex: index)
    }

    /// The four corner LEDs (1-based, LED 1 at the A8 corner, 9 at A1, 73 at H8, 81 at H1)
    /// around `square` in the documented orientation.
    public static func leds(for square: Square) -> [Int] {
        let file = square.file
        let rank = square.rank + 1
        return [
            9 * file + (8 - rank) + 1, 9 * file + (9 - rank) + 1,
            9 * (file + 1) + (8 - rank) + 1, 9 * (file + 1) + (9 - rank) + 1,
        ]
    }
}
