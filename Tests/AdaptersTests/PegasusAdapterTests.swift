import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Golden vectors from board-protocols.md §4.4 / §10, framing, encoding, key handling.
@Suite struct PegasusAdapterTests {
    static let startDump = Data(
        hex: "86 00 43" + String(repeating: " 01", count: 16) + String(repeating: " 00", count: 32)
            + String(repeating: " 01", count: 16))!
    static let lockedDump = Data(hex: "86 00 43" + String(repeating: " 7F", count: 64))!

    static func adapter() -> PegasusAdapter {
        // The default key is 6 bytes: the throwing init cannot fail here.
        (try? PegasusAdapter()) ?? { fatalError("default key rejected") }()
    }

    @Test func decodesTheStartDump() {
        var adapter = Self.adapter()
        #expect(adapter.feed(bytes: Self.startDump) == [.ready, .occupancy(.startingPosition)])
        #expect(adapter.isUnlocked == true)
        #expect(adapter.occupancy == .startingPosition)
    }

    @Test func aLockedDumpIsAFailedHandshakeReportedOncePerLink() {
        var adapter = Self.adapter()
        let rejected = BoardEvent.handshakeFailed(reason: "the board rejected the developer key")
        #expect(adapter.feed(bytes: Self.lockedDump) == [.raw(Self.lockedDump), rejected])
        #expect(adapter.isUnlocked == false)
        #expect(adapter.occupancy == nil)
        #expect(adapter.feed(bytes: Data(hex: "A5 00 01 00")!) == [.raw(Data(hex: "A5 00 01 00")!)])
        #expect(adapter.feed(bytes: Self.lockedDump) == [.raw(Self.lockedDump)])
        adapter.reset()
        #expect(adapter.feed(bytes: Data(hex: "A5 00 01 00")!) == [.raw(Data(hex: "A5 00 01 00")!), rejected])
    }

