/// What a piece-identity board reports: the piece (or nothing) on each of the 64 squares.
///
/// Indexed by ``Square`` (a1 … h8), independent of the wire order of any family.
public struct BoardSnapshot: Hashable, Sendable, Codable {
    /// The 64 squares in ``Square`` order.
    public private(set) var squares: [Piece?]

    /// An empty board.
    public init() {
        squares = Array(repeating: nil, count: 64)
    }

    /// A snapshot from 64 entries in ``Square`` order. Traps on any other count
    /// (a programmer error: adapters always build 64 entries).
    public init(squares: [Piece?]) {
        precondition(squares.count == 64, "a snapshot has 64 squares")
        self.squares = squares
    }

    /// The piece on `square`.
    public subscript(square: Square) -> Piece? {
        get { squares[square.rawValue] }
        set { squares[square.rawValue] = newValue }
    }

    /// The squares that hold a piece.
    public var occupancy: OccupancyMap {
        var map = OccupancyMap()
        for square in Square.allCases where squares[square.rawValue] != nil {
            map.insert(square)
        }
        return map
    }

    /// The standard starting position.
    public static let startingPosition: BoardSnapshot = {
        var snapshot = BoardSnapshot()
        let back: [PieceKind] = [.rook, .knight, .bishop, .queen, .king, .bishop, .knight, .rook]
        for file in 0..<8 {
            snapshot[Square(file: file, rank: 0)!] = Piece(.white, back[file])
            snapshot[Square(file: file, rank: 1)!] = Piece(.white, .pawn)
            snapshot[Square(file: file, rank: 6)!] = Piece(.black, .pawn)
            snapshot[Square(file: file, rank: 7)!] = Piece(.black, back[file])
        }
        return snapshot
    }()

    /// The same board seen from the other side (a1 ↔ h8): what a board set up the
    /// other way round reports.
    public var rotated: BoardSnapshot {
        BoardSnapshot(squares: squares.reversed())
    }

    /// The piece-placement field of FEN (first field only), e.g.
    /// `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR`.
    public var fenPlacement: String {
        FENPlacement.text { self[$0]?.fenASCII }
    }

    /// Parses a FEN piece-placement field (the first field of a FEN; further fields are ignored).
    /// Returns `nil` when it does not describe exactly 8 ranks of 8 squares.
    public init?(fenPlacement: some StringProtocol) {
        var snapshot = BoardSnapshot()
        let isPlacement = FENPlacement.read(fenPlacement) { square, character in
            guard let piece = Piece(fenLetter: character) else { return false }
            snapshot[square] = piece
            return true
        }
        guard isPlacement else { return nil }
        self = snapshot
    }
}

/// What an occupancy-sensing board reports: which of the 64 squares hold a piece.
/// A 64-bit set, bit `n` for ``Square`` raw value `n`.
public struct OccupancyMap: Hashable, Sendable, Codable {
    /// Bit `n` is set when the square with raw value `n` is occupied.
    public var bits: UInt64

    /// A map from raw bits (bit 0 = a1 … bit 63 = h8).
    @inlinable
    public init(bits: UInt64 = 0) { self.bits = bits }

    /// A map with exactly `squares` occupied.
    public init(_ squares: some Sequence<Square>) {
        bits = 0
        for square in squares { insert(square) }
    }

    /// Whether `square` is occupied.
    @inlinable
    public func contains(_ square: Square) -> Bool { bits & (1 << UInt64(square.rawValue)) != 0 }

    /// Marks `square` occupied.
    @inlinable
    public mutating func insert(_ square: Square) { bits |= 1 << UInt64(square.rawValue) }

    /// Marks `square` empty.
    @inlinable
    public mutating func remove(_ square: Square) { bits &= ~(1 << UInt64(square.rawValue)) }

    /// The occupied squares in ascending order.
    public var squares: [Square] { Square.allCases.filter(contains) }

    /// How many squares are occupied.
    @inlinable
    public var count: Int { bits.nonzeroBitCount }

    /// The same map seen from the other side of the board (a1 ↔ h8).
    public var rotated: OccupancyMap { OccupancyMap(bits: bits.bitSwapped) }

    /// The occupancy of the standard starting position (ranks 1, 2, 7 and 8).
    public static let startingPosition = OccupancyMap(bits: 0xFFFF_0000_0000_FFFF)
}

extension UInt64 {
    /// The bits in reverse order (bit 0 ↔ bit 63).
    @usableFromInline
    var bitSwapped: UInt64 {
        var value = self
        var result: UInt64 = 0
        for _ in 0..<64 {
            result = (result << 1) | (value & 1)
            value >>= 1
        }
        return result
    }
}
