public import BoardKit
public import FoundationEssentials

/// The wire vocabulary of Certabo boards and the Tabutronic Sentio, which speak one
/// protocol (board-protocols.md §12; picochess `eboard/certabo`): a USB serial line at
/// 38400 8N1 on which the board streams text frames, `:` then decimal numbers separated by
/// white space, ended by `\r\n`.
///
/// - A board with piece recognition (Certabo) sends 320 numbers: 64 squares × a 5-byte
///   RFID tag, square 0 = a8 … 63 = h1, an all-zero tag for an empty square.
/// - A board without (Sentio) sends 8 numbers, one occupancy bitmask per rank, rank 8
///   first, bit 7 = file a.
/// - A frame holding `L` marks a board with one LED per square, `D` one with RGB LEDs.
///
/// The host lights the LEDs of a classic board with 8 bytes, one bit per square: byte 0 =
/// rank 8, the least significant bit = file a.
public enum CertaboWire {
    /// The line speed.
    public static let baudRate = 38400
    /// DTR is lowered once the line is open, as picochess (`usb_transport.py`) and BearChess
    /// open these boards; Certabo's own `usbtool.py` leaves it raised. No source gives a
    /// reason, and a board that does not use the line is not disturbed by either.
    public static let lowersDataTerminalReady = true
    /// The numbers in a frame of a board with piece recognition.
    public static let tagFrameCount = 320
    /// The numbers in a frame of a board without.
    public static let occupancyFrameCount = 8
    /// The bytes in one RFID tag.
    public static let tagLength = 5
    /// The LED pattern of a calibration (picochess, Certabo's own software): ranks 8, 7, 2
    /// and 1, and the spare-queen squares d6 and d3.
    public static let calibrationLEDs: [UInt8] = [0xFF, 0xFF, 0x08, 0x00, 0x00, 0x08, 0xFF, 0xFF]
    /// The spare-queen squares a calibration also reads: a black queen on d6, a white one on d3.
    public static let spareQueenSquares: [Square: Piece] = [.d6: Piece(.black, .queen), .d3: Piece(.white, .queen)]

    /// The square of wire index `index` (0 = a8 … 63 = h1).
    public static func square(index: Int) -> Square {
        Square(readingIndex: index)
    }

    /// The wire index of `square`.
    public static func index(of square: Square) -> Int { square.readingIndex }

    /// The occupancy of an 8-number frame (rank 8 first, bit 7 = file a).
    public static func occupancy(ranks: some Collection<UInt8>) -> OccupancyMap {
        var map = OccupancyMap()
        for (row, bits) in ranks.prefix(8).enumerated() {
            for file in 0..<8 where bits & (0x80 >> UInt8(file)) != 0 {
                map.insert(Square(file: file, rank: 7 - row)!)
            }
        }
        return map
    }

    /// The 8 numbers of `map` (what a Sentio sends).
    public static func ranks(of map: OccupancyMap) -> [UInt8] {
        (0..<8).map { row in
            (0..<8).reduce(UInt8(0)) { bits, file in
                map.contains(Square(file: file, rank: 7 - row)!) ? bits | 0x80 >> UInt8(file) : bits
            }
        }
    }

    /// The 8 LED bytes lighting `squares` (byte 0 = rank 8, bit 0 = file a: ``RankBitmasks``).
    public static func leds(_ squares: some Sequence<Square>) -> [UInt8] {
        RankBitmasks.bytes(lighting: squares)
    }

    /// The squares 8 LED bytes light.
    public static func litSquares(_ bytes: [UInt8]) -> Set<Square> {
        RankBitmasks.squares(lit: bytes)
    }

    /// The marker of a board with one LED per square (its answer to an LED write, in its frames).
    public static let classicMarker = UInt8(ascii: "L")
    /// The marker of a board with RGB LEDs (its answer to an LED write, in its frames).
    public static let rgbMarker = UInt8(ascii: "D")
    /// The RGB LEDs: a 9 × 9 grid of square corners.
    public static let rgbLEDCount = 81
    /// An RGB LED write: `FF 55`, 81 × (R, G, B), `0D 0A`.
    public static let rgbFrameLength = 2 + 3 * rgbLEDCount + 2

