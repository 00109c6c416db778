import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Golden vectors of reference §2 (ChessUp) and the adapter's framing, ack and dedup rules.
@Suite struct ChessUpAdapterTests {
    private func bytes(_ hex: String) throws -> Data { try #require(Data(hex: hex)) }

    /// The events `hex` produces, checked to be the same for every way of splitting it.
    private func decode(_ hex: String, adapter: ChessUpAdapter = ChessUpAdapter()) throws -> [BoardEvent] {
        let result = FramingVerifier.verify(adapter, try bytes(hex))
        #expect(result.mismatch == nil, "\(result.mismatch ?? "")")
        return result.events
    }

    /// The 73-byte `67` frame after 1.e4 e5 (§2.6).
    static let stateAfterE4E5 =
        "67 01 02 03 04 05 03 02 01  00 00 00 00 40 00 00 00  40 40 40 40 40 40 40 40"
        + " 40 40 40 40 00 40 40 40  40 40 40 40 08 40 40 40  40 40 40 40 40 40 40 40"
        + " 08 08 08 08 40 08 08 08  09 0A 0B 0C 0D 0B 0A 09  00 01 01 01 01 2C 00 02"

    @Test func profileIdentifiesChessUpByName() {
        let profile = ChessUpAdapter.profile
        #expect(profile.family == .chessUp)
        #expect(profile.serviceUUID == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(profile.notifyCharacteristicUUIDs == ["6e400003-b5a3-f393-e0a9-e50e24dcca9e"])
        #expect(profile.writeCharacteristicUUID == "6e400002-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(profile.writeType == .withResponse)
        #expect(profile.matches(name: "ChessUp", serviceUUIDs: []))
        #expect(profile.matches(name: "chessup 2", serviceUUIDs: []))
        #expect(!profile.matches(name: "Squareoff Pro", serviceUUIDs: ["6e400001-b5a3-f393-e0a9-e50e24dcca9e"]))
    }

    @Test(arguments: [
        ("A3 35 03 01 03 03", "d2d4"), ("A3 35 04 07 06 07", "e8g8"), ("A3 35 04 00 06 00", "e1g1"),
        ("A3 35 06 07 05 05", "g8f6"), ("A3 35 02 01 02 03", "c2c4"),
    ])
    func decodesHardwareMoveFrames(hex: String, uci: String) throws {
        var adapter = ChessUpAdapter()
        let events = adapter.feed(bytes: try bytes(hex))
        #expect(events == [.moveReported(try #require(BoardMove(uci: uci)))])
        #expect(adapter.takePendingResponses() == [Data([0x21])])
        #expect(adapter.takePendingResponses().isEmpty, "draining is destructive")
        #expect(try decode(hex) == events)
    }

    @Test func decodesBoardSidePromotionWithBothAcks() throws {
        var adapter = ChessUpAdapter()
        let events = adapter.feed(bytes: try bytes("A3 35 06 01 06 00 97 04"))
        #expect(events == [.moveReported(BoardMove(from: .g2, to: .g1)), .promotionPicked(.queen)])
        #expect(adapter.takePendingResponses() == [Data([0x21]), Data([0x23])])
    }

    @Test(arguments: [(UInt8(1), PieceKind.rook), (2, .knight), (3, .bishop), (4, .queen)])
    func decodesEveryPromotionPick(code: UInt8, kind: PieceKind) throws {
        var adapter = ChessUpAdapter()
        _ = adapter.feed(bytes: try bytes("A3 35 00 06 00 07"))
        #expect(adapter.feed(bytes: Data([0x97, code])) == [.promotionPicked(kind)])
    }

    @Test func encodesSessionOpenAndStateRequest() throws {
        let adapter = ChessUpAdapter()
        #expect(adapter.encode(.startSession) == (try bytes("B9 05 00 01 00 00 01 00 00 00 00 00")))
        #expect(adapter.encode(.requestState) == Data([0x67]))
        #expect(adapter.encode(.custom(Data([0x50]))) == Data([0x50]))
        #expect(adapter.encode(.requestBattery) == nil)
        #expect(adapter.encode(.clearIndications) == nil)
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == nil)
        #expect(adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == nil)
    }

