import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

@Suite(.cpuBound) struct DGTFuzzTests {
    @Test(arguments: [UInt64(23)])
    func survivesAMillionRandomBytes(seed: UInt64) {
        var adapter = DGTAdapter()
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                if Bool.random(using: &generator) {
                    let board = AdapterFuzz.randomBoard(using: &generator)
                    return (Data(DGTWire.message(DGTWire.boardDump, DGTWire.fields(board))), .pieces(board))
                }
                let reading = BoardClockReading(
                    left: Int.random(in: 0...35999, using: &generator),
                    right: Int.random(in: 0...35999, using: &generator), running: nil,
                    leverUp: Bool.random(using: &generator) ? .left : .right)
                return (Data(DGTWire.message(DGTWire.clockTimes, DGTClockTimes.payload(reading))), .clock(reading))
            })
        #expect(outcome.garbageBytes >= FuzzBudget.garbageBytes(1_000_000))
        #expect(outcome.largestBuffer <= DGTAdapter.maximumFrameLength + DGTAdapter.maximumGarbageChunk)
        // The id byte is the only byte with bit 7 set: garbage never costs a message.
        #expect(outcome.expectedFound == outcome.expected.count)
    }

    @Test func randomFieldUpdatesKeepTheBoardTheBoardHas() {
        var adapter = DGTAdapter()
        var generator = SeededGenerator(seed: 5)
        var board = AdapterFuzz.randomBoard(using: &generator)
        _ = adapter.feed(bytes: Data(DGTWire.message(DGTWire.boardDump, DGTWire.fields(board))))
        for _ in 0..<FuzzBudget.iterations(5000) {
            let square = Square(rawValue: Int.random(in: 0..<64, using: &generator))!
            let piece = Bool.random(using: &generator) ? nil : AdapterFuzz.allPieces.randomElement(using: &generator)
            board[square] = piece
            let update = Data(
                DGTWire.message(DGTWire.fieldUpdate, [DGTWire.field(of: square), DGTWire.code(of: piece)]))
            #expect(adapter.feed(bytes: update) == [.pieces(board)])
        }
    }
}
