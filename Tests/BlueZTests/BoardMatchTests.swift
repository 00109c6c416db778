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

    @Test(
        arguments: [
            ("Chessnut*", "Chessnut Air", true),
            ("chessnut*", "Chessnut Air", true),
            ("*Air", "Chessnut Air", true),
            ("Chess?ut Air", "Chessnut Air", true),
            ("Chessnut", "Chessnut Air", false),
            ("*", "", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("DGT_Pegasus_*", "DGT_Pegasus_1234", true),
            ("", "x", false),
        ] as [(String, String, Bool)])
    func glob(pattern: String, text: String, expected: Bool) {
        #expect(BoardMatch.glob(pattern, matches: text) == expected)
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

    @Test func namePatternRejectsAnotherFamilyButAcceptsUnknownNames() {
        #expect(BoardMatch.namePattern("*").matches(Self.device(name: "My Pegasus"), family: .dgtPegasus))
        #expect(!BoardMatch.namePattern("*").matches(Self.device(name: "Chessnut Air"), family: .dgtPegasus))
        #expect(!BoardMatch.namePattern("My*").matches(Self.device(name: nil), family: .dgtPegasus))
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
