public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a Certabo board, or of a Tabutronic Sentio (``Options/recognisesPieces``
/// off), written from the public facts (``CertaboWire``): it streams the board every
/// ``Options/frameInterval`` — 64 RFID tags, or 8 rank bitmasks — and takes 8-byte LED
/// writes. A change of the pieces shows in a frame at once.
///
/// Every physical piece carries a tag of its own: the pieces set up at the start get theirs
/// from the board's name, a lifted or captured piece keeps its tag off the board, and a
/// piece put down takes the tag of the last piece of its kind taken off (a captured queen
/// promoting again). The set also holds a spare queen of each colour off the board (for a
/// calibration with them on d3 and d6, or a promotion); a piece put down when none of its
/// kind is off the board gets a tag never seen before, as a piece from another set would.
public struct CertaboPersonality: BoardPersonality {
    /// Firmware settings.
    public struct Options: Hashable, Sendable {
        /// Whether the board reads tags (Certabo) or occupancy only (Sentio).
        public var recognisesPieces: Bool
        /// How often the board sends its frame.
        public var frameInterval: TimeInterval
        /// The LED marker the frames carry (`L`; `D` for a board with RGB LEDs, which takes
        /// RGB writes only), or none.
        public var ledMarker: Character?

        /// Creates options: a Certabo streaming 10 frames a second with classic LEDs.
        public init(recognisesPieces: Bool = true, frameInterval: TimeInterval = 0.1, ledMarker: Character? = "L") {
            self.recognisesPieces = recognisesPieces
            self.frameInterval = frameInterval
            self.ledMarker = ledMarker
        }
    }

    /// The name the board is known by (its tags derive from it).
    public let name: String
    /// Firmware settings.
    public let options: Options
    /// Whether the board was set up with Black on the near side (the wire order flips).
    public var isFlipped: Bool
    /// The physical board.
    public private(set) var physical: PhysicalBoard
    /// Protocol violations counted so far.
    public private(set) var violations = ProtocolViolations()
    /// The lit squares, as physical squares.
    public private(set) var litSquares: Set<Square> = []
    /// The tag of the piece on each occupied physical square.
    public private(set) var tags: [Square: PieceTag] = [:]
    /// The tags of pieces off the board, by piece, the last taken off last.
    public private(set) var offBoard: [Piece: [PieceTag]] = [:]

    private var pendingWrite: [UInt8] = []
    private var isSkipping = false
    private var nextTag: PieceTag

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "Certabo", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board)
        nextTag = Self.seed(name)
        for square in Square.allCases where board[square] != nil { tags[square] = freshTag() }
        offBoard = [Piece(.white, .queen): [freshTag()], Piece(.black, .queen): [freshTag()]]
    }

    /// Certabo, or Sentio.
    public var family: BoardFamily { options.recognisesPieces ? .certabo : .sentio }
    /// No GATT: the board sits behind a serial line.
    public var profile: BoardProfile { options.recognisesPieces ? CertaboAdapter.profile : SentioAdapter.profile }
    /// The pieces on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// ``Options/frameInterval``.
    public var tickInterval: TimeInterval? { options.frameInterval }

    /// A new link: the board streams (the first frame at once).
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        pendingWrite = []
        return [frame()]
    }

    /// The board keeps streaming into an unplugged line; nothing to forget but a half write.
    public mutating func linkLost() {
        pendingWrite = []
        isSkipping = false
    }

    /// Takes LED writes (the line may cut them anywhere): 8 bytes each, or on an RGB board
    /// (``Options/ledMarker`` `D`) RGB writes of ``CertaboWire/rgbFrameLength`` bytes, where
    /// bytes that start none are skipped and counted as malformed.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        pendingWrite += bytes
        guard options.ledMarker?.asciiValue == CertaboWire.rgbMarker else {
            while pendingWrite.count >= 8 {
                let leds = Array(pendingWrite.prefix(8))
                pendingWrite.removeFirst(8)
                light(CertaboWire.litSquares(leds))
            }
            return []
        }
        while !pendingWrite.isEmpty {
            guard pendingWrite.starts(with: [0xFF, 0x55].prefix(pendingWrite.count)) else {
                // One violation for a run of bytes that start no write.
                if !isSkipping { violations.malformedCommands += 1 }
                isSkipping = true
                let next = (1..<pendingWrite.count).first { index in
                    pendingWrite[index] == 0xFF && (index + 1 == pendingWrite.count || pendingWrite[index + 1] == 0x55)
                }
                pendingWrite.removeFirst(next ?? pendingWrite.count)
                continue
            }
            guard pendingWrite.count >= CertaboWire.rgbFrameLength else { break }
            let frame = Array(pendingWrite.prefix(CertaboWire.rgbFrameLength))
            pendingWrite.removeFirst(CertaboWire.rgbFrameLength)
            isSkipping = false
            if let squares = CertaboWire.rgbLitSquares(frame) {
                light(squares)
            } else {
                violations.malformedCommands += 1
            }
        }
        return []
    }

    private mutating func light(_ squares: Set<Square>) {
        litSquares = Set(squares.map { isFlipped ? $0.rotated : $0 })
    }

    /// Moves tags with the pieces. The board scans continuously, so a change shows in a frame
    /// at once (a hand takes longer than a scan between lifting a piece and putting it down).
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .emptied(let square, let piece):
            if let tag = tags.removeValue(forKey: square) { offBoard[piece, default: []].append(tag) }
        case .placed(let square, let piece, let replaced):
            if let replaced, let tag = tags.removeValue(forKey: square) { offBoard[replaced, default: []].append(tag) }
            tags[square] = offBoard[piece]?.popLast() ?? freshTag()
        case .none, .battery, .button:
            return []
        }
        return [frame()]
    }

    /// The board's frame.
    public mutating func tick(at time: TimeInterval) -> [Data] { [frame()] }

    /// The frame the board sends now.
    public func frame() -> Data {
        var numbers: [UInt8]
        if options.recognisesPieces {
            numbers = []
            numbers.reserveCapacity(CertaboWire.tagFrameCount)
            for index in 0..<64 {
                let square = CertaboWire.square(index: index)
                numbers += CertaboWire.bytes(of: tags[isFlipped ? square.rotated : square] ?? 0)
            }
        } else {
            let occupancy = physical.occupancy
            numbers = CertaboWire.ranks(of: isFlipped ? OccupancyMap(occupancy.squares.map(\.rotated)) : occupancy)
        }
        return Data(CertaboWire.frame(numbers, marker: options.ledMarker))
    }

    private mutating func freshTag() -> PieceTag {
        defer { nextTag = nextTag &+ 0x01_0203 }
        return nextTag
    }

    /// A tag base that differs from board to board (FNV-1a of the name, 40 bits, never 0).
    private static func seed(_ name: String) -> PieceTag {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return (hash & 0xFF_FFFF_FFFF) | 0x10_0000_0000
    }
}
