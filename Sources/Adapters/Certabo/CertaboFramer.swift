import FoundationEssentials

/// Cuts a Certabo or Sentio byte stream into frames (``CertaboWire``): a frame is the
/// text after the last `:` of a line ended by `\n`, its numbers read as bytes.
///
/// Lines longer than ``maximumLineLength`` are skipped to their end, so what is held stays
/// bounded; a line that is no frame (no `:`, a number above 255, a count other than 8 or
/// 320, a character other than digits, white space, `L`, `D` and `*`) is handed back as
/// garbage of at most ``maximumLineLength`` bytes.
struct CertaboFramer: Sendable {
    /// What one line was.
    enum Piece: Equatable {
        /// A frame's numbers.
        case frame([UInt8])
        /// A line that is no frame.
        case garbage(Data)
    }

    /// The longest line held (a tag frame is at most 320 × 4 characters and a few more).
    static let maximumLineLength = 2048

    private var line: [UInt8] = []
    private var skipping = false
    private var overlong: Piece?
    private var lastLine: [UInt8] = []
    private var lastPiece: Piece?
    /// The LED marker the board's frames carry (`L` one LED per square, `D` RGB), once one did.
    private(set) var ledMarker: UInt8?

    /// Bytes held for an incomplete line.
    var bufferedByteCount: Int { line.count }

    /// Forgets an incomplete line.
    mutating func reset() {
        self = CertaboFramer()
    }

    /// Appends `bytes` and returns every line they complete.
    mutating func feed(_ bytes: Data) -> [Piece] {
        var pieces: [Piece] = []
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var start = 0
            while start < raw.count {
                let end = raw[start...].firstIndex(of: UInt8(ascii: "\n"))
                take(UnsafeRawBufferPointer(rebasing: raw[start..<(end ?? raw.count)]))
                if let garbage = overlong.take() { pieces.append(garbage) }
                guard let end else { break }
                if skipping {
                    skipping = false
                } else if let piece = finishLine() {
                    pieces.append(piece)
                }
                line.removeAll(keepingCapacity: true)
                start = end + 1
            }
        }
        return pieces
    }

    /// Appends part of a line, up to ``maximumLineLength`` bytes; a longer line is handed
    /// back as garbage and skipped to its end.
    private mutating func take(_ part: UnsafeRawBufferPointer) {
        guard !skipping, !part.isEmpty else { return }
        let room = Self.maximumLineLength - line.count
        guard part.count > room else {
            line.append(contentsOf: part)
            return
        }
        line.append(contentsOf: UnsafeRawBufferPointer(rebasing: part[0..<room]))
        overlong = .garbage(Data(line))
        line.removeAll(keepingCapacity: true)
        skipping = true
    }

    /// The line just ended: its frame (the one before again when the board sent the same
    /// line, as it does while nothing moves), garbage, or `nil` for an empty line.
    private mutating func finishLine() -> Piece? {
        if line == lastLine, let lastPiece { return lastPiece }
        guard let (piece, marker) = Self.parse(line) else { return nil }
        if let marker { ledMarker = marker }
        if case .frame = piece {
            lastLine = line
            lastPiece = piece
        }
        return piece
    }

    /// The frame in `line` (without its `\n`) and the LED marker it held, garbage, or `nil`
    /// for an empty line.
    static func parse(_ line: [UInt8]) -> (Piece, marker: UInt8?)? {
        guard let colon = line.lastIndex(of: UInt8(ascii: ":")) else {
            let trimmed = line.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: " ") }
            return trimmed.isEmpty ? nil : (.garbage(Data(line)), nil)
        }
        var numbers: [UInt8] = []
        numbers.reserveCapacity(CertaboWire.tagFrameCount)
        var value = 0
        var digits = 0
        var marker: UInt8?
        for byte in line[(colon + 1)...] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard digits <= 3, value <= 255 else { return (.garbage(Data(line)), nil) }
                continue
            case CertaboWire.classicMarker, CertaboWire.rgbMarker:
                marker = byte
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "*"):
                break
            default:
                return (.garbage(Data(line)), nil)
            }
            if digits > 0 { numbers.append(UInt8(value)) }
            value = 0
            digits = 0
        }
        if digits > 0 { numbers.append(UInt8(value)) }
        guard numbers.count == CertaboWire.tagFrameCount || numbers.count == CertaboWire.occupancyFrameCount else {
            return (.garbage(Data(line)), nil)
        }
        return (.frame(numbers), marker)
    }
}
