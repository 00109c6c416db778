import BoardKit
import Foundation
import Testing

@testable import BlueZ

@Suite struct BoardMatchTests {
    static func device(name: String?, address: String = "AA:BB:CC:DD:EE:01", uuids: [String] = []) -> BlueZDeviceInfo {
        BlueZDeviceInfo(
            path: BlueZPath.devicePath(adapterPath: "/org/bluez/hci0", address: address),
            adapterPath: "/org/bluez/hci0", address: address, name: name, uuids: uuids)
    }

    @Test func addressMatchIgnoresCaseAndFamily() {
        let device = Self.device(name: "Something Else")
        #expect(BoardMatch.address("aa:bb:cc:dd:ee:01").matches(device, family: .chessnut))
        #expect(!BoardMatch.address("AA:BB:CC:DD:EE:02").matches(device, family: .chessnut))
    }

    @Test func anyMatchesByDetectedFamily() {
        #expect(BoardMatch.any.matches(Self.device(name: "Chessnut Air"), family: .chessnut))
        #expect(!BoardMatch.any.matches(Self.device(name: "ChessUp"), family: .chessnut))
        #expect(!BoardMatch.any.matches(Self.device(name: nil), family: .chessnut))
    }

    @Test func namePatternRejectsAnotherFamilyButAcceptsUnknownNames() throws {
        let all = BoardMatch.namePattern(try #require(GlobPattern("*")))
        #expect(all.matches(Self.device(name: "My Pegasus"), family: .dgtPegasus))
        #expect(!all.matches(Self.device(name: "Chessnut Air"), family: .dgtPegasus))
        let mine = BoardMatch.namePattern(try #require(GlobPattern("my*")))
        #expect(mine.matches(Self.device(name: "My Pegasus"), family: .dgtPegasus))
        #expect(!mine.matches(Self.device(name: "Your Pegasus"), family: .dgtPegasus))
        #expect(!mine.matches(Self.device(name: nil), family: .dgtPegasus))
    }

    @Test func deviceIDsAreStableAndDistinct() {
        let first = BlueZDeviceID.uuid(adapter: "hci0", address: "aa:bb:cc:dd:ee:01")
        #expect(first == BlueZDeviceID.uuid(adapter: "hci0", address: "AA:BB:CC:DD:EE:01"))
        #expect(first != BlueZDeviceID.uuid(adapter: "hci1", address: "AA:BB:CC:DD:EE:01"))
        #expect(first != BlueZDeviceID.uuid(adapter: "hci0", address: "AA:BB:CC:DD:EE:02"))
        // Version 8, RFC 4122 variant.
        #expect(first.uuid.6 >> 4 == 8)
        #expect(first.uuid.8 >> 6 == 2)
    }
}
