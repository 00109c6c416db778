import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Byte vectors from board-protocols.md §4.1 / §4.4 / §10 (the DGT e-Board): the start
/// dump, field updates, battery; BWTIME built from the documented layout (docs/dgt.md).
@Suite struct DGTAdapterTests {
    /// §4.4 / §10 vector 8: the start-position board dump (K = 5, Q = 6, a8 first).
    static let startDump = Data(
        hex: "86 00 43 08 09 0A 0C 0B 0A 09 08" + String(repeating: " 07", count: 8)
            + String(repeating: " 00", count: 32) + String(repeating: " 01", count: 8)
            + " 02 03 04 06 05 04 03 02")!
    /// 5:00 left, 4:59 right, the right clock running (lever up on the right).
    static let clockFrame = Data(hex: "8D 00 0A 00 04 59 00 05 00 03")!

    static func afterE4() -> BoardSnapshot {
        var board = BoardSnapshot.startingPosition
        board[.e2] = nil
        board[.e4] = Piece(.white, .pawn)
        return board
    }

    @Test func decodesTheStartDumpAsTheStartingPosition() {
        var adapter = DGTAdapter()
        #expect(adapter.feed(bytes: Self.startDump) == [.ready, .pieces(.startingPosition)])
        #expect(adapter.snapshot == .startingPosition)
        #expect(Array(DGTWire.fields(.startingPosition)) == Array(Self.startDump.dropFirst(3)))
    }

    @Test func fieldUpdatesReportTheWholeBoard() {
        var adapter = DGTAdapter()
        _ = adapter.feed(bytes: Self.startDump)
        var lifted = BoardSnapshot.startingPosition
        lifted[.e2] = nil
        // §4.4: lift e2, place a white pawn on e4.
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 34 00")!) == [.pieces(lifted)])
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 24 01")!) == [.pieces(Self.afterE4())])
        // A field outside 0…63 or an unknown code changes nothing.
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 40 01")!) == [.raw(Data(hex: "8E 00 05 40 01")!)])
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 24 10")!) == [.raw(Data(hex: "8E 00 05 24 10")!)])
        #expect(adapter.snapshot == Self.afterE4())
    }

    @Test func aFieldUpdateBeforeTheDumpIsNoBoard() {
        var adapter = DGTAdapter()
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 34 00")!) == [.raw(Data(hex: "8E 00 05 34 00")!)])
    }

    @Test func kingIsFiveAndQueenSix() {
        #expect(DGTWire.piece(code: 0x05) == .some(Piece(.white, .king)))
        #expect(DGTWire.piece(code: 0x06) == .some(Piece(.white, .queen)))
        #expect(DGTWire.piece(code: 0x0B) == .some(Piece(.black, .king)))
        #expect(DGTWire.piece(code: 0x0C) == .some(Piece(.black, .queen)))
        #expect(DGTWire.piece(code: 0x0E) == .some(nil))  // a magic piece is no chess piece
        #expect(DGTWire.piece(code: 0x10) == nil)
        for code in UInt8(1)...12 {
            #expect(DGTWire.code(of: DGTWire.piece(code: code) ?? nil) == code)
        }
        #expect(DGTWire.field(of: .a8) == 0 && DGTWire.field(of: .h1) == 63 && DGTWire.field(of: .e2) == 0x34)
    }

