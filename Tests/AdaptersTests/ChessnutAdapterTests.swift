import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Golden vectors from board-protocols.md §1.9 / §10, framing and encoding.
@Suite struct ChessnutAdapterTests {
    static let startFrame = Data(
        hex: "01 24 58 23 31 85 44 44 44 44" + String(repeating: " 00", count: 16)
            + " 77 77 77 77 a6 c9 9b 6a cb 01 00 00")!

    static let afterE4Board = Data(
        hex: "58 23 31 85 44 44 44 44" + String(repeating: " 00", count: 9) + " 70"
            + String(repeating: " 00", count: 6) + " 77 07 77 77 a6 c9 9b 6a")!

    static func stateFrame(board: Data, counter: UInt32 = 0) -> Data {
        var frame = Data([0x01, 0x24]) + board
        withUnsafeBytes(of: counter.littleEndian) { frame.append(contentsOf: $0) }
        return frame
    }

    @Test func decodesStartPositionCapture() throws {
        var adapter = ChessnutAdapter()
        let events = adapter.feed(bytes: Self.startFrame)
        #expect(events == [.ready, .pieces(.startingPosition)])
    }

    @Test func decodesPositionAfterE4() throws {
        var adapter = ChessnutAdapter()
        var expected = BoardSnapshot.startingPosition
        expected[.e2] = nil
        expected[.e4] = Piece(.white, .pawn)
        let events = adapter.feed(bytes: Self.stateFrame(board: Self.afterE4Board))
        #expect(events.last == .pieces(expected))
        #expect(ChessnutWire.boardBytes(expected) == Array(Self.afterE4Board))
    }

    @Test func acceptsTheShortHeaderVariant() {
        var adapter = ChessnutAdapter()
        let frame = Data([0x01, 0x22]) + Self.startFrame[2..<34] + Data([0, 0])
        #expect(adapter.feed(bytes: frame) == [.ready, .pieces(.startingPosition)])
    }

    @Test func encodesBoardBytesOfStartPosition() {
        #expect(ChessnutWire.boardBytes(.startingPosition) == Array(Self.startFrame[2..<34]))
    }

    @Test func identicalFramesEmitNothingNew() {
        var adapter = ChessnutAdapter()
        var events: [BoardEvent] = []
        for counter in UInt32(0)..<20 {
            events += adapter.feed(bytes: Self.stateFrame(board: Self.startFrame[2..<34], counter: counter))
        }
        #expect(events == [.ready, .pieces(.startingPosition)])
    }

