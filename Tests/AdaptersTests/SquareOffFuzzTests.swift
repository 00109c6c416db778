import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

/// A million seeded random bytes with valid messages interleaved, for both dialects.
@Suite(.cpuBound) struct SquareOffFuzzTests {
    @Test(arguments: SquareOffAdapter.Variant.allCases)
    func millionRandomBytesNeverBreakTheFramer(variant: SquareOffAdapter.Variant) {
        var generator = SeededGenerator(seed: variant == .pro ? 0x5_0FF : 0x5_0FF_2)
        var adapter = SquareOffAdapter(variant: variant)
        var garbageBytes = 0
        var maxBuffered = 0
        var afterTerminator = 0
        var withoutTerminator = 0
        var decodedWithoutTerminator = 0
        var previousSquare: Square?
        while garbageBytes < FuzzBudget.garbageBytes(1_000_000) {
            let length = Int.random(in: 0...300, using: &generator)
            var chunk = AdapterFuzz.randomBytes(length, using: &generator)
            garbageBytes += length
            // A `*` ends whatever the garbage left open; without it the marker may be
            // swallowed by an open frame, which must stay rare.
            let terminated = Bool.random(using: &generator)
            if terminated { chunk.append(SquareOffWire.terminator) }
            var square = Square.allCases.randomElement(using: &generator) ?? .e2
            let lift = Bool.random(using: &generator)
            // Identical consecutive messages collapse into one event: never repeat a marker.
            if square == previousSquare { square = square == .a1 ? .b1 : .a1 }
            previousSquare = square
            chunk += SquareOffWire.frame(code: 0, body: square.name + (lift ? "u" : "d"))
            let marker: BoardEvent = lift ? .pieceLifted(square) : .piecePlaced(square, piece: nil)
            let events = AdapterFuzz.feedInPieces(
                chunk, to: &adapter, using: &generator, bufferedByteCount: { $0.bufferedByteCount },
                largestBuffer: &maxBuffered)
            if terminated {
                afterTerminator += 1
                #expect(events.last == marker, "marker lost after a terminator: \(events.suffix(3))")
            } else {
                withoutTerminator += 1
                if events.last == marker { decodedWithoutTerminator += 1 }
            }
        }
        #expect(maxBuffered <= SquareOffAdapter.bufferCapacity)
        #expect(afterTerminator > 1000)
        #expect(decodedWithoutTerminator * 100 >= withoutTerminator * 95)
    }
}
