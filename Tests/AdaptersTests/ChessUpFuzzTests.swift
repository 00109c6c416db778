import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

/// A million seeded random bytes with valid move frames interleaved.
@Suite(.cpuBound) struct ChessUpFuzzTests {
    /// Moves cycled as markers; more than the retransmission window, so none is a repeat.
    static let markers: [BoardMove] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"].compactMap {
        BoardMove(uci: $0)
    }

    /// Ten bytes that end any frame candidate: `FF` is no opcode and invalid inside every
    /// frame but the `FD FD` bitmap, which is at most ten bytes long.
    static let resync = Data(repeating: 0xFF, count: 10)

    @Test func millionRandomBytesNeverBreakTheFramer() {
        var generator = SeededGenerator(seed: 0xC4E5_5_0F)
        var adapter = ChessUpAdapter()
        var garbageBytes = 0
        var markerIndex = 0
        var expected: [BoardMove] = []
        var decodedWithoutResync = 0
        var markersWithoutResync = 0
        var reported: [BoardMove] = []
        var maxBuffered = 0
        while garbageBytes < FuzzBudget.garbageBytes(1_000_000) {
            let length = Int.random(in: 0...300, using: &generator)
            var chunk = AdapterFuzz.randomBytes(length, using: &generator)
            garbageBytes += length
            let withResync = Bool.random(using: &generator)
            if withResync { chunk += Self.resync }
            let marker = Self.markers[markerIndex % Self.markers.count]
            markerIndex += 1
            chunk += ChessUpWire.moveFrame(from: marker.from, to: marker.to)
            let events = AdapterFuzz.feedInPieces(
                chunk, to: &adapter, using: &generator, bufferedByteCount: { $0.bufferedByteCount },
                largestBuffer: &maxBuffered)
            _ = adapter.takePendingResponses()
            let moves = events.compactMap { if case .moveReported(let move) = $0 { move } else { nil } }
            reported += moves
            if withResync {
                expected.append(marker)
                #expect(moves.last == marker, "marker \(markerIndex) after resync")
            } else {
                markersWithoutResync += 1
                if moves.last == marker { decodedWithoutResync += 1 }
            }
        }
        #expect(maxBuffered <= ChessUpAdapter.bufferCapacity)
        // Garbage never turned into a move: every reported move is a marker.
        #expect(reported.allSatisfy { Self.markers.contains($0) })
        #expect(reported.count >= expected.count)
        // Without the resync bytes a marker can be swallowed by a false frame start that
        // garbage left open (an `FD FD` bitmap takes any 8 bytes); that must stay rare.
        #expect(decodedWithoutResync * 100 >= markersWithoutResync * 95)
    }

    @Test func stateFramesSurviveGarbage() throws {
        var generator = SeededGenerator(seed: 99)
        var adapter = ChessUpAdapter()
        let state = ChessUpState(
            pieces: .startingPosition, sideToMove: .white, castlingRights: [true, true, true, true],
            enPassant: nil, halfmoveClock: 0, fullmoveNumber: 1)
        var count = 0
        for round in 0..<FuzzBudget.iterations(200) {
            var chunk = AdapterFuzz.randomBytes(Int.random(in: 0...100, using: &generator), using: &generator)
            chunk += Self.resync
            var variant = state
            variant.fullmoveNumber = UInt8(round % 200)
            chunk += variant.frame
            for event in adapter.feed(bytes: chunk) {
                if case .pieces(let pieces) = event, pieces == .startingPosition { count += 1 }
            }
        }
        #expect(count == 200)
    }
}
