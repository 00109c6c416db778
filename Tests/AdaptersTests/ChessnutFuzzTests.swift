import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

@Suite(.cpuBound) struct ChessnutFuzzTests {
    @Test(arguments: [UInt64(11)])
    func survivesAMillionRandomBytes(seed: UInt64) {
        var adapter = ChessnutAdapter(model: .move)
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                let board = AdapterFuzz.randomBoard(using: &generator)
                var frame: [UInt8] = [0x01, 0x24] + ChessnutWire.boardBytes(board)
                frame += [UInt8.random(in: 0...255, using: &generator), 0x01, 0x00, 0x00]
                return (Data(frame), .pieces(board))
            })
        #expect(outcome.garbageBytes >= FuzzBudget.garbageBytes(1_000_000))
        #expect(outcome.largestBuffer <= ChessnutAdapter.maximumFrameLength + ChessnutAdapter.maximumGarbageChunk)
        // Without a sync marker or checksum, random bytes ending in a plausible board
        // header (`01 20…40`) can take the next frame's bytes as their board: a loss of
        // about one frame in a thousand is inherent to the protocol.
        let found = outcome.expectedFound
        #expect(found * 1000 >= outcome.expected.count * 995, "decoded \(found) of \(outcome.expected.count)")
        // The last frame always decodes once the stream is fed in one piece.
        #expect(adapter.feed(bytes: ChessnutAdapterTests.startFrame).contains(.pieces(.startingPosition)))
    }

    @Test func aFrameAfterGarbageDecodesWhenTheGarbageEndsCleanly() {
        // Garbage whose last two bytes cannot open a board header never costs a frame.
        var adapter = ChessnutAdapter()
        var generator = SeededGenerator(seed: 99)
        var found = 0
        for _ in 0..<FuzzBudget.iterations(2000) {
            var garbage = (0..<Int.random(in: 1...80, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            garbage += [0xEE, 0xEE]
            let board = AdapterFuzz.randomBoard(using: &generator)
            let frame = Data([0x01, 0x24] + ChessnutWire.boardBytes(board) + [0, 0, 0, 0])
            if adapter.feed(bytes: Data(garbage) + frame).contains(.pieces(board)) { found += 1 }
        }
        #expect(found == 2000)
    }
}
