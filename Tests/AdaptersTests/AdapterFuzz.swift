import Adapters
import BoardKit
import Foundation
import TestSupport

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

    /// Feeds at least `garbageBytes` random bytes (a million, or 64 per iteration asked for in
    /// `BOARDBRIDGE_FUZZ_ITERATIONS`) in chunks of 1…`maxGarbageRun`, each
    /// chunk followed by the frame `frame(generator)` returns (bytes and expected event).
    static func run<A: BoardAdapter>(
        _ adapter: inout A, seed: UInt64, garbageBytes: Int = FuzzBudget.garbageBytes(1_000_000),
        maxGarbageRun: Int = 120,
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
        outcome.events = feedInPieces(
            Data(stream), to: &adapter, using: &generator, bufferedByteCount: bufferedByteCount,
            largestBuffer: &outcome.largestBuffer)
        return outcome
    }

    /// Feeds `bytes` to `adapter` in pieces of 1…64 bytes (slices of `bytes`, as a
    /// transport hands them over) and returns the events. `largestBuffer` is raised to the
    /// most bytes the adapter held after any piece.
    static func feedInPieces<A: BoardAdapter>(
        _ bytes: Data, to adapter: inout A, using generator: inout SeededGenerator, bufferedByteCount: (A) -> Int,
        largestBuffer: inout Int
    ) -> [BoardEvent] {
        var events: [BoardEvent] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let cut = min(bytes.endIndex, offset + Int.random(in: 1...64, using: &generator))
            events += adapter.feed(bytes: bytes[offset..<cut])
            largestBuffer = max(largestBuffer, bufferedByteCount(adapter))
            offset = cut
        }
        return events
    }

    /// `count` random bytes, eight per draw (fast in debug builds).
    static func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            var word = generator.next()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return Data(bytes.prefix(count))
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
