/// A set of squares, bit `n` for the square with raw value `n` (a1 = bit 0 … h8 = bit 63).
typealias Bitboard = UInt64

/// Precomputed attack sets: knight, king and pawn attacks per square, the eight sliding
/// rays per square, and the squares between (and on the line through) two squares.
///
/// Sliding attacks use the classical ray approach: each ray is cut at its first blocker by
/// removing the blocker's own ray in the same direction. No magic numbers are needed, and
/// the tables are small (about 70 KB), so they build quickly even in debug builds.
enum AttackTables {
    /// Knight attacks, indexed by square.
    static let knight: [Bitboard] = (0..<64).map {
        leaperAttacks($0, [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
    }

    /// King attacks, indexed by square.
    static let king: [Bitboard] = (0..<64).map {
        leaperAttacks($0, [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
    }

    /// Pawn capture targets: index `square` for a white pawn, `64 + square` for a black one.
    static let pawn: [Bitboard] =
        (0..<64).map { leaperAttacks($0, [(-1, 1), (1, 1)]) } + (0..<64).map { leaperAttacks($0, [(-1, -1), (1, -1)]) }

    /// Direction steps (file, rank). Indices 0…3 increase the square index (the nearest
    /// blocker is the lowest set bit), 4…7 are their opposites (the nearest is the highest).
    private static let directions: [(Int, Int)] = [
        (0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1),
    ]

    /// The ray from a square in a direction up to the edge: index `direction * 64 + square`.
    static let rays: [Bitboard] = {
        var table = [Bitboard](repeating: 0, count: 8 * 64)
        for direction in 0..<8 {
            for square in 0..<64 {
                table[direction * 64 + square] = ray(from: square, step: directions[direction])
            }
        }
        return table
    }()

    /// The squares strictly between two squares on a common line (else empty):
    /// index `a * 64 + b`.
    static let between: [Bitboard] = {
        var table = [Bitboard](repeating: 0, count: 64 * 64)
        for a in 0..<64 {
            for step in directions {
                var passed: Bitboard = 0
                var file = a & 7 + step.0
                var rank = a >> 3 + step.1
                while (0..<8).contains(file), (0..<8).contains(rank) {
                    table[a * 64 + rank * 8 + file] = passed
                    passed |= 1 << (rank * 8 + file)
                    file += step.0
                    rank += step.1
                }
            }
        }
        return table
    }()

    /// The whole line (edge to edge) through two distinct squares on a common line,
    /// both included; empty when they share no line: index `a * 64 + b`.
    static let line: [Bitboard] = {
        var table = [Bitboard](repeating: 0, count: 64 * 64)
        for a in 0..<64 {
            for direction in 0..<4 {
                let others = ray(from: a, step: directions[direction]) | ray(from: a, step: directions[direction + 4])
                var rest = others
                while rest != 0 {
                    let b = rest.trailingZeroBitCount
                    rest &= rest - 1
                    table[a * 64 + b] = others | (1 << a)
                }
            }
        }
        return table
    }()

    private static func leaperAttacks(_ square: Int, _ steps: [(Int, Int)]) -> Bitboard {
        var bits: Bitboard = 0
        for (fileStep, rankStep) in steps {
            let file = square & 7 + fileStep
            let rank = square >> 3 + rankStep
            if (0..<8).contains(file), (0..<8).contains(rank) { bits |= 1 << (rank * 8 + file) }
        }
        return bits
    }

    private static func ray(from square: Int, step: (Int, Int)) -> Bitboard {
        var bits: Bitboard = 0
        var file = square & 7 + step.0
        var rank = square >> 3 + step.1
        while (0..<8).contains(file), (0..<8).contains(rank) {
            bits |= 1 << (rank * 8 + file)
            file += step.0
            rank += step.1
        }
        return bits
    }

    /// The squares a rook on `square` attacks with `occupied` as blockers.
    @inline(__always)
    static func rookAttacks(_ square: Int, _ occupied: Bitboard) -> Bitboard {
        positiveRay(0, square, occupied) | positiveRay(1, square, occupied)
            | negativeRay(4, square, occupied) | negativeRay(5, square, occupied)
    }

    /// The squares a bishop on `square` attacks with `occupied` as blockers.
    @inline(__always)
    static func bishopAttacks(_ square: Int, _ occupied: Bitboard) -> Bitboard {
        positiveRay(2, square, occupied) | positiveRay(3, square, occupied)
            | negativeRay(6, square, occupied) | negativeRay(7, square, occupied)
    }

    @inline(__always)
    private static func positiveRay(_ direction: Int, _ square: Int, _ occupied: Bitboard) -> Bitboard {
        let attacks = rays[direction &* 64 &+ square]
        let blockers = attacks & occupied
        guard blockers != 0 else { return attacks }
        return attacks ^ rays[direction &* 64 &+ blockers.trailingZeroBitCount]
    }

    @inline(__always)
    private static func negativeRay(_ direction: Int, _ square: Int, _ occupied: Bitboard) -> Bitboard {
        let attacks = rays[direction &* 64 &+ square]
        let blockers = attacks & occupied
        guard blockers != 0 else { return attacks }
        return attacks ^ rays[direction &* 64 &+ (63 &- blockers.leadingZeroBitCount)]
    }
}
