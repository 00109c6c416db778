public import BoardKit
public import FoundationEssentials

/// The wire vocabulary of the iChessOne board (board-protocols.md §12; picochess
/// `eboard/ichessone`, BearChess's iChessOne driver and DGT ChessConnect agree on it): ASCII
/// commands without a terminator on the Nordic UART service, binary replies that start with
/// `=` and a letter.
///
/// - `CPIRQ` turns on reports at every change, `RP` asks for the position, `RB` for the
///   battery.
/// - `=p` + 32 bytes: the position, two squares a byte, high nibble first, in reading order
///   (a8, b8 … h8, a7 … h1); 0 empty, 1…6 the white pawn, knight, bishop, rook, queen and king, 7…12 the
///   black ones (13…15 never appear: `=`, 0x3D, can never be inside a position).
/// - `=b`, a status byte (1 = charging) and the charge in percent.
/// - `EL` + 14 bytes lights LEDs: brightness and red, green and blue (a nibble each), an
///   indicator row beyond rank 8, the 8 ranks (``RankBitmasks``), an indicator row beyond
///   rank 1, flash and clear (`01`: steady, replacing what was lit), the duration (`FF`:
///   until changed).
public enum IChessOneWire {
    /// Every reply starts with this byte (`=`).
    public static let replyMarker = UInt8(ascii: "=")
    /// The letter of a position reply.
    public static let positionLetter = UInt8(ascii: "p")
    /// The letter of a battery reply.
    public static let batteryLetter = UInt8(ascii: "b")
    /// A position reply's length: marker, letter, 32 bytes.
    public static let positionFrameLength = 34
    /// A battery reply's length: marker, letter, status, percent.
    public static let batteryFrameLength = 4
    /// The length of any other reply (only marker and letter are known of it).
    public static let otherFrameLength = 2

    /// `CPIRQ`: report the position at every change.
    public static let reportChanges = Data("CPIRQ".utf8)
    /// `RP`: report the position now.
    public static let requestPosition = Data("RP".utf8)
    /// `RB`: report the battery.
    public static let requestBattery = Data("RB".utf8)
    /// The LED command's first two bytes (`EL`).
    public static let ledPrefix: [UInt8] = Array("EL".utf8)
    /// The LED command's length.
    public static let ledCommandLength = 16

    /// Whether `byte` holds two piece codes (neither nibble 13…15).
    @inline(__always)
    public static func isPositionByte(_ byte: UInt8) -> Bool {
        byte >> 4 <= 12 && byte & 0x0F <= 12
    }

    /// The piece of code `code` (0…12; `nil` for an empty square).
    @inline(__always)
    public static func piece(code: UInt8) -> Piece? {
        guard code > 0, code <= 12 else { return nil }
        return Piece(code <= 6 ? .white : .black, kinds[Int((code - 1) % 6)])
    }

    private static let kinds: [PieceKind] = [.pawn, .knight, .bishop, .rook, .queen, .king]

    /// The code of `piece` (0 for an empty square).
    public static func code(of piece: Piece?) -> UInt8 {
        guard let piece else { return 0 }
        let kind = UInt8(kinds.firstIndex(of: piece.kind)! + 1)
        return piece.color == .white ? kind : kind + 6
    }

    /// The whole `=p` reply for `board`.
    public static func positionFrame(_ board: BoardSnapshot) -> [UInt8] {
        var frame = [replyMarker, positionLetter]
        for pair in 0..<32 {
            let high = code(of: board[Square(readingIndex: 2 * pair)])
            let low = code(of: board[Square(readingIndex: 2 * pair + 1)])
            frame.append(high << 4 | low)
        }
        return frame
    }

    /// The board of a position reply's 32 payload bytes, or `nil` when they are fewer or a
    /// code is 13…15.
    public static func board(payload: some Collection<UInt8>) -> BoardSnapshot? {
        guard payload.count >= 32 else { return nil }
        var board = BoardSnapshot()
        for (pair, byte) in payload.prefix(32).enumerated() {
            guard isPositionByte(byte) else { return nil }
            if let piece = piece(code: byte >> 4) { board[Square(readingIndex: 2 * pair)] = piece }
            if let piece = piece(code: byte & 0x0F) { board[Square(readingIndex: 2 * pair + 1)] = piece }
        }
        return board
    }

    /// The whole `=b` reply.
    public static func batteryFrame(percent: Int, charging: Bool) -> [UInt8] {
        [replyMarker, batteryLetter, charging ? 1 : 0, UInt8(clamping: min(max(percent, 0), 100))]
    }

    /// An LED colour: a nibble (0…15) of red, green and blue.
    public struct Colour: Hashable, Sendable {
        /// Red, green and blue, 0…15 each.
        public var red, green, blue: UInt8

        /// A colour; each part is cut to 0…15.
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = min(red, 15)
            self.green = min(green, 15)
            self.blue = min(blue, 15)
        }
    }

    /// The colour each indication style is lit in.
    public static func colour(for style: IndicationStyle) -> Colour {
        switch style {
        case .move: Colour(red: 0, green: 15, blue: 0)
        case .highlight: Colour(red: 0, green: 0, blue: 15)
        case .hint: Colour(red: 15, green: 15, blue: 0)
        case .check, .alert: Colour(red: 15, green: 0, blue: 0)
        }
    }

    /// The `EL` command lighting `squares` in `colour` at full brightness, steady, in place
    /// of whatever was lit; no squares (and brightness 0) turns every LED off.
    public static func leds(_ squares: some Collection<Square>, colour: Colour) -> Data {
        let brightness: UInt8 = squares.isEmpty ? 0 : 0x0F
        var command = ledPrefix
        command += [brightness << 4 | colour.red, colour.green << 4 | colour.blue, 0x00]
        command += RankBitmasks.bytes(lighting: squares)
        command += [0x00, 0x01, 0xFF]
        return Data(command)
    }
}
