import Adapters
import BoardKit
import Foundation
import TestScheduling
import TestSupport
import Testing

/// Frames as a Certabo or Sentio sends them, built from tags per square.
enum CertaboFrames {
    /// A tag for the piece first standing on `square` (distinct per square, never 0).
    static func tag(_ square: Square, set: UInt64 = 1) -> PieceTag {
        set << 32 | UInt64(square.rawValue + 1) << 8 | 0x5A
    }

    /// The tags of the start position (each piece the tag of its start square).
    static var startTags: [PieceTag] {
        Square.allCases.map { BoardSnapshot.startingPosition[$0] == nil ? 0 : tag($0) }
    }

    /// The 320-number frame of 64 tags in ``Square`` order.
    static func frame(_ tags: [PieceTag], marker: Character? = "L") -> Data {
        var numbers: [UInt8] = []
        for index in 0..<64 { numbers += CertaboWire.bytes(of: tags[CertaboWire.square(index: index).rawValue]) }
        return Data(CertaboWire.frame(numbers, marker: marker))
    }

    /// The calibration learned from ``startTags``.
    static var startCalibration: PieceCalibration {
        var pieces: [PieceTag: Piece] = [:]
        for square in Square.allCases {
            if let piece = BoardSnapshot.startingPosition[square] { pieces[tag(square)] = piece }
        }
        return PieceCalibration(pieces: pieces)
    }
}

@Suite struct CertaboWireTests {
    /// picochess `eboard/certabo/command.py`: the calibration pattern lights ranks 8, 7, 2, 1
    /// and d6, d3 as `FF FF 08 00 00 08 FF FF` (byte 0 = rank 8, bit 0 = file a).
    @Test func theCalibrationPatternIsTheSquaresItLights() {
        let squares = Square.allCases.filter { [0, 1, 6, 7].contains($0.rank) } + [.d6, .d3]
        #expect(CertaboWire.leds(squares) == CertaboWire.calibrationLEDs)
        #expect(CertaboWire.leds(squares) == [0xFF, 0xFF, 0x08, 0x00, 0x00, 0x08, 0xFF, 0xFF])
        #expect(CertaboWire.litSquares(CertaboWire.calibrationLEDs) == Set(squares))
        #expect(CertaboWire.leds([.a1]) == [0, 0, 0, 0, 0, 0, 0, 0x01])
        #expect(CertaboWire.leds([.h8]) == [0x80, 0, 0, 0, 0, 0, 0, 0])
    }

    /// picochess `eboard/certabo/parser.py`: 8 numbers, rank 8 first, bit 7 = file a.
    @Test func occupancyFramesReadRankEightFirstFileAInBitSeven() {
        #expect(
            CertaboWire.occupancy(ranks: [255, 255, 0, 0, 0, 0, 255, 255]) == BoardSnapshot.startingPosition.occupancy)
        // 1. e4: e2 empties (rank 2 loses 0x08), e4 fills (rank 4 = 0x08).
        var afterE4 = BoardSnapshot.startingPosition.occupancy
        afterE4.remove(.e2)
        afterE4.insert(.e4)
        #expect(CertaboWire.occupancy(ranks: [255, 255, 0, 0, 8, 0, 247, 255]) == afterE4)
        #expect(CertaboWire.ranks(of: afterE4) == [255, 255, 0, 0, 8, 0, 247, 255])
        #expect(CertaboWire.square(index: 0) == .a8 && CertaboWire.square(index: 63) == .h1)
        #expect(CertaboWire.square(index: 8) == .a7 && CertaboWire.index(of: .e2) == 52)
    }

    @Test func tagsReadMostSignificantFirst() {
        #expect(CertaboWire.tag([1, 2, 3, 4, 5]) == 0x01_0203_0405)
        #expect(CertaboWire.bytes(of: 0x01_0203_0405) == [1, 2, 3, 4, 5])
    }

    @Test func calibrationTextRoundTrips() throws {
        let table = CertaboFrames.startCalibration
        let text = table.text
        #expect(text.split(separator: "\n").count == 32)
        #expect(PieceCalibration(text: text) == table)
        #expect(PieceCalibration(text: "0000000001 Q\n0000000001 q\n") == nil, "a tag given twice")
        #expect(PieceCalibration(text: "12 Q\n") == nil)
        #expect(PieceCalibration(text: "0000000001 X\n") == nil)
    }
}

