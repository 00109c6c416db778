import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

/// Byte vectors from picochess (`eboard/ichessone`: `tests/test_ichessone_parser.py`,
/// `tests/test_ichessone_command.py`), DGT ChessConnect and BearChess.
@Suite struct IChessOneAdapterTests {
    /// picochess's start-position fixture: `=p`, then rank 8 `a8 9b c9 8a`, rank 7 all
    /// `7`, four empty ranks, rank 2 all `1`, rank 1 `42 35 63 24`.
    static let startFrame = Data(
        hex: "3d70 a89bc98a 77777777 00000000 00000000 00000000 00000000 11111111 42356324")!

    @Test func thePicochessStartPositionIsTheStartPosition() {
        var adapter = IChessOneAdapter()
        #expect(adapter.feed(bytes: Self.startFrame) == [.ready, .pieces(.startingPosition)])
        #expect(IChessOneWire.positionFrame(.startingPosition) == Array(Self.startFrame))
    }

    /// The nibbles run a8, b8 … h8, a7 … h1, high nibble first: byte 0 = `60` is a white king
    /// on a8, byte 31 = `06` one on h1 (checked against picochess's parser).
    @Test func squaresRunFromA8HighNibbleFirst() {
        var payload = [UInt8](repeating: 0, count: 32)
        payload[0] = 0x60
        payload[31] = 0x0C
        var expected = BoardSnapshot()
        expected[.a8] = Piece(.white, .king)
        expected[.h1] = Piece(.black, .king)
        #expect(IChessOneWire.board(payload: payload) == expected)
        for code in UInt8(1)...12 {
            #expect(IChessOneWire.code(of: IChessOneWire.piece(code: code)) == code)
        }
    }

    /// picochess: `3d620164` is 100 % and charging.
    @Test func batteryRepliesReadStatusThenPercent() {
        var adapter = IChessOneAdapter()
        #expect(adapter.feed(bytes: Data(hex: "3d620164")!) == [.battery(percent: 100, charging: true)])
        #expect(adapter.feed(bytes: Data(hex: "3d620032")!) == [.battery(percent: 50, charging: false)])
        // A status neither source names is not read as either.
        #expect(adapter.feed(bytes: Data(hex: "3d620732")!) == [.battery(percent: 50, charging: nil)])
    }

