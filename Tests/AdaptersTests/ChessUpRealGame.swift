import BoardKit
import Foundation
import TestSupport

/// The 90-ply game a real ChessUp 2 reported over BLE (reference §2.6: the capture behind
/// the BoardKit "G1 real-hardware full game" vectors): every `A3` frame in wire order with
/// the move it reports. Ply 78 (…g2g1) is a promotion, followed by the pick `97 04` (queen).
enum ChessUpRealGame {
    /// (frame, move) for each ply.
    static let plies: [(hex: String, uci: String)] = [
        ("a3 35 03 01 03 03", "d2d4"),
        ("a3 35 03 06 03 04", "d7d5"),
        ("a3 35 02 01 02 03", "c2c4"),
        ("a3 35 02 06 02 05", "c7c6"),
        ("a3 35 01 00 02 02", "b1c3"),
        ("a3 35 06 07 05 05", "g8f6"),
        ("a3 35 06 00 05 02", "g1f3"),
        ("a3 35 02 07 06 03", "c8g4"),
        ("a3 35 02 00 06 04", "c1g5"),
        ("a3 35 04 06 04 05", "e7e6"),
        ("a3 35 04 01 04 02", "e2e3"),
        ("a3 35 05 07 01 03", "f8b4"),
        ("a3 35 00 01 00 02", "a2a3"),
        ("a3 35 01 03 02 02", "b4c3"),
        ("a3 35 01 01 02 02", "b2c3"),
        ("a3 35 07 06 07 05", "h7h6"),
        ("a3 35 06 04 07 03", "g5h4"),
        ("a3 35 04 07 06 07", "e8g8"),
        ("a3 35 02 03 03 04", "c4d5"),
        ("a3 35 02 05 03 04", "c6d5"),
        ("a3 35 05 00 04 01", "f1e2"),
        ("a3 35 01 07 02 05", "b8c6"),
        ("a3 35 04 00 06 00", "e1g1"),
        ("a3 35 05 07 04 07", "f8e8"),
        ("a3 35 07 01 07 02", "h2h3"),
        ("a3 35 06 03 05 02", "g4f3"),
        ("a3 35 04 01 05 02", "e2f3"),
        ("a3 35 03 07 00 04", "d8a5"),
        ("a3 35 03 00 01 02", "d1b3"),
        ("a3 35 05 05 04 03", "f6e4"),
        ("a3 35 05 00 02 00", "f1c1"),
        ("a3 35 01 06 01 05", "b7b6"),
        ("a3 35 05 02 04 03", "f3e4"),
        ("a3 35 03 04 04 03", "d5e4"),
        ("a3 35 02 02 02 03", "c3c4"),
        ("a3 35 05 06 05 04", "f7f5"),
        ("a3 35 01 02 01 04", "b3b5"),
        ("a3 35 00 04 01 04", "a5b5"),
        ("a3 35 02 03 01 04", "c4b5"),
        ("a3 35 02 05 04 06", "c6e7"),
        ("a3 35 07 03 04 06", "h4e7"),
        ("a3 35 04 07 04 06", "e8e7"),
        ("a3 35 05 01 05 02", "f2f3"),
        ("a3 35 04 03 05 02", "e4f3"),
        ("a3 35 06 01 05 02", "g2f3"),
        ("a3 35 06 06 06 04", "g7g5"),
        ("a3 35 05 02 05 03", "f3f4"),
        ("a3 35 06 04 06 03", "g5g4"),
        ("a3 35 07 02 06 03", "h3g4"),
        ("a3 35 05 04 06 03", "f5g4"),
        ("a3 35 00 02 00 03", "a3a4"),
        ("a3 35 07 05 07 04", "h6h5"),
        ("a3 35 06 00 06 01", "g1g2"),
        ("a3 35 07 04 07 03", "h5h4"),
        ("a3 35 02 00 02 05", "c1c6"),
        ("a3 35 06 03 06 02", "g4g3"),
        ("a3 35 06 01 07 02", "g2h3"),
        ("a3 35 04 06 07 06", "e7h7"),
        ("a3 35 04 02 04 03", "e3e4"),
        ("a3 35 00 07 04 07", "a8e8"),
        ("a3 35 05 03 05 04", "f4f5"),
        ("a3 35 04 05 05 04", "e6f5"),
        ("a3 35 04 03 05 04", "e4f5"),
        ("a3 35 04 07 04 01", "e8e2"),
        ("a3 35 02 05 04 05", "c6e6"),
        ("a3 35 04 01 04 05", "e2e6"),
        ("a3 35 05 04 04 05", "f5e6"),
        ("a3 35 06 07 06 06", "g8g7"),
        ("a3 35 00 00 04 00", "a1e1"),
        ("a3 35 06 06 05 05", "g7f6"),
        ("a3 35 04 05 04 06", "e6e7"),
        ("a3 35 07 06 04 06", "h7e7"),
        ("a3 35 04 00 04 06", "e1e7"),
        ("a3 35 05 05 04 06", "f6e7"),
        ("a3 35 07 02 07 03", "h3h4"),
        ("a3 35 06 02 06 01", "g3g2"),
        ("a3 35 07 03 07 02", "h4h3"),
        ("a3 35 06 01 06 00", "g2g1q"),
        ("a3 35 03 03 03 04", "d4d5"),
        ("a3 35 04 06 03 05", "e7d6"),
        ("a3 35 07 02 07 03", "h3h4"),
        ("a3 35 03 05 03 04", "d6d5"),
        ("a3 35 07 03 07 04", "h4h5"),
        ("a3 35 03 04 04 04", "d5e5"),
        ("a3 35 07 04 07 05", "h5h6"),
        ("a3 35 04 04 05 05", "e5f6"),
        ("a3 35 07 05 07 06", "h6h7"),
        ("a3 35 05 05 05 06", "f6f7"),
        ("a3 35 07 06 07 07", "h7h8"),
        ("a3 35 06 00 06 06", "g1g7"),
    ]

    /// The index of the ply after which the board sent `97 04`.
    static let promotionPly = 77

    /// The moves, as the board's frames report them (the promotion piece included).
    static var moves: [BoardMove] { plies.compactMap { BoardMove(uci: $0.uci) } }

    /// Every frame of the game in order, the promotion pick spliced in.
    static var wireFrames: [Data] {
        var frames: [Data] = []
        for (index, ply) in plies.enumerated() {
            frames.append(Data(hex: ply.hex) ?? Data())
            if index == promotionPly { frames.append(Data([0x97, 0x04])) }
        }
        return frames
    }
}