@Suite struct SentioAdapterTests {
    @Test func theFirstFrameIsReadyAndOnlyChangesFollow() {
        var adapter = SentioAdapter()
        let start = Data(":255 255 0 0 0 0 255 255\r\n".utf8)
        #expect(adapter.feed(bytes: start) == [.ready, .occupancy(BoardSnapshot.startingPosition.occupancy)])
        #expect(adapter.feed(bytes: start).isEmpty, "an unchanged frame says nothing")
        var lifted = BoardSnapshot.startingPosition.occupancy
        lifted.remove(.e2)
        #expect(adapter.feed(bytes: Data(":255 255 0 0 0 0 247 255 L\r\n".utf8)) == [.occupancy(lifted)])
        #expect(adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == Data([0, 0, 0, 0, 0x10, 0, 0x10, 0]))
        #expect(adapter.encode(.clearIndications) == Data(count: 8))
        #expect(adapter.encode(.requestState) == nil)
    }

    @Test func aCertaboOnASentioLineIsReadAsOccupancy() {
        var adapter = SentioAdapter()
        #expect(
            adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags))
                == [.ready, .occupancy(BoardSnapshot.startingPosition.occupancy)])
    }

    @Test func linesThatAreNoFramesAreRawAndHarmless() {
        var adapter = SentioAdapter()
        #expect(adapter.feed(bytes: Data("hello\r\n".utf8)) == [.raw(Data("hello\r".utf8))])
        #expect(adapter.feed(bytes: Data(":1 2 3\r\n".utf8)) == [.raw(Data(":1 2 3\r".utf8))], "a count of 3")
        #expect(adapter.feed(bytes: Data(":256 0 0 0 0 0 0 0\r\n".utf8)).count == 1, "a number above 255")
        #expect(adapter.feed(bytes: Data("\r\n\r\n".utf8)).isEmpty)
        // A line far too long is skipped to its end, holding at most the bound.
        let long = Data(repeating: UInt8(ascii: "7"), count: 10_000)
        _ = adapter.feed(bytes: long)
        #expect(adapter.bufferedByteCount <= 2048)
        #expect(
            adapter.feed(bytes: Data("\n:255 255 0 0 0 0 255 255\r\n".utf8))
                == [.ready, .occupancy(BoardSnapshot.startingPosition.occupancy)])
    }
}

