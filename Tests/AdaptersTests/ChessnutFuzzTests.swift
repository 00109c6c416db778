import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// A seeded fuzz driver shared by the adapter fuzz suites: random garbage with valid
/// frames interleaved, fed in random splits.
enum AdapterFuzz {
    /// The outcome of one run.
    struct Outcome {
        /// Every event emitted.
        var events: [BoardEvent] = []
        /// The largest ``bufferedByteCount`` seen after a feed.
        var largestBuffer = 0
        /// How many random bytes were fed.
        var garbageBytes = 0
        /// The events the valid frames should produce, in order.
        var expected: [BoardEvent] = []

        /// How many of ``expected`` appear in ``events`` in order; an expected event that
        /// never shows up is skipped without losing the ones after it.
        var expectedFound: Int {
            var found = 0
            var position = 0
            for wanted in expected {
                guard let hit = events[position...].firstIndex(of: wanted) else { continue }
                found += 1
                position = hit + 1
            }
            return found
        }
    }

    /// Feeds at least `garbageBytes` random bytes in chunks of 1…`maxGarbageRun`, each
    /// chunk followed by the frame `frame(generator)` returns (bytes and expected event).
    static func run<A: BoardAdapter>(
        _ adapter: inout A, seed: UInt64, garbageBytes: Int = 1_000_000, maxGarbageRun: Int = 120,
        bufferedByteCount: (A) -> Int, frame: (inout SeededGenerator) -> (Data, BoardEvent)
    ) -> Outcome {
        var generator = SeededGenerator(seed: seed)
        var outcome = Outcome()
        var stream: [UInt8] = []
        stream.reserveCapacity(garbageBytes * 3 / 2)
        while outcome.garbageBytes < garbageBytes {
            let run = Int.random(in: 1...maxGarbageRun, using: &generator)
            var bits = generator.next()
            for offset in 0..<run {
                if offset % 8 == 0 { bits = generator.next() }
                stream.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(offset % 8))))
            }
            outcome.garbageBytes += run
            let (bytes, event) = frame(&generator)
            stream += bytes
            outcome.expected.append(event)
        }
        var index = 0
        while index < stream.count {
            let length = min(Int.random(in: 1...64, using: &generator), stream.count - index)
            outcome.events += adapter.feed(bytes: Data(stream[index..<(index + length)]))
            outcome.largestBuffer = max(outcome.largestBuffer, bufferedByteCount(adapter))
            index += length
        }
        return outcome
    }

    /// A random position: each square empty or holding a random piece.
    static func randomBoard(using generator: inout SeededGenerator) -> BoardSnapshot {
        var squares = [Piece?](repeating: nil, count: 64)
        let occupied = generator.next()
        var kinds = generator.next()
        for index in 0..<64 where occupied & (1 << UInt64(index)) != 0 {
            if kinds == 0 { kinds = generator.next() }
            squares[index] = allPieces[Int(kinds % 12)]
            kinds /= 12
        }
        return BoardSnapshot(squares: squares)
    }

    static let allPieces = PieceColor.allCases.flatMap { color in PieceKind.allCases.map { Piece(color, $0) } }
}

@Suite struct ChessnutFuzzTests {
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
        #expect(outcome.garbageBytes >= 1_000_000)
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
        for _ in 0..<2000 {
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
