public import BoardKit

/// Learns which RFID tag is which piece from frames of a Certabo board whose pieces stand
/// on the start position (and a spare queen of each colour on d6 and d3 where there is
/// one), as Certabo's own software and picochess do: square by square, by a strict
/// majority of the frames seen.
///
/// A frame counts only when the start position's 32 squares hold a tag (all but
/// ``missedSquares`` of them: a low-gain reader misses a piece now and then) and no square
/// outside them and the spare-queen squares does; any other frame starts the count afresh
/// (the pieces are still being set up). Once ``minimumFrames`` frames agree on every
/// square, with 32 (or 33, 34) different tags, the table is learned. A window of
/// ``maximumFrames`` that cannot settle is reported and cut back to its newest
/// ``keptFrames``, so a tag that reads badly at first still gets learned.
public struct CertaboCalibrator: Hashable, Sendable {
    /// The fewest frames a calibration is decided on.
    public static let minimumFrames = 7
    /// The most frames held.
    public static let maximumFrames = 15
    /// The frames kept after a window that could not settle.
    public static let keptFrames = 10

    /// The squares learned and the piece each stands for.
    static let learnedSquares: [(Square, Piece)] =
        Square.allCases.compactMap { square in BoardSnapshot.startingPosition[square].map { (square, $0) } }
        + CertaboWire.spareQueenSquares.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }

    /// The start squares a counted frame may read empty (a low-gain reader misses a piece now
    /// and then; the majority still names it).
    public static let missedSquares = 2

    private static let startSquares = BoardSnapshot.startingPosition.occupancy
    private static let allowed = OccupancyMap(
        bits: startSquares.bits | OccupancyMap(CertaboWire.spareQueenSquares.keys).bits)

    private var frames: [[PieceTag]] = []

    /// A calibrator that has seen nothing.
    public init() {}

    /// How many frames of the start position are held.
    public var frameCount: Int { frames.count }

    /// What one frame of 64 tags (in ``Square`` order) decided.
    public enum Outcome: Hashable, Sendable {
        /// Not yet decided (too few frames, or pieces still being set up).
        case waiting
        /// The table is learned.
        case learned(PieceCalibration)
        /// The window is full and these squares never settled (or showed one tag twice).
        case unsettled([Square])
    }

    /// Takes one frame: 64 tags, in ``Square`` order.
    public mutating func observe(_ tags: [PieceTag]) -> Outcome {
        var occupied = OccupancyMap()
        for square in Square.allCases where tags[square.rawValue] != 0 { occupied.insert(square) }
        let missed = (Self.startSquares.bits & ~occupied.bits).nonzeroBitCount
        guard missed <= Self.missedSquares, occupied.bits & ~Self.allowed.bits == 0 else {
            frames.removeAll()
            return .waiting
        }
        frames.append(tags)
        guard frames.count >= Self.minimumFrames else { return .waiting }
        var pieces: [PieceTag: Piece] = [:]
        var unsettled: [Square] = []
        for (square, piece) in Self.learnedSquares {
            let isSpare = CertaboWire.spareQueenSquares[square] != nil
            guard let tag = majority(at: square) else {
                unsettled.append(square)
                continue
            }
            if tag == 0 {
                if !isSpare { unsettled.append(square) }
            } else if pieces.updateValue(piece, forKey: tag) != nil {
                unsettled.append(square)
            }
        }
        if unsettled.isEmpty {
            frames.removeAll()
            return .learned(PieceCalibration(pieces: pieces))
        }
        guard frames.count >= Self.maximumFrames else { return .waiting }
        frames.removeFirst(frames.count - Self.keptFrames)
        return .unsettled(unsettled.sorted())
    }

    /// The tag more than half the frames show on `square`, if one does.
    private func majority(at square: Square) -> PieceTag? {
        var counts: [PieceTag: Int] = [:]
        for frame in frames { counts[frame[square.rawValue], default: 0] += 1 }
        return counts.first { $0.value * 2 > frames.count }?.key
    }
}