    @Test func decodesSerialNumberVersionAndBattery() {
        var adapter = DGTAdapter(model: .bluetooth)
        #expect(adapter.feed(bytes: Data(hex: "91 00 08 31 32 33 34 35")!) == [.serialNumber("12345")])
        #expect(
            adapter.feed(bytes: Data(hex: "A2 00 0D 30 30 30 30 30 31 32 33 34 35")!) == [.serialNumber("0000012345")])
        #expect(adapter.feed(bytes: Data(hex: "93 00 05 01 02")!) == [.version("1.2")])
        // §4.4 battery vector (88 %), 12 bytes; the header's other size, 7, is taken too.
        #expect(
            adapter.feed(bytes: Data(hex: "A0 00 0C 58 00 00 00 00 00 00 00 02")!)
                == [.battery(percent: 88, charging: nil)])
        #expect(adapter.feed(bytes: Data(hex: "A0 00 07 40 00 00 00")!) == [.battery(percent: 64, charging: nil)])
    }

    @Test func decodesClockTimes() {
        var adapter = DGTAdapter()
        let reading = BoardClockReading(left: 300, right: 299, running: .right, leverUp: .right)
        #expect(adapter.feed(bytes: Self.clockFrame) == [.clock(reading)])
        // Stopped, left lever up, 1:02:03 against 0:00:09, low battery.
        #expect(
            adapter.feed(bytes: Data(hex: "8D 00 0A 00 00 09 01 02 03 04")!)
                == [.clock(BoardClockReading(left: 3723, right: 9, running: nil, leverUp: .left, batteryLow: true))])
        #expect(adapter.feed(bytes: Data(hex: "8D 00 0A 00 00 00 00 00 00 20")!) == [.clock(nil)])
        // A clock ack (hours nibble A) and a time that is no decimal are not times.
        let ack = Data(hex: "8D 00 0A 0A 08 00 00 00 00 00")!
        #expect(adapter.feed(bytes: ack) == [.raw(ack)])
        let bad = Data(hex: "8D 00 0A 00 6A 00 00 00 00 00")!
        #expect(adapter.feed(bytes: bad) == [.raw(bad)])
        #expect(DGTClockTimes.payload(reading) == Array(Self.clockFrame.dropFirst(3)))
    }

    @Test func encodesCommands() {
        let classic = DGTAdapter()
        #expect(classic.encode(.startSession) == Data([0x4B]))
        #expect(DGTAdapter(readsClock: false).encode(.startSession) == Data([0x44]))
        #expect(classic.encode(.requestState) == Data([0x42]))
        #expect(classic.encode(.requestBattery) == nil)
        #expect(classic.encode(.indicate(squares: [.e2], style: .move)) == nil)
        #expect(classic.encode(.executeMove(uci: "e2e4")) == nil)
        #expect(DGTAdapter(model: .bluetooth).encode(.requestBattery) == Data([0x4C]))
        let revelation = DGTAdapter(model: .revelationII)
        #expect(revelation.encode(.clearIndications) == Data(hex: "60 04 00 00 3F 00"))
        #expect(
            revelation.encode(.indicate(squares: [.e2, .e4, .e2], style: .move))
                == Data(hex: "60 04 00 00 3F 00 60 04 01 34 34 00 60 04 01 24 24 00"))
        #expect(revelation.capabilities.contains(.perSquareLEDs))
        #expect(!classic.capabilities.contains(.perSquareLEDs))
        #expect(classic.capabilities.contains(.pieceIdentity))
    }

    @Test func handshakeSwitchesUpdatesOnBeforeTheDump() {
        let steps = DGTAdapter(model: .bluetooth).handshakeCommands(isReconnect: false)
        let bytes = steps.compactMap { DGTAdapter(model: .bluetooth).encode($0.command) }
        #expect(bytes == [[0x40], [0x4D], [0x45], [0x4B], [0x42], [0x41], [0x4C]].map { Data($0) })
        let revelation = DGTAdapter(model: .revelationII).handshakeCommands(isReconnect: true).map(\.command)
        #expect(revelation.contains(.clearIndications))
        #expect(revelation.firstIndex(of: .startSession)! < revelation.firstIndex(of: .requestState)!)
    }

    @Test func theProfileMatchesNoAdvertisement() {
        #expect(!DGTAdapter.profile.matches(name: "DGT e-Board", serviceUUIDs: []))
        #expect(AdapterFactory.family(advertisedName: "DGT_Pegasus_1", serviceUUIDs: []) == .dgtPegasus)
        #expect(!BoardFamily.dgt.isBluetoothLE && BoardFamily.bluetoothLE.count == BoardFamily.allCases.count - 3)
    }

    static let mixedStream: Data = {
        var stream = Data(hex: "93 00 05 01 02 91 00 08 31 32 33 34 35")! + startDump
        stream += Data(hex: "8E 00 05 34 00 12 7F 86 00 8E 00 05 24 01")! + clockFrame
        stream += Data(hex: "A0 00 0C 58 00 00 00 00 00 00 00 02 92 00 07 44 47 54 0A FF 8E 00 05 3C 00")!
        return stream
    }()

    @Test func splittingAtEveryByteBoundaryGivesTheSameEvents() {
        let whole = FramingVerifier.eventsAllAtOnce(DGTAdapter(), Self.mixedStream)
        #expect(whole.contains(.pieces(Self.afterE4())))
        #expect(whole.contains(.serialNumber("12345")))
        #expect(whole.contains(.raw(Data(hex: "92 00 07 44 47 54 0A")!)))
        for cut in 0...Self.mixedStream.count {
            var adapter = DGTAdapter()
            let events =
                adapter.feed(bytes: Self.mixedStream.prefix(cut)) + adapter.feed(bytes: Self.mixedStream.dropFirst(cut))
            #expect(events == whole, "cut at \(cut)")
        }
        let result = FramingVerifier.verify(DGTAdapter(), Self.mixedStream, seeds: Array(1...20))
        #expect(result.mismatch == nil)
    }

    @Test func garbageNeverSwallowsAMessage() {
        for prefix in ["86", "86 00", "86 00 43 08 09", "8E 00 05 34", "8D 00 0A 00", "A0 00 0C 58", "FF", "00 7F"] {
            var adapter = DGTAdapter()
            _ = adapter.feed(bytes: Self.startDump)
            let events = adapter.feed(bytes: Data(hex: prefix)! + Data(hex: "8E 00 05 34 00")!)
            var lifted = BoardSnapshot.startingPosition
            lifted[.e2] = nil
            #expect(events.last == .pieces(lifted), "after \(prefix)")
        }
    }

    @Test func aMessageTooLongForTheBufferIsGarbage() {
        var adapter = DGTAdapter()
        // 8F (stored moves) claiming 16 383 bytes: skipped, not waited for.
        let events = adapter.feed(bytes: Data(hex: "8F 7F 7F 01 02 03")! + Self.clockFrame)
        #expect(events.last == .clock(BoardClockReading(left: 300, right: 299, running: .right, leverUp: .right)))
        #expect(adapter.bufferedByteCount == 0)
    }
}
