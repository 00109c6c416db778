import Adapters
import BoardKit
import Foundation
import Testing

@Suite struct AdapterFactoryTests {
    @Test(arguments: BoardFamily.allCases)
    func everyFamilyHasAnAdapterAndAProfile(_ family: BoardFamily) throws {
        let adapter = try AdapterFactory.makeAdapter(for: family)
        #expect(!adapter.capabilities.isEmpty)
        #expect(AdapterFactory.profile(for: family).family == family)
        #expect(!adapter.handshakeCommands(isReconnect: false).isEmpty)
    }

    @Test(arguments: [
        ("Chessnut Air", BoardFamily.chessnut), ("Chessnut Move", .chessnut), ("ChessUp", .chessUp),
        ("Squareoff Pro", .squareOff), ("Square Off Neo", .squareOff), ("DGT_Pegasus_1234", .dgtPegasus),
        ("MILLENNIUM CHESS", .millennium),
    ])
    func recognisesAdvertisedNames(_ name: String, _ family: BoardFamily) {
        #expect(AdapterFactory.family(advertisedName: name, serviceUUIDs: []) == family)
    }

    @Test func unknownBoardsAreNotRecognised() {
        #expect(AdapterFactory.family(advertisedName: "Fitness Tracker", serviceUUIDs: []) == nil)
        #expect(AdapterFactory.family(advertisedName: nil, serviceUUIDs: []) == nil)
    }

    @Test func variantsFollowTheAdvertisedName() throws {
        let move = try AdapterFactory.makeAdapter(for: .chessnut, options: .init(advertisedName: "Chessnut Move"))
        #expect(move.capabilities.contains(.motorised))
        let air = try AdapterFactory.makeAdapter(for: .chessnut, options: .init(advertisedName: "Chessnut Air"))
        #expect(!air.capabilities.contains(.motorised))
        #expect(
            AdapterFactory.profile(for: .squareOff, advertisedName: "Square Off Neo").notifyCharacteristicUUIDs.count
                > AdapterFactory.profile(for: .squareOff).notifyCharacteristicUUIDs.count)
    }

    @Test func rejectsAPegasusKeyOfTheWrongLength() {
        #expect(throws: AdapterFactoryError.invalidDeveloperKey(length: 3)) {
            try AdapterFactory.makeAdapter(for: .dgtPegasus, options: .init(developerKey: Data([1, 2, 3])))
        }
    }
}