@Suite struct CertaboAdapterTests {
    /// An adapter calibrated from the start position, its first events drained.
    static func calibrated() -> CertaboAdapter {
        var adapter = CertaboAdapter(calibration: CertaboFrames.startCalibration)
        _ = adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags))
        return adapter
    }

    @Test func anUncalibratedBoardLearnsItsPiecesFromTheStartPosition() {
        var adapter = CertaboAdapter()
        #expect(
            adapter.handshakeCommands(isReconnect: false).map(\.command) == [.custom(Data(CertaboWire.calibrationLEDs))]
        )
        let frame = CertaboFrames.frame(CertaboFrames.startTags)
        #expect(adapter.feed(bytes: frame) == [.calibration(.needed)])
        for _ in 2..<CertaboCalibrator.minimumFrames { #expect(adapter.feed(bytes: frame).isEmpty) }
        let events = adapter.feed(bytes: frame)
        #expect(
            events == [
                .calibration(.learned(CertaboFrames.startCalibration)), .ready, .pieces(.startingPosition),
            ])
        #expect(adapter.takePendingResponses() == [Data(count: 8)], "the calibration lights go off")
        #expect(adapter.calibration == CertaboFrames.startCalibration)
        #expect(adapter.handshakeCommands(isReconnect: true).map(\.command) == [.clearIndications])
    }

    @Test func spareQueensOnD3AndD6AreLearnedToo() throws {
        var adapter = CertaboAdapter()
        var tags = CertaboFrames.startTags
        tags[Square.d3.rawValue] = 0x77_0000_0001
        tags[Square.d6.rawValue] = 0x77_0000_0002
        var learned: PieceCalibration?
        for _ in 0..<CertaboCalibrator.minimumFrames {
            for case .calibration(.learned(let table)) in adapter.feed(bytes: CertaboFrames.frame(tags)) {
                learned = table
            }
        }
        let table = try #require(learned)
        #expect(table.count == 34)
        #expect(table[0x77_0000_0001] == Piece(.white, .queen))
        #expect(table[0x77_0000_0002] == Piece(.black, .queen))
    }

    @Test func aTagMissedInSomeFramesIsStillLearnedByMajority() {
        var adapter = CertaboAdapter()
        var generator = SeededGenerator(seed: 11)
        var learned = false
        var frames = 0
        while !learned, frames < 40 {
            var tags = CertaboFrames.startTags
            // A low-gain reader: each frame, one or two pieces read as nothing, or as a
            // neighbour's tag.
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let square = Square(
                    rawValue: [0, 1, 6, 7].randomElement(using: &generator)! * 8
                        + Int.random(in: 0..<8, using: &generator))!
                tags[square.rawValue] = Bool.random(using: &generator) ? 0 : CertaboFrames.tag(.e1)
            }
            frames += 1
            for case .calibration(.learned(let table)) in adapter.feed(bytes: CertaboFrames.frame(tags)) {
                #expect(table == CertaboFrames.startCalibration)
                learned = true
            }
        }
        #expect(learned, "learned within \(frames) frames")
    }

    @Test func piecesNotOnTheStartPositionAreNotLearned() {
        var adapter = CertaboAdapter()
        var tags = CertaboFrames.startTags
        tags[Square.e4.rawValue] = tags[Square.e2.rawValue]
        tags[Square.e2.rawValue] = 0
        for _ in 0..<30 {
            let events = adapter.feed(bytes: CertaboFrames.frame(tags))
            #expect(!events.contains { if case .calibration(.learned) = $0 { true } else { false } })
            #expect(!events.contains(.ready))
        }
    }

    @Test func aTagThatNeverSettlesIsReportedAndLearnedOnceItDoes() {
        var adapter = CertaboAdapter()
        var unsettled: [[Square]] = []
        for index in 0..<CertaboCalibrator.maximumFrames {
            var tags = CertaboFrames.startTags
            tags[Square.g8.rawValue] = 0x55_0000_0000 + UInt64(index)  // a different read every frame
            for case .calibration(.unsettled(let squares)) in adapter.feed(bytes: CertaboFrames.frame(tags)) {
                unsettled.append(squares)
            }
        }
        #expect(unsettled == [[.g8]])
        var learned = false
        for _ in 0..<CertaboCalibrator.keptFrames {
            for case .calibration(.learned) in adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags)) {
                learned = true
            }
        }
        #expect(learned)
    }

    @Test func aMoveIsReportedOnceTwoFramesShowIt() {
        var adapter = Self.calibrated()
        var tags = CertaboFrames.startTags
        tags[Square.e4.rawValue] = tags[Square.e2.rawValue]
        tags[Square.e2.rawValue] = 0
        let moved = CertaboFrames.frame(tags)
        #expect(adapter.feed(bytes: moved).isEmpty, "one frame may be a misread")
        var after = BoardSnapshot.startingPosition
        after[.e4] = after[.e2]
        after[.e2] = nil
        #expect(adapter.feed(bytes: moved) == [.pieces(after)])
        #expect(adapter.feed(bytes: moved).isEmpty)
    }

    @Test func aSingleMisreadNeverChangesThePosition() {
        var adapter = Self.calibrated()
        var generator = SeededGenerator(seed: 3)
        let steady = CertaboFrames.frame(CertaboFrames.startTags)
        // Every event is the same position said again (``CertaboAdapter/keepAliveFrames``).
        var events: [BoardEvent] = []
        for _ in 0..<FuzzBudget.iterations(500) {
            var tags = CertaboFrames.startTags
            let square = Square(rawValue: Int.random(in: 0..<64, using: &generator))!
            tags[square.rawValue] = Bool.random(using: &generator) ? 0 : CertaboFrames.tag(.d1)
            events += adapter.feed(bytes: CertaboFrames.frame(tags))
            events += adapter.feed(bytes: steady)
            events += adapter.feed(bytes: steady)
        }
        #expect(events.allSatisfy { $0 == .pieces(.startingPosition) })
        #expect(events.count == FuzzBudget.iterations(500) * 3 / CertaboAdapter.keepAliveFrames)
    }

    @Test func anUnknownPieceIsNamedAndNoPositionIsGuessed() {
        var adapter = Self.calibrated()
        var tags = CertaboFrames.startTags
        tags[Square.e4.rawValue] = 0x99_0000_0001  // a piece from another set
        let stranger = CertaboFrames.frame(tags)
        #expect(adapter.feed(bytes: stranger).isEmpty)
        #expect(adapter.feed(bytes: stranger) == [.calibration(.unknownPieces([.e4]))])
        #expect(adapter.feed(bytes: stranger).isEmpty)
        let start = CertaboFrames.frame(CertaboFrames.startTags)
        #expect(adapter.feed(bytes: start).isEmpty)
        #expect(adapter.feed(bytes: start) == [.calibration(.unknownPieces([]))], "the position never changed")
    }

    /// A board left alone says its state about once a second, so it is not taken for a
    /// silent one; before its calibration it keeps asking for the start position.
    @Test func aBoardLeftAloneSaysItsStateAgain() {
        var adapter = Self.calibrated()
        let steady = CertaboFrames.frame(CertaboFrames.startTags)
        var events: [BoardEvent] = []
        for _ in 0..<(3 * CertaboAdapter.keepAliveFrames) { events += adapter.feed(bytes: steady) }
        #expect(events == Array(repeating: .pieces(.startingPosition), count: 3))
        var uncalibrated = CertaboAdapter()
        var asked: [BoardEvent] = []
        var tags = CertaboFrames.startTags
        tags[Square.e2.rawValue] = 0
        tags[Square.e4.rawValue] = CertaboFrames.tag(.e2)  // not the start position: nothing learned
        for _ in 0..<(2 * CertaboAdapter.keepAliveFrames + 1) {
            asked += uncalibrated.feed(bytes: CertaboFrames.frame(tags))
        }
        #expect(asked == Array(repeating: .calibration(.needed), count: 3))
        var sentio = SentioAdapter()
        var occupancy: [BoardEvent] = []
        for _ in 0..<(2 * CertaboAdapter.keepAliveFrames + 1) {
            occupancy += sentio.feed(bytes: Data(":255 255 0 0 0 0 255 255\r\n".utf8))
        }
        let start = BoardEvent.occupancy(BoardSnapshot.startingPosition.occupancy)
        #expect(occupancy == [.ready, start, start, start])
    }

    @Test func anOccupancyBoardIsRefusedOnce() {
        var adapter = CertaboAdapter(calibration: CertaboFrames.startCalibration)
        let frame = Data(":255 255 0 0 0 0 255 255\r\n".utf8)
        #expect(adapter.feed(bytes: frame) == [.handshakeFailed(reason: CertaboAdapter.occupancyOnlyReason)])
        #expect(adapter.feed(bytes: frame).isEmpty)
    }

    @Test func ledsFollowTheMarkerOfTheFrames() {
        var adapter = Self.calibrated()
        #expect(adapter.encode(.indicate(squares: [.a1, .h8], style: .hint)) == Data([0x80, 0, 0, 0, 0, 0, 0, 0x01]))
        _ = adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags, marker: "D"))
        #expect(adapter.ledMarker == UInt8(ascii: "D"))
        let rgb = adapter.encode(.indicate(squares: [.a1], style: .move))
        #expect(rgb == Data(CertaboWire.rgbFrame([.a1], colour: [0, 0, 0x40])))
        #expect(
            adapter.encode(.clearIndications) == Data([0xFF, 0x55] + [UInt8](repeating: 0, count: 243) + [0x0D, 0x0A]))
    }

    /// picochess's RGB translator (checked by running it): the four corners of a1 are LEDs
    /// 7, 8, 16, 17; h1 0, 1, 9, 10; a8 70, 71, 79, 80; h8 63, 64, 72, 73; e2 12, 13, 21, 22.
    @Test func rgbLEDsAreTheCornersOfTheSquareFromTheH1Edge() {
        #expect(CertaboWire.rgbLEDs(for: .a1) == [7, 8, 16, 17])
        #expect(CertaboWire.rgbLEDs(for: .h1) == [0, 1, 9, 10])
        #expect(CertaboWire.rgbLEDs(for: .a8) == [70, 71, 79, 80])
        #expect(CertaboWire.rgbLEDs(for: .h8) == [63, 64, 72, 73])
        #expect(CertaboWire.rgbLEDs(for: .e2) == [12, 13, 21, 22])
        let frame = CertaboWire.rgbFrame([.e2], colour: [0, 0, 0x40])
        #expect(frame.count == CertaboWire.rgbFrameLength && frame.count == 247)
        #expect(Array(frame[(2 + 3 * 12)..<(2 + 3 * 12 + 3)]) == [0, 0, 0x40])
        #expect(frame.enumerated().filter { $0.element != 0 }.count == 2 + 4 + 2)
        #expect(CertaboWire.rgbLitSquares(frame) == [.e2])
        for square in Square.allCases {
            #expect(CertaboWire.rgbLitSquares(CertaboWire.rgbFrame([square], colour: [1, 2, 3])) == [square])
        }
    }

    /// An RGB board (`D`) still being calibrated gets the calibration squares as an RGB write
    /// once it said what it is, and the LEDs off as one when the pieces are learned.
    @Test func anRGBBoardGetsItsCalibrationLightsAsRGB() {
        var adapter = CertaboAdapter()
        _ = adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags, marker: "D"))
        let calibrationSquares = CertaboWire.litSquares(CertaboWire.calibrationLEDs)
        #expect(
            adapter.takePendingResponses()
                == [Data(CertaboWire.rgbFrame(calibrationSquares, colour: CertaboWire.rgbColour(for: .highlight)))])
        for _ in 0..<10 { _ = adapter.feed(bytes: CertaboFrames.frame(CertaboFrames.startTags, marker: "D")) }
        #expect(adapter.calibration?.count == 32)
        #expect(adapter.takePendingResponses() == [adapter.encode(.clearIndications)!])
    }
}