    /// The repeat of an unchanged board is skipped without parsing only when parsing would
    /// emit nothing: skipped bytes before it are still surfaced, a changed or re-armed board
    /// is still reported, and a repeat glued to more bytes is still parsed.
    @Test func aRepeatedBoardEmitsNothingButWhatPrecedesOrFollowsIt() throws {
        var adapter = ChessnutAdapter()
        #expect(adapter.feed(bytes: Self.startFrame) == [.ready, .pieces(.startingPosition)])
        #expect(adapter.feed(bytes: Self.startFrame).isEmpty)
        #expect(adapter.feed(bytes: Data(hex: "ff fe")!).isEmpty)
        #expect(adapter.feed(bytes: Self.startFrame) == [.raw(Data(hex: "ff fe")!)])
        #expect(
            adapter.feed(bytes: Self.startFrame + Data(hex: "2a 02 64 01")!) == [.battery(percent: 100, charging: true)]
        )
        let shortHeader = Data([0x01, 0x22]) + Self.startFrame[2..<34] + Data([0, 0])
        #expect(adapter.feed(bytes: shortHeader).isEmpty)
        var afterE4 = BoardSnapshot.startingPosition
        afterE4[.e2] = nil
        afterE4[.e4] = Piece(.white, .pawn)
        #expect(adapter.feed(bytes: Self.stateFrame(board: Self.afterE4Board)) == [.pieces(afterE4)])
        #expect(adapter.feed(bytes: Self.stateFrame(board: Self.afterE4Board, counter: 7)).isEmpty)
        #expect(adapter.feed(bytes: Data(hex: "23 01 00")!).isEmpty)
        #expect(adapter.feed(bytes: Self.stateFrame(board: Self.afterE4Board)) == [.pieces(afterE4)])
        #expect(adapter.bufferedByteCount == 0)
    }

    @Test func ackReadiesTheBoardAndRearmsTheFilter() throws {
        var adapter = ChessnutAdapter()
        #expect(adapter.encode(.startSession) == Data(hex: "21 01 00"))
        #expect(adapter.feed(bytes: Data(hex: "23 01 00")!) == [.ready])
        #expect(adapter.feed(bytes: Self.startFrame) == [.pieces(.startingPosition)])
        #expect(adapter.feed(bytes: Self.startFrame).isEmpty)
        #expect(adapter.feed(bytes: Data(hex: "23 01 00")!).isEmpty)
        #expect(adapter.feed(bytes: Self.startFrame) == [.pieces(.startingPosition)])
        #expect(adapter.feed(bytes: Data(hex: "23 01 01")!) == [.raw(Data(hex: "23 01 01")!)])
    }

    @Test func encodesLEDVectors() {
        let adapter = ChessnutAdapter()
        #expect(
            adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == Data(hex: "0A 08 00 00 00 00 08 00 08 00"))
        #expect(adapter.encode(.indicate(squares: [.h8], style: .alert)) == Data(hex: "0A 08 01 00 00 00 00 00 00 00"))
        #expect(adapter.encode(.indicate(squares: [.a1], style: .hint)) == Data(hex: "0A 08 00 00 00 00 00 00 00 80"))
        #expect(adapter.encode(.clearIndications) == Data(hex: "0A 08 00 00 00 00 00 00 00 00"))
        #expect(ChessnutWire.squares(ledBytes: [0, 0, 0, 0, 8, 0, 8, 0]) == [.e2, .e4])
    }

    @Test func decodesBatteryVectors() {
        var adapter = ChessnutAdapter()
        #expect(adapter.encode(.requestBattery) == Data(hex: "29 01 00"))
        #expect(adapter.feed(bytes: Data(hex: "2a 02 64 00")!) == [.battery(percent: 100, charging: false)])
        #expect(adapter.feed(bytes: Data(hex: "2a 02 C8 00")!) == [.battery(percent: 72, charging: true)])
        #expect(adapter.feed(bytes: Data(hex: "2a 02 48 01")!) == [.battery(percent: 72, charging: true)])
        #expect(adapter.feed(bytes: Data(hex: "2a 02 7F 00")!) == [.battery(percent: 100, charging: false)])
    }

    @Test func decodesNewGameButtonAndOtherButtons() {
        var adapter = ChessnutAdapter()
        #expect(adapter.feed(bytes: Data(hex: "0f 01 02")!) == [.button(.named("new_game"))])
        #expect(adapter.feed(bytes: Data(hex: "0f 01 05")!) == [.button(.code(5))])
    }

    @Test func passesBeepAndOtherCustomBytesThrough() {
        let adapter = ChessnutAdapter()
        for hex in ["0b 04 07 d0 01 f4", "0b 04 01 90 01 f4", "0B 04 03 E8 00 C8", "31 01 00"] {
            #expect(adapter.encode(.custom(Data(hex: hex)!)) == Data(hex: hex))
        }
    }

    @Test func surfacesStoredGameFramesAsRaw() {
        var adapter = ChessnutAdapter()
        for hex in ["36 08 60 02 00 00 29 85 35 13", "37 01 BE", "37 01 ED", "32 01 03", "38 04 01 02 03 04"] {
            #expect(adapter.feed(bytes: Data(hex: hex)!) == [.raw(Data(hex: hex)!)])
        }
    }

    @Test func moveModelVectors() throws {
        var adapter = ChessnutAdapter(model: .move)
        #expect(adapter.capabilities.contains(.motorised))
        #expect(!ChessnutAdapter().capabilities.contains(.motorised))
        #expect(adapter.encode(.requestBattery) == Data(hex: "41 01 0C"))
        #expect(adapter.feed(bytes: Data(hex: "41 03 0c 01 48")!) == [.battery(percent: 72, charging: true)])
        // e2 green (move) and e4 blue (hint): the vector's bytes 25 and 17.
        let e2 = try #require(adapter.encode(.indicate(squares: [.e2], style: .move)))
        let e4 = try #require(adapter.encode(.indicate(squares: [.e4], style: .hint)))
        #expect(e2.count == 34 && e4.count == 34)
        #expect(Array(e2.prefix(2)) == [0x43, 0x20])
        var combined = [UInt8](repeating: 0, count: 32)
        combined[17] = 0x30
        combined[25] = 0x20
        for index in 0..<32 {
            #expect(e2[2 + index] | e4[2 + index] == combined[index])
        }
        #expect(adapter.encode(.clearIndications) == Data([0x43, 0x20] + Array(repeating: 0, count: 32)))
    }

    @Test func executeMoveNeedsAMoveAndAKnownBoard() throws {
        var adapter = ChessnutAdapter(model: .move)
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == nil)
        _ = adapter.feed(bytes: Self.startFrame)
        let command = try #require(adapter.encode(.executeMove(uci: "e2e4")))
        #expect(command == Data([0x42, 0x21]) + Self.afterE4Board + Data([0x01]))
        #expect(adapter.encode(.executeMove(uci: "e3e4")) == nil)
        #expect(adapter.encode(.executeMove(uci: "nonsense")) == nil)
        var classic = ChessnutAdapter()
        _ = classic.feed(bytes: Self.startFrame)
        #expect(classic.encode(.executeMove(uci: "e2e4")) == nil)
    }

    @Test func executeMoveCastlesWithTheRook() throws {
        var adapter = ChessnutAdapter(model: .move, autoMoveStopsOnInterference: false)
        let board = try #require(BoardSnapshot(fenPlacement: "r3k2r/8/8/8/8/8/8/R3K2R"))
        _ = adapter.feed(bytes: Self.stateFrame(board: Data(ChessnutWire.boardBytes(board))))
        let command = try #require(adapter.encode(.executeMove(uci: "e1g1")))
        let target = try #require(ChessnutWire.snapshot(boardBytes: command[2..<34]))
        #expect(target.fenPlacement == "r3k2r/8/8/8/8/8/8/R4RK1")
        #expect(command.last == 0x00)
    }

    @Test func handshakeMatchesTheSpecExample() {
        let adapter = ChessnutAdapter()
        let fresh = adapter.handshakeCommands(isReconnect: false)
        #expect(fresh.map(\.command) == [.startSession])
        #expect(fresh.map(\.delayBefore) == [0])
        let again = adapter.handshakeCommands(isReconnect: true)
        #expect(again.map(\.command) == [.startSession])
        #expect(again.map(\.delayBefore) == [0.25])
        #expect(adapter.minimumWriteInterval == 0.2)
        #expect(adapter.encode(.requestState) == Data(hex: "21 01 00"))
    }

    @Test func profileDescribesTheGATTLayout() {
        let profile = ChessnutAdapter.profile
        #expect(profile.family == .chessnut)
        #expect(profile.serviceUUID == "1b7e8261-2877-41c3-b46e-cf057c562023")
        #expect(profile.notifyCharacteristicUUIDs.contains("1b7e8262-2877-41c3-b46e-cf057c562023"))
        #expect(profile.notifyCharacteristicUUIDs.contains("1b7e8273-2877-41c3-b46e-cf057c562023"))
        #expect(profile.writeCharacteristicUUID == "1b7e8272-2877-41c3-b46e-cf057c562023")
        #expect(profile.matches(name: "Chessnut Air\n", serviceUUIDs: []))
        #expect(profile.matches(name: "Chessnut Move", serviceUUIDs: []))
        #expect(!profile.matches(name: "ChessUp", serviceUUIDs: []))
        #expect(ChessnutAdapter.Model(advertisedName: " Chessnut Move\n") == .move)
        #expect(ChessnutAdapter.Model(advertisedName: "Chessnut Air\n") == .classic)
    }

    @Test func everySplitGivesTheSameEvents() {
        var stream = Data(hex: "23 01 00")! + Self.startFrame + Self.startFrame
        stream += Self.stateFrame(board: Self.afterE4Board, counter: 7)
        stream += Data(hex: "2a 02 64 00 0f 01 02 41 03 0c 00 32 37 01 BE")!
        stream += Data(hex: "ff 99 23 02")! + Self.startFrame
        let result = FramingVerifier.verify(ChessnutAdapter(), stream, seeds: Array(1...20))
        #expect(result.mismatch == nil)
        #expect(result.events.filter { if case .pieces = $0 { true } else { false } }.count == 3)
    }

    /// A stray type byte (or two) in front of a board frame costs nothing. (A stray
    /// complete short frame whose last byte is `01` still takes the frame's first byte:
    /// waiting to tell would stall real replies such as `2A 02 64 01`.)
    @Test func garbageBeforeAFrameDoesNotSwallowIt() {
        for prefix in ["23", "0f", "32", "2a 02", "37", "41 03", "01", "01 24 ff", "ee ee ee"] {
            var adapter = ChessnutAdapter()
            let events = adapter.feed(bytes: Data(hex: prefix)! + Self.startFrame)
            #expect(events.contains(.pieces(.startingPosition)), "after \(prefix)")
            #expect(events.filter { if case .pieces = $0 { true } else { false } }.count == 1, "after \(prefix)")
        }
    }

    @Test func invalidNibblesAreNeverPieces() {
        var adapter = ChessnutAdapter()
        var frame = Self.startFrame
        frame[10] = 0xD4
        let events = adapter.feed(bytes: frame)
        #expect(!events.contains { if case .pieces = $0 { true } else { false } })
        #expect(adapter.bufferedByteCount <= ChessnutAdapter.maximumFrameLength + ChessnutAdapter.maximumGarbageChunk)
    }

    @Test func resetForgetsThePartialFrame() {
        var adapter = ChessnutAdapter()
        _ = adapter.feed(bytes: Self.startFrame.prefix(20))
        #expect(adapter.bufferedByteCount == 20)
        adapter.reset()
        #expect(adapter.bufferedByteCount == 0)
        #expect(adapter.feed(bytes: Self.startFrame) == [.ready, .pieces(.startingPosition)])
    }
}