    @Test func aLockedBoardWithoutAKeySaysSo() throws {
        var adapter = try PegasusAdapter(developerKey: nil)
        #expect(
            adapter.feed(bytes: Self.lockedDump)
                == [
                    .raw(Self.lockedDump),
                    .handshakeFailed(reason: "the board is locked and no developer key is configured"),
                ])
    }

    @Test func decodesFieldUpdates() {
        var adapter = Self.adapter()
        _ = adapter.feed(bytes: Self.startDump)
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 34 00")!) == [.pieceLifted(.e2)])
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 24 01")!) == [.piecePlaced(.e4, piece: nil)])
        var expected = OccupancyMap.startingPosition
        expected.remove(.e2)
        expected.insert(.e4)
        #expect(adapter.occupancy == expected)
        #expect(adapter.feed(bytes: Data(hex: "8E 00 05 40 01")!) == [.raw(Data(hex: "8E 00 05 40 01")!)])
    }

    @Test func decodesVersionBatteryAndKeyState() {
        var adapter = Self.adapter()
        #expect(adapter.feed(bytes: Data(hex: "93 00 05 01 00")!) == [.version("1.0")])
        #expect(
            adapter.feed(bytes: Data(hex: "A0 00 0C 58 00 00 00 00 00 00 00 02")!)
                == [.battery(percent: 88, charging: nil)])
        #expect(adapter.feed(bytes: Data(hex: "96 00 05 01 00")!) == [.raw(Data(hex: "96 00 05 01 00")!)])
        #expect(adapter.feed(bytes: Data(hex: "A5 00 01 01")!).isEmpty)
        #expect(adapter.isUnlocked == true)
        #expect(
            adapter.feed(bytes: Data(hex: "A5 00 01 00")!)
                == [.raw(Data(hex: "A5 00 01 00")!), .handshakeFailed(reason: "the board rejected the developer key")])
        #expect(adapter.isUnlocked == false)
    }

    @Test func encodesCommands() {
        let adapter = Self.adapter()
        #expect(
            adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == Data(hex: "60 07 05 02 00 05 34 24 00"))
        #expect(adapter.encode(.indicate(squares: [], style: .move)) == Data(hex: "60 02 00 00"))
        #expect(adapter.encode(.clearIndications) == Data(hex: "60 02 00 00"))
        #expect(adapter.encode(.requestState) == Data([0x42]))
        #expect(adapter.encode(.startSession) == Data([0x44]))
        #expect(adapter.encode(.requestBattery) == Data([0x4C]))
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == nil)
        #expect(adapter.encode(.custom(Data([0x48]))) == Data([0x48]))
        #expect(adapter.minimumWriteInterval == 0.05)
    }

    @Test func handshakeUnlocksWithTheConfiguredKey() throws {
        let key = Data([1, 2, 3, 4, 5, 6])
        let adapter = try PegasusAdapter(developerKey: key)
        let steps = adapter.handshakeCommands(isReconnect: false)
        #expect(steps.first?.command == .custom(Data([0x40])))
        #expect(steps.first?.delayBefore == 0.3)
        #expect(steps.map(\.command).contains(.custom(Data(hex: "63 07 01 02 03 04 05 06 00")!)))
        #expect(steps.map(\.command).suffix(3) == [.startSession, .requestState, .requestBattery])
        #expect(steps.dropFirst().allSatisfy { $0.delayBefore == 0.05 })
        #expect(adapter.handshakeCommands(isReconnect: true).map(\.command) == steps.map(\.command))
        let unlocked = try PegasusAdapter(developerKey: nil)
        #expect(!unlocked.handshakeCommands(isReconnect: false).contains { $0.command.isUnlock })
        #expect(
            PegasusWire.unlockCommand(key: PegasusAdapter.defaultDeveloperKey)
                == Data(hex: "63 07 BE F5 AE DD A9 5F 00"))
    }

    @Test func rejectsAKeyOfTheWrongLength() {
        #expect(throws: PegasusAdapterError.invalidDeveloperKeyLength(3)) {
            _ = try PegasusAdapter(developerKey: Data([1, 2, 3]))
        }
    }

    @Test func profileUsesTheNordicUART() {
        let profile = PegasusAdapter.profile
        #expect(profile.family == .dgtPegasus)
        #expect(profile.serviceUUID == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(profile.writeCharacteristicUUID == "6e400002-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(profile.notifyCharacteristicUUIDs == ["6e400003-b5a3-f393-e0a9-e50e24dcca9e"])
        #expect(profile.matches(name: "DGT_Pegasus_12345", serviceUUIDs: []))
        #expect(!profile.matches(name: "ChessUp", serviceUUIDs: ["6e400001-b5a3-f393-e0a9-e50e24dcca9e"]))
    }

    @Test func everySplitGivesTheSameEvents() {
        var stream = Data(hex: "A5 00 01 01 93 00 05 01 00")! + Self.startDump
        stream += Data(hex: "8E 00 05 34 00 8E 00 05 24 01 12 7F 86 00 8E 00 05 3C 00")!
        stream += Data(hex: "A0 00 0C 58 00 00 00 00 00 00 00 02 92 00 07 44 47 54 0A")!
        let result = FramingVerifier.verify(Self.adapter(), stream, seeds: Array(1...20))
        #expect(result.mismatch == nil)
        #expect(result.events.contains(.pieceLifted(.e1)))
        #expect(result.events.contains(.raw(Data(hex: "92 00 07 44 47 54 0A")!)))
    }

    @Test func garbageNeverSwallowsAMessage() {
        for prefix in ["86", "86 00", "86 00 43 01 01", "8E 00 05 34", "A0 00 0C 58", "FF", "00 7F"] {
            var adapter = Self.adapter()
            let events = adapter.feed(bytes: Data(hex: prefix)! + Data(hex: "8E 00 05 34 00")!)
            #expect(events.last == .pieceLifted(.e2), "after \(prefix)")
        }
    }

    @Test(arguments: [UInt64(21)])
    func survivesAMillionRandomBytes(seed: UInt64) {
        var adapter = Self.adapter()
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                let field = UInt8.random(in: 0..<64, using: &generator)
                let square = PegasusWire.square(field: field)!
                if Bool.random(using: &generator) {
                    return (Data([0x8E, 0x00, 0x05, field, 0x00]), .pieceLifted(square))
                }
                return (Data([0x8E, 0x00, 0x05, field, 0x01]), .piecePlaced(square, piece: nil))
            })
        #expect(outcome.largestBuffer <= PegasusAdapter.maximumFrameLength + PegasusAdapter.maximumGarbageChunk)
        #expect(outcome.expectedFound == outcome.expected.count)
    }
}

extension BoardCommand {
    fileprivate var isUnlock: Bool {
        if case .custom(let bytes) = self { bytes.first == 0x63 } else { false }
    }
}