    /// The four corner LEDs of `square` on an RGB board (picochess's
    /// `rgb_led_command_translator.py`, BearChess's Spectrum driver): row by row from the
    /// rank-1 edge, each row from the h-file edge, so LED 0 is h1's outer corner and LED 80
    /// a8's.
    public static func rgbLEDs(for square: Square) -> [Int] {
        let base = 9 * square.rank + 7 - square.file
        return [base, base + 1, base + 9, base + 10]
    }

    /// The colour (red, green, blue) an indication style is lit in on an RGB board: picochess
    /// lights every square a dim blue; alerts and check are red here, hints green.
    public static func rgbColour(for style: IndicationStyle) -> [UInt8] {
        switch style {
        case .move, .highlight: [0x00, 0x00, 0x40]
        case .hint: [0x00, 0x40, 0x00]
        case .check, .alert: [0x40, 0x00, 0x00]
        }
    }

    /// The RGB LED write lighting `squares` in `colour` (none: every LED off).
    public static func rgbFrame(_ squares: some Sequence<Square>, colour: [UInt8]) -> [UInt8] {
        let rgb = (0..<3).map { $0 < colour.count ? colour[$0] : 0 }
        var leds = [UInt8](repeating: 0, count: 3 * rgbLEDCount)
        for square in squares {
            for led in rgbLEDs(for: square) { leds.replaceSubrange((3 * led)..<(3 * led + 3), with: rgb) }
        }
        return [0xFF, 0x55] + leds + [0x0D, 0x0A]
    }

    /// The squares an RGB LED write lights (all four corners on), or `nil` when `frame` is
    /// no such write.
    public static func rgbLitSquares(_ frame: [UInt8]) -> Set<Square>? {
        guard frame.count == rgbFrameLength, frame.starts(with: [0xFF, 0x55]), frame.suffix(2) == [0x0D, 0x0A]
        else { return nil }
        let isOn = { (led: Int) in frame[2 + 3 * led..<2 + 3 * led + 3].contains { $0 != 0 } }
        return Set(Square.allCases.filter { rgbLEDs(for: $0).allSatisfy(isOn) })
    }

    /// The wire bytes of `command` on a board whose frames carry `ledMarker`: `indicate` and
    /// `clearIndications` as the 8 LED bytes (every style alike), or on an RGB board (`D`) as
    /// an RGB write in the style's colour; `custom` as is; nothing else.
    public static func encode(_ command: BoardCommand, ledMarker: UInt8?) -> Data? {
        let isRGB = ledMarker == rgbMarker
        switch command {
        case .indicate(let squares, let style):
            return Data(isRGB ? rgbFrame(squares, colour: rgbColour(for: style)) : leds(squares))
        case .clearIndications:
            return Data(isRGB ? rgbFrame([], colour: []) : leds([]))
        case .custom(let bytes): return bytes
        case .startSession, .requestState, .requestBattery, .executeMove, .loadPosition, .judgeMove, .endGame:
            return nil
        }
    }

    /// The tag of 5 numbers (most significant first).
    public static func tag(_ bytes: some Collection<UInt8>) -> PieceTag {
        bytes.reduce(PieceTag(0)) { $0 << 8 | PieceTag($1) }
    }

    /// The 5 numbers of `tag`.
    public static func bytes(of tag: PieceTag) -> [UInt8] {
        (0..<tagLength).map { UInt8(truncatingIfNeeded: tag >> (8 * UInt64(tagLength - 1 - $0))) }
    }

    /// A frame as the board sends it: `:`, the numbers separated by spaces, `\r\n`; `marker`
    /// (`L`, `D`) after the numbers when given.
    public static func frame(_ numbers: [UInt8], marker: Character? = nil) -> [UInt8] {
        var text = ":" + numbers.map(String.init).joined(separator: " ")
        if let marker { text += " " + String(marker) }
        return Array((text + "\r\n").utf8)
    }
}