@Suite(.cpuBound) struct CertaboFuzzTests {
    @Test(arguments: [UInt64(41)])
    func sentioSurvivesAMillionRandomBytes(seed: UInt64) {
        var adapter = SentioAdapter()
        var last: OccupancyMap?
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                // A fresh line, then a frame that differs from the one before.
                var map = OccupancyMap(bits: generator.next())
                if map == last { map.bits ^= 1 }
                last = map
                return (Data([0x0A] + CertaboWire.frame(CertaboWire.ranks(of: map))), .occupancy(map))
            })
        #expect(outcome.largestBuffer <= 2048)
        // A frame after a line end always survives the garbage before it, unless the
        // garbage itself happened to be the same occupancy (then nothing changed to report).
        #expect(outcome.expectedFound >= outcome.expected.count * 99 / 100)
    }

    @Test func splitFeedsDecodeAsTheWholeStream() {
        var generator = SeededGenerator(seed: 17)
        var stream = Data()
        var tags = CertaboFrames.startTags
        for _ in 0..<60 {
            let from = Square(rawValue: Int.random(in: 0..<64, using: &generator))!
            let to = Square(rawValue: Int.random(in: 0..<64, using: &generator))!
            if tags[from.rawValue] != 0, tags[to.rawValue] == 0 { tags.swapAt(from.rawValue, to.rawValue) }
            stream += CertaboFrames.frame(tags)
            stream += CertaboFrames.frame(tags)
        }
        var whole = CertaboAdapterTests.calibrated()
        let expected = whole.feed(bytes: stream)
        #expect(expected.count >= 10)
        for round in 0..<FuzzBudget.iterations(20) {
            var split = CertaboAdapterTests.calibrated()
            var largest = 0
            let events = AdapterFuzz.feedInPieces(
                stream, to: &split, using: &generator, bufferedByteCount: { $0.bufferedByteCount },
                largestBuffer: &largest)
            #expect(events == expected, "round \(round)")
        }
    }
}