    /// Issue #15 (8): the board's own game takes set-up positions (`66`, §2.4 / §2.6).
    @Test func encodesPositionLoadForTheBoardsOwnGame() throws {
        let adapter = ChessUpAdapter()
        let start = try #require(
            adapter.encode(.loadPosition(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")))
        #expect(start.count == 57)
        #expect(start.prefix(11) == (try bytes("66 2F 72 6E 62 71 6B 62 6E 72 2F")))
        #expect(start.suffix(5) == (try bytes("20 2D 20 00 01")))
        #expect(adapter.encode(.loadPosition(fen: "not a fen")) == nil)
        #expect(adapter.capabilities.contains(.ownGame))
    }

    /// Issue #15 (10): the battery is the GATT Battery Service's level (§2.1), decoded with the
    /// charging flag of the last `33` frame.
    @Test func batteryLevelComesFromTheBatteryService() throws {
        var adapter = ChessUpAdapter()
        #expect(adapter.auxiliaryCharacteristics == [.batteryLevel])
        #expect(BoardAuxiliaryCharacteristic.batteryLevel.readCommand == .requestBattery)
        #expect(adapter.feed(value: Data([87]), of: .batteryLevel) == [.battery(percent: 87, charging: nil)])
        // A change of the charging flag alone is reported with the last level (the level and
        // the flag come on different characteristics, in either order).
        #expect(adapter.feed(bytes: try bytes("33 01")) == [.battery(percent: 87, charging: true)])
        #expect(adapter.feed(bytes: try bytes("33 01")).isEmpty, "the same frame again")
        #expect(adapter.feed(value: Data([130]), of: .batteryLevel) == [.battery(percent: 100, charging: true)])
        #expect(adapter.feed(bytes: try bytes("33 00")) == [.battery(percent: 100, charging: false)])
        #expect(adapter.feed(value: Data([5]), of: .batteryLevel) == [.battery(percent: 5, charging: false)])
        var fresh = ChessUpAdapter()
        #expect(fresh.feed(bytes: try bytes("33 01")) == [.raw(try bytes("33 01"))], "no level known yet")
        #expect(adapter.feed(value: Data(), of: .batteryLevel).isEmpty)
        let other = BoardAuxiliaryCharacteristic(
            serviceUUID: "0000180a-0000-1000-8000-00805f9b34fb",
            characteristicUUID: "00002a29-0000-1000-8000-00805f9b34fb", notifies: false, readCommand: nil)
        #expect(adapter.feed(value: Data([50]), of: other).isEmpty)
        #expect(adapter.capabilities.contains(.batteryReporting))
    }

    @Test func encodesShowMoveOnlyWhenEnabled() throws {
        let adapter = ChessUpAdapter(showsMoves: true)
        #expect(adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == (try bytes("99 0C 1C")))
        #expect(adapter.encode(.indicate(squares: [.a1, .h8], style: .hint)) == (try bytes("99 00 3F")))
        #expect(adapter.encode(.indicate(squares: [.e2], style: .move)) == nil)
        #expect(adapter.capabilities.contains(.moveIndication))
        #expect(!ChessUpAdapter().capabilities.contains(.moveIndication))
        #expect(ChessUpAdapter().capabilities == [.occupancySensing, .reportsMoves, .ownGame, .batteryReporting])
    }

    @Test func encodesLoadPositionGoldenVector() throws {
        let expected = try bytes(
            "66 2F 72 6E 62 71 6B 62 6E 72 2F 70 70 70 70 70 70 70 70 2F 38 2F 38 2F 38 2F 38 2F"
                + " 50 50 50 50 50 50 50 50 2F 52 4E 42 51 4B 42 4E 52 20 77 20 4B 51 6B 71 20 2D 20 00 01")
        #expect(expected.count == 57)
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        #expect(ChessUpWire.loadPositionFrame(fen: start) == expected)
        #expect(ChessUpWire.loadPositionFrame(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -") == expected)
        let later = try #require(
            ChessUpWire.loadPositionFrame(fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 300"))
        #expect(Array(later.suffix(6)) == Array(" e6 ".utf8) + [0, 255])
        #expect(ChessUpWire.loadPositionFrame(fen: "not a fen") == nil)
        #expect(ChessUpWire.loadPositionFrame(fen: "8/8/8/8/8/8/8/8 x - - 0 1") == nil)
    }

    @Test func decodesOccupancyBitmap() throws {
        var expected = OccupancyMap.startingPosition
        expected.remove(.e2)
        #expect(try decode("FD FD FF FF 00 00 00 00 EF FF") == [.occupancy(expected)])
        #expect(ChessUpWire.occupancyFrame(expected) == (try bytes("FD FD FF FF 00 00 00 00 EF FF")))
    }

    @Test func decodesStateFrameAsReadyAndPieces() throws {
        let frame = try bytes(Self.stateAfterE4E5)
        #expect(frame.count == 73)
        let events = try decode(Self.stateAfterE4E5)
        let position = try #require(BoardSnapshot(fenPlacement: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"))
        let game = BoardEvent.gameState(position, sideToMove: .white, fullmoveNumber: 2)
        #expect(events == [.ready, game, .pieces(position)])
        // The same frame again (an answer to a state request, nothing changed): the game only.
        var adapter = ChessUpAdapter()
        _ = adapter.feed(bytes: frame)
        #expect(adapter.feed(bytes: frame) == [game])
        let state = try #require(ChessUpState(frame: frame))
        #expect(state.sideToMove == .white)
        #expect(state.castlingRights == [true, true, true, true])
        #expect(state.enPassantSquare == .e6)
        #expect(state.halfmoveClock == 0)
        #expect(state.fullmoveNumber == 2)
        #expect(state.frame == frame)
    }

    @Test func stateFrameNeedsAll73Bytes() throws {
        var adapter = ChessUpAdapter()
        let frame = try bytes(Self.stateAfterE4E5)
        #expect(adapter.feed(bytes: frame.prefix(72)).isEmpty)
        #expect(adapter.feed(bytes: frame.suffix(1)).count == 3)
    }

    @Test func readyComesOnceAndRepeatedStateGivesTheGameOnly() throws {
        var adapter = ChessUpAdapter()
        let frame = try bytes(Self.stateAfterE4E5)
        #expect(adapter.feed(bytes: frame).first == .ready)
        #expect(adapter.feed(bytes: frame).count == 1)
        #expect(adapter.isReady)
        adapter.reset()
        #expect(!adapter.isReady)
        #expect(adapter.feed(bytes: frame).first == .ready)
    }

    @Test func decodesBoardInfoAsVersion() throws {
        let frame = ChessUpWire.boardInfoFrame(model: "ChessUp 2")
        #expect(frame.count == 17)
        #expect(try decode(frame.hexDescription) == [.version("ChessUp 2")])
    }

    @Test func knownInformationalFramesAreRaw() throws {
        for hex in ["B8 0C 00", "BB", "B1", "22", "23", "24", "33 01", "B0 01"] {
            #expect(try decode(hex) == [.raw(try bytes(hex))], "\(hex)")
        }
    }

    @Test func identicalConsecutiveFramesGiveOneEvent() throws {
        #expect(try decode("33 01 33 01 33 00") == [.raw(Data([0x33, 0x01])), .raw(Data([0x33, 0x00]))])
        var map = OccupancyMap.startingPosition
        map.remove(.e2)
        #expect(try decode("FD FD FF FF 00 00 00 00 EF FF FD FD FF FF 00 00 00 00 EF FF") == [.occupancy(map)])
        #expect(
            try decode("BD BD") == [.button(.named("undo")), .button(.named("undo"))], "two undos are two undos")
    }

    @Test func unknownBytesAreRawAndNeverMoves() throws {
        let events = try decode("01 02 03 A3 36 03 01 03 03")
        #expect(events == [])  // garbage waits for the next frame or a full chunk
        let flushed = try decode("01 02 03 A3 36 03 01 03 03 BB")
        #expect(flushed == [.raw(try bytes("01 02 03 A3 36 03 01 03 03")), .raw(Data([0xBB]))])
    }

    @Test func garbageBeforeFrameIsSkipped() throws {
        let events = try decode("00 FF 67 A3 35 03 01 03 03")
        #expect(events == [.raw(try bytes("00 FF 67")), .moveReported(BoardMove(from: .d2, to: .d4))])
    }

    @Test func falseStateStartDoesNotDelayALaterMove() throws {
        var adapter = ChessUpAdapter()
        // A stray 67 followed by a real move: the A3 is not a piece code, so the 67 is dropped at once.
        let events = adapter.feed(bytes: try bytes("67 01 02 A3 35 03 01 03 03"))
        #expect(events.last == .moveReported(BoardMove(from: .d2, to: .d4)))
    }

    @Test func longGarbageIsHandedOutInBoundedChunks() {
        var adapter = ChessUpAdapter()
        let events = adapter.feed(bytes: Data(repeating: 0x01, count: 200))
        #expect(events.count == 3)
        #expect(adapter.bufferedByteCount == 200 - 3 * 64)
        #expect(adapter.bufferedByteCount <= ChessUpAdapter.bufferCapacity)
    }

    @Test func handshakeOpensSessionOnlyOnFirstConnect() {
        let adapter = ChessUpAdapter()
        let first = adapter.handshakeCommands(isReconnect: false)
        let stream = BoardCommand.custom(Data([0x50]))
        #expect(first.map(\.command) == [.startSession, .requestState, stream])
        #expect(first.map(\.delayBefore) == [0, 0.15, 0.05])
        let again = adapter.handshakeCommands(isReconnect: true)
        #expect(again.map(\.command) == [.requestState, stream])
        #expect(again.map(\.delayBefore) == [0.25, 0.05])
        #expect(adapter.minimumWriteInterval == 0)
    }
}
