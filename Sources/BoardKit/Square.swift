/// One of the 64 squares of a chess board, in a1 = 0 … h8 = 63 order
/// (index = rank × 8 + file, both zero-based from White's side).
///
/// Every board family orders its squares differently on the wire; adapters convert
/// to and from `Square` at the edge so that nothing above them sees a wire order.
public enum Square: Int, CaseIterable, Comparable, Hashable, Sendable, Codable {
    case a1, b1, c1, d1, e1, f1, g1, h1
    case a2, b2, c2, d2, e2, f2, g2, h2
    case a3, b3, c3, d3, e3, f3, g3, h3
    case a4, b4, c4, d4, e4, f4, g4, h4
    case a5, b5, c5, d5, e5, f5, g5, h5
    case a6, b6, c6, d6, e6, f6, g6, h6
    case a7, b7, c7, d7, e7, f7, g7, h7
    case a8, b8, c8, d8, e8, f8, g8, h8

    /// The square at `file` (0 = a … 7 = h) and `rank` (0 = rank 1 … 7 = rank 8),
    /// or `nil` when either is outside `0...7`.
    @inlinable
    public init?(file: Int, rank: Int) {
        guard (0..<8).contains(file), (0..<8).contains(rank) else { return nil }
        self.init(rawValue: rank * 8 + file)
    }

    /// Parses an algebraic square name such as `"e4"` (lower or upper case).
    /// Returns `nil` for anything else.
    public init?(_ name: some StringProtocol) {
        let scalars = Array(name.unicodeScalars)
        guard scalars.count == 2 else { return nil }
        let fileValue = Int(scalars[0].value | 0x20) - Int(UnicodeScalar("a").value)
        let rankValue = Int(scalars[1].value) - Int(UnicodeScalar("1").value)
        self.init(file: fileValue, rank: rankValue)
    }

    /// Zero-based file: 0 = a … 7 = h.
    @inlinable public var file: Int { rawValue & 7 }

    /// Zero-based rank: 0 = rank 1 … 7 = rank 8.
    @inlinable public var rank: Int { rawValue >> 3 }

    /// The algebraic name, e.g. `"e4"`.
    public var name: String { Self.names[rawValue] }

    /// The file's letter as an ASCII byte (`a`…`h`): a name written byte by byte.
    @inlinable public var fileLetter: UInt8 { UInt8(ascii: "a") + UInt8(file) }

    /// The rank's digit as an ASCII byte (`1`…`8`).
    @inlinable public var rankDigit: UInt8 { UInt8(ascii: "1") + UInt8(rank) }

    /// The 64 names, made once: a move's UCI, SAN and FEN name squares several times each.
    private static let names: [String] = allCases.map { square in
        String(decoding: [square.fileLetter, square.rankDigit], as: UTF8.self)
    }

    /// The same square seen from the other side of the board (a1 ↔ h8).
    @inlinable public var rotated: Square { Square(rawValue: 63 - rawValue)! }

    /// The square `fileOffset` files and `rankOffset` ranks away, or `nil` off the board.
    @inlinable
    public func offset(file fileOffset: Int, rank rankOffset: Int) -> Square? {
        Square(file: file + fileOffset, rank: rank + rankOffset)
    }

    /// Orders squares a1 < b1 < … < h8.
    public static func < (lhs: Square, rhs: Square) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Square: CustomStringConvertible {
    /// The algebraic name, e.g. `"e4"`.
    public var description: String { name }
}