    @Test func theHandshakeTurnsOnReportsAndAsksForPositionAndBattery() {
        let adapter = IChessOneAdapter()
        for isReconnect in [false, true] {
            let steps = adapter.handshakeCommands(isReconnect: isReconnect)
            #expect(steps.map(\.command) == [.startSession, .requestState, .requestBattery])
            #expect(steps.dropFirst().allSatisfy { $0.delayBefore >= IChessOneAdapter.writeFloor })
        }
        #expect(adapter.encode(.startSession) == Data("CPIRQ".utf8))
        #expect(adapter.encode(.requestState) == Data("RP".utf8))
        #expect(adapter.encode(.requestBattery) == Data("RB".utf8))
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == nil)
        #expect(adapter.encode(.loadPosition(fen: "8/8/8/8/8/8/8/8 w - - 0 1")) == nil)
    }

    /// picochess: c3 lights `00 00 00 00 00 04 00 00` (byte 0 = rank 8, bit 0 = file a), e2 and
    /// e4 `00 00 00 00 10 00 10 00`; all off is `45 4C 00 0F 00` + 8 × `00` + `00 01 FF`.
    @Test func ledsLightRankEightFirstFileAInBitZero() {
        let adapter = IChessOneAdapter()
        let c3 = adapter.encode(.indicate(squares: [.c3], style: .move))!
        #expect(c3.count == IChessOneWire.ledCommandLength)
        #expect(Array(c3[5..<13]) == [0, 0, 0, 0, 0, 0x04, 0, 0])
        #expect(Array(c3.prefix(5)) == [0x45, 0x4C, 0xF0, 0xF0, 0x00])
        #expect(Array(c3.suffix(3)) == [0x00, 0x01, 0xFF])
        let e2e4 = adapter.encode(.indicate(squares: [.e2, .e4], style: .alert))!
        #expect(Array(e2e4[5..<13]) == [0, 0, 0, 0, 0x10, 0, 0x10, 0])
        #expect(e2e4[2] == 0xFF && e2e4[3] == 0x00)
        #expect(adapter.encode(.clearIndications) == Data(hex: "454c000f00 0000000000000000 0001ff"))
    }

    @Test func anUnchangedPositionIsStillAnEvent() {
        var adapter = IChessOneAdapter()
        _ = adapter.feed(bytes: Self.startFrame)
        // The answer to a request (the health watch's) must reach the bridge.
        #expect(adapter.feed(bytes: Self.startFrame) == [.pieces(.startingPosition)])
    }

    @Test func aReplySplitAcrossNotificationsOrJoinedWithOthersIsRead() {
        var adapter = IChessOneAdapter()
        let stream = Self.startFrame + Data(hex: "3d620050")! + Self.startFrame
        #expect(adapter.feed(bytes: stream.prefix(20)) == [])
        #expect(adapter.bufferedByteCount == 20)
        #expect(
            adapter.feed(bytes: stream.dropFirst(20))
                == [
                    .ready, .pieces(.startingPosition), .battery(percent: 80, charging: false),
                    .pieces(.startingPosition),
                ])
        #expect(adapter.bufferedByteCount == 0)
    }

    @Test func bytesThatStartNoReplyAreRawAndTheNextReplyIsRead() {
        var adapter = IChessOneAdapter()
        // A code of 13 (`D`) inside a position, a battery over 100 %, then a good frame.
        var bad = Array(Self.startFrame)
        bad[10] = 0x1D
        let events = adapter.feed(bytes: Data(bad) + Data(hex: "3d6201ff")! + Self.startFrame)
        #expect(events.last == .pieces(.startingPosition))
        #expect(!events.contains { if case .pieces(let board) = $0 { board != .startingPosition } else { false } })
        #expect(events.contains { if case .raw = $0 { true } else { false } })
        #expect(!events.contains { if case .battery = $0 { true } else { false } })
        // A reply of a kind nobody documents is surfaced whole, not guessed at.
        #expect(adapter.feed(bytes: Data("=h".utf8)) == [.raw(Data("=h".utf8))])
    }
}

@Suite(.cpuBound) struct IChessOneFuzzTests {
    static func randomBoard(_ generator: inout SeededGenerator) -> BoardSnapshot {
        var board = BoardSnapshot()
        for square in Square.allCases where Int.random(in: 0..<3, using: &generator) == 0 {
            board[square] = IChessOneWire.piece(code: UInt8.random(in: 1...12, using: &generator))
        }
        return board
    }

    @Test(arguments: [UInt64(0x1C1)])
    func survivesAMillionRandomBytes(seed: UInt64) {
        var adapter = IChessOneAdapter()
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                let board = Self.randomBoard(&generator)
                return (Data(IChessOneWire.positionFrame(board)), .pieces(board))
            })
        #expect(outcome.largestBuffer <= IChessOneWire.positionFrameLength + IChessOneAdapter.maximumGarbageChunk)
        // Garbage ending in `=` and a letter can swallow the frame after it; nearly all survive.
        #expect(outcome.expectedFound >= outcome.expected.count * 95 / 100)
    }

    @Test func splitFeedsDecodeAsTheWholeStream() {
        var generator = SeededGenerator(seed: 0x1C2)
        var stream = Data()
        for index in 0..<80 {
            stream += IChessOneWire.positionFrame(Self.randomBoard(&generator))
            if index % 5 == 0 { stream += IChessOneWire.batteryFrame(percent: index, charging: index % 2 == 0) }
            if index % 7 == 0 { stream += Data([0x00, 0x3D, 0x41, 0xFF]) }
        }
        var whole = IChessOneAdapter()
        let expected = whole.feed(bytes: stream)
        #expect(expected.count >= 90)
        for round in 0..<FuzzBudget.iterations(20) {
            var split = IChessOneAdapter()
            var largest = 0
            let events = AdapterFuzz.feedInPieces(
                stream, to: &split, using: &generator, bufferedByteCount: { $0.bufferedByteCount },
                largestBuffer: &largest)
            #expect(events == expected, "round \(round)")
        }
    }
}
