import BoardKit
import Chess

/// A piece placement packed into 256 bits (4 bits per square), so that comparing a
/// snapshot with a known placement costs four integer compares. Code 0 is an empty
/// square; 1…6 White pawn…king; 9…14 Black pawn…king.
struct PackedBoard: Hashable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64)
    /// The occupied squares, kept as the codes change (derived from `words`: not part of
    /// equality or the hash). A gap search asks for it on every move it tries, and working
    /// it out of the codes each time was a tenth of the search's time.
    private(set) var occupancy: UInt64

    /// An empty board.
    init() {
        words = (0, 0, 0, 0)
        occupancy = 0
    }

    /// Packs a snapshot.
    init(_ snapshot: BoardSnapshot) {
        var packed: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var occupied: UInt64 = 0
        for (index, piece) in snapshot.squares.enumerated() where piece != nil {
            occupied |= 1 << UInt64(index)
            let value = Self.code(piece) << UInt64((index & 15) << 2)
            switch index >> 4 {
            case 0: packed.0 |= value
            case 1: packed.1 |= value
            case 2: packed.2 |= value
            default: packed.3 |= value
            }
        }
        words = packed
        occupancy = occupied
    }

    /// The 4-bit code of a piece.
    @inline(__always)
    static func code(_ piece: Piece?) -> UInt64 {
        guard let piece else { return 0 }
        let kind: UInt64 =
            switch piece.kind {
            case .pawn: 1
            case .knight: 2
            case .bishop: 3
            case .rook: 4
            case .queen: 5
            case .king: 6
            }
        return piece.color == .white ? kind : kind | 8
    }

    /// The piece of a 4-bit code, or `nil` for empty (or an unused code).
    static func piece(code: UInt64) -> Piece? {
        let kinds: [PieceKind] = [.pawn, .knight, .bishop, .rook, .queen, .king]
        let kindIndex = Int(code & 7) - 1
        guard kindIndex >= 0, kindIndex < kinds.count else { return nil }
        return Piece(code & 8 == 0 ? .white : .black, kinds[kindIndex])
    }

    private func word(_ index: Int) -> UInt64 {
        switch index {
        case 0: words.0
        case 1: words.1
        case 2: words.2
        default: words.3
        }
    }

    /// The code on the square with raw value `square` (0…63).
    @inline(__always)
    func code(at square: Int) -> UInt64 {
        (word(square >> 4) >> UInt64((square & 15) << 2)) & 0xF
    }

    /// Sets the code on the square with raw value `square` (0…63).
    mutating func setCode(_ code: UInt64, at square: Int) {
        let shift = UInt64((square & 15) << 2)
        let mask = ~(UInt64(0xF) << shift)
        let value = (code & 0xF) << shift
        switch square >> 4 {
        case 0: words.0 = (words.0 & mask) | value
        case 1: words.1 = (words.1 & mask) | value
        case 2: words.2 = (words.2 & mask) | value
        default: words.3 = (words.3 & mask) | value
        }
        let bit = UInt64(1) << UInt64(square & 63)
        occupancy = code & 0xF == 0 ? occupancy & ~bit : occupancy | bit
    }

    /// The piece on `square`.
    subscript(square: Square) -> Piece? {
        get { Self.piece(code: code(at: square.rawValue)) }
        set { setCode(Self.code(newValue), at: square.rawValue) }
    }

    /// The placement after `move` (legal or pseudo-legal here): the piece moved, or the
    /// promotion piece put; the rook too when the king castles (two files); the pawn taken
    /// en passant (a pawn moving diagonally to an empty square).
    func applying(_ move: Move) -> PackedBoard {
        let from = move.from.rawValue
        let to = move.to.rawValue
        let moverCode = code(at: from)
        let colorBit = moverCode & 8
        var result = self
        result.setCode(0, at: from)
        let kindCode = moverCode & 7
        if let promotion = move.promotion {
            result.setCode(Self.code(Piece(colorBit == 0 ? .white : .black, promotion)), at: to)
        } else {
            result.setCode(moverCode, at: to)
        }
        if kindCode == 6, abs(move.to.file - move.from.file) == 2 {
            let kingside = move.to.file > move.from.file
            let rank = move.from.rank
            if let rookFrom = Square(file: kingside ? 7 : 0, rank: rank),
                let rookTo = Square(file: kingside ? 5 : 3, rank: rank)
            {
                result.setCode(0, at: rookFrom.rawValue)
                result.setCode(4 | colorBit, at: rookTo.rawValue)
            }
        }
        if kindCode == 1, move.from.file != move.to.file, code(at: to) == 0,
            let captured = Square(file: move.to.file, rank: move.from.rank)
        {
            result.setCode(0, at: captured.rawValue)
        }
        return result
    }

    /// Bit `n` set where the two boards differ on the square with raw value `n`.
    func differences(from other: PackedBoard) -> UInt64 {
        Self.nonzeroNibbles(words.0 ^ other.words.0, base: 0)
            | Self.nonzeroNibbles(words.1 ^ other.words.1, base: 16)
            | Self.nonzeroNibbles(words.2 ^ other.words.2, base: 32)
            | Self.nonzeroNibbles(words.3 ^ other.words.3, base: 48)
    }

    /// The unpacked snapshot.
    var snapshot: BoardSnapshot {
        var snapshot = BoardSnapshot()
        for square in Square.allCases {
            snapshot[square] = self[square]
        }
        return snapshot
    }

    /// Bit `base + n` set where nibble `n` of `value` is not zero: each nibble folded to its
    /// low bit, then the sixteen bits, four apart, packed together (no loop, no branch: the
    /// tracker compares boards and takes their occupancy on every event and gap search).
    @inline(__always)
    private static func nonzeroNibbles(_ value: UInt64, base: Int) -> UInt64 {
        var bits = value | (value >> 1)
        bits |= bits >> 2
        bits &= 0x1111_1111_1111_1111
        bits = (bits | (bits >> 3)) & 0x0303_0303_0303_0303
        bits = (bits | (bits >> 6)) & 0x000F_000F_000F_000F
        bits = (bits | (bits >> 12)) & 0x0000_00FF_0000_00FF
        bits = (bits | (bits >> 24)) & 0xFFFF
        return bits << UInt64(base)
    }

    static func == (lhs: PackedBoard, rhs: PackedBoard) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// A quick, unkeyed 64-bit mix of the placement and `extra` (a search's table of the
    /// positions it reached, where `Hasher`'s keyed hash cost more than the search's
    /// moves): good for spreading slots, not for a table fed by an adversary.
    func mixed(with extra: UInt64) -> UInt64 {
        func step(_ hash: UInt64, _ word: UInt64) -> UInt64 {
            let mixed = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
            return mixed ^ (mixed >> 31)
        }
        return step(step(step(step(extra &+ 0x9E37_79B9_7F4A_7C15, words.0), words.1), words.2), words.3)
    }
}

extension UInt64 {
    /// The squares of the set bits, ascending.
    var squares: [Square] {
        var result: [Square] = []
        var bits = self
        while bits != 0 {
            if let square = Square(rawValue: bits.trailingZeroBitCount) { result.append(square) }
            bits &= bits - 1
        }
        return result
    }
}
