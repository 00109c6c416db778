import Foundation
import TestSupport

/// The `A3` frames a real ChessUp 2 sent for a 90-ply game (reference §2.6; the capture
/// behind BoardKit's "G1 real-hardware full game"). Ply 78 (…g2g1) promoted to a queen
/// picked on the board: the board sent `97 04` right after its `A3`.
enum ChessUpRealGameFrames {
    /// The `A3` frame of each ply, in hex.
    static let moveFrames: [String] = [
        "a3 35 03 01 03 03",
        "a3 35 03 06 03 04",
        "a3 35 02 01 02 03",
        "a3 35 02 06 02 05",
        "a3 35 01 00 02 02",
        "a3 35 06 07 05 05",
        "a3 35 06 00 05 02",
        "a3 35 02 07 06 03",
        "a3 35 02 00 06 04",
        "a3 35 04 06 04 05",
        "a3 35 04 01 04 02",
        "a3 35 05 07 01 03",
        "a3 35 00 01 00 02",
        "a3 35 01 03 02 02",
        "a3 35 01 01 02 02",
        "a3 35 07 06 07 05",
        "a3 35 06 04 07 03",
        "a3 35 04 07 06 07",
        "a3 35 02 03 03 04",
        "a3 35 02 05 03 04",
        "a3 35 05 00 04 01",
        "a3 35 01 07 02 05",
        "a3 35 04 00 06 00",
        "a3 35 05 07 04 07",
        "a3 35 07 01 07 02",
        "a3 35 06 03 05 02",
        "a3 35 04 01 05 02",
        "a3 35 03 07 00 04",
        "a3 35 03 00 01 02",
        "a3 35 05 05 04 03",
        "a3 35 05 00 02 00",
        "a3 35 01 06 01 05",
        "a3 35 05 02 04 03",
        "a3 35 03 04 04 03",
        "a3 35 02 02 02 03",
        "a3 35 05 06 05 04",
        "a3 35 01 02 01 04",
        "a3 35 00 04 01 04",
        "a3 35 02 03 01 04",
        "a3 35 02 05 04 06",
        "a3 35 07 03 04 06",
        "a3 35 04 07 04 06",
        "a3 35 05 01 05 02",
        "a3 35 04 03 05 02",
        "a3 35 06 01 05 02",
        "a3 35 06 06 06 04",
        "a3 35 05 02 05 03",
        "a3 35 06 04 06 03",
        "a3 35 07 02 06 03",
        "a3 35 05 04 06 03",
        "a3 35 00 02 00 03",
        "a3 35 07 05 07 04",
        "a3 35 06 00 06 01",
        "a3 35 07 04 07 03",
        "a3 35 02 00 02 05",
        "a3 35 06 03 06 02",
        "a3 35 06 01 07 02",
        "a3 35 04 06 07 06",
        "a3 35 04 02 04 03",
        "a3 35 00 07 04 07",
        "a3 35 05 03 05 04",
        "a3 35 04 05 05 04",
        "a3 35 04 03 05 04",
        "a3 35 04 07 04 01",
        "a3 35 02 05 04 05",
        "a3 35 04 01 04 05",
        "a3 35 05 04 04 05",
        "a3 35 06 07 06 06",
        "a3 35 00 00 04 00",
        "a3 35 06 06 05 05",
        "a3 35 04 05 04 06",
        "a3 35 07 06 04 06",
        "a3 35 04 00 04 06",
        "a3 35 05 05 04 06",
        "a3 35 07 02 07 03",
        "a3 35 06 02 06 01",
        "a3 35 07 03 07 02",
        "a3 35 06 01 06 00",
        "a3 35 03 03 03 04",
        "a3 35 04 06 03 05",
        "a3 35 07 02 07 03",
        "a3 35 03 05 03 04",
        "a3 35 07 03 07 04",
        "a3 35 03 04 04 04",
        "a3 35 07 04 07 05",
        "a3 35 04 04 05 05",
        "a3 35 07 05 07 06",
        "a3 35 05 05 05 06",
        "a3 35 07 06 07 07",
        "a3 35 06 00 06 06",
    ]

    /// The index of the ply after which the board sent `97 04`.
    static let promotionPly = 77

    /// Every frame in wire order, the promotion pick spliced in.
    static var wireFrames: [Data] {
        var frames: [Data] = []
        for (index, hex) in moveFrames.enumerated() {
            frames.append(Data(hex: hex) ?? Data())
            if index == promotionPly { frames.append(Data([0x97, 0x04])) }
        }
        return frames
    }
}
