import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Golden vectors of reference §3 (Square Off) and the adapter's framing rules.
@Suite struct SquareOffAdapterTests {
    private func bytes(_ hex: String) throws -> Data { try #require(Data(hex: hex)) }

    /// The events `text` produces, checked to be the same for every way of splitting it.
    private func decode(_ text: String, variant: SquareOffAdapter.Variant = .pro) -> [BoardEvent] {
        let result = FramingVerifier.verify(SquareOffAdapter(variant: variant), Data(text.utf8))
        #expect(result.mismatch == nil, "\(result.mismatch ?? "")")
        return result.events
    }

    static let startString = String(repeating: "11000011", count: 8)

    @Test func profilesIdentifySquareOffByName() {
        let profile = SquareOffAdapter.profile
        #expect(profile.family == .squareOff)
        #expect(profile.serviceUUID == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(profile.notifyCharacteristicUUIDs == ["6e400003-b5a3-f393-e0a9-e50e24dcca9e"])
        #expect(profile.writeCharacteristicUUID == "6e400002-b5a3-f393-e0a9-e50e24dcca9e")
        for name in ["Squareoff Pro", "Square Off", "Square Off Neo - 1a2"] {
            #expect(profile.matches(name: name, serviceUUIDs: []), "\(name)")
        }
        #expect(!profile.matches(name: "ChessUp", serviceUUIDs: ["6e400001-b5a3-f393-e0a9-e50e24dcca9e"]))
        #expect(SquareOffAdapter.variant(forAdvertisedName: "Square Off Neo - 1a2") == .neo)
        #expect(SquareOffAdapter.variant(forAdvertisedName: "Squareoff Pro") == .pro)
        let neo = SquareOffAdapter.profile(for: .neo)
        #expect(neo.notifyCharacteristicUUIDs.contains("4496994f-2600-4e7e-81d5-e0f7b67ebd48"))
        #expect(neo.notifyCharacteristicUUIDs.contains("777ac5a4-6fa8-474b-841d-091bd57d28c4"))
    }

    @Test func handshakeIsExactlyTheSpecExample() {
        let adapter = SquareOffAdapter()
        let first = adapter.handshakeCommands(isReconnect: false)
        #expect(first.map(\.command) == [.startSession, .requestState])
        #expect(first.map(\.delayBefore) == [0.25, 0.15])
        let again = adapter.handshakeCommands(isReconnect: true)
        #expect(again.map(\.command) == [.requestState])
        #expect(again.map(\.delayBefore) == [0.25])
        #expect(adapter.minimumWriteInterval == 0.15)
    }

    @Test func encodesCommands() throws {
        let adapter = SquareOffAdapter()
        #expect(adapter.encode(.requestState) == (try bytes("33 30 23 52 2A")))
        #expect(adapter.encode(.startSession) == Data("14#1*".utf8))
        #expect(adapter.encode(.requestBattery) == Data("4#*".utf8))
        #expect(adapter.encode(.indicate(squares: [.e2, .e4], style: .move)) == Data("25#e2e4*".utf8))
        #expect(adapter.encode(.indicate(squares: [.g7, .h6], style: .alert)) == Data("25#g7h6*".utf8))
        #expect(adapter.encode(.indicate(squares: [], style: .highlight)) == Data("25#*".utf8))
        #expect(adapter.encode(.clearIndications) == Data("25#*".utf8))
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == Data("0#e2e4*".utf8))
        #expect(adapter.encode(.executeMove(uci: "E7E8Q")) == Data("0#e7e8q*".utf8))
        #expect(adapter.encode(.executeMove(uci: "e9e4")) == nil)
        #expect(adapter.encode(.custom(Data("!#*".utf8))) == Data("!#*".utf8))
        #expect(SquareOffAdapter(variant: .neo).encode(.executeMove(uci: "e2e4")) == nil)
    }

    @Test func capabilitiesPerVariant() {
        #expect(SquareOffAdapter().capabilities.contains(.motorised))
        #expect(SquareOffAdapter().capabilities.contains(.occupancySensing))
        #expect(!SquareOffAdapter().capabilities.contains(.pieceIdentity))
        #expect(!SquareOffAdapter(variant: .neo).capabilities.contains(.motorised))
    }

    @Test func decodesStartOccupancyAsReady() throws {
        let frame = "30#" + Self.startString + "*"
        #expect(Data(frame.utf8).prefix(3) == (try bytes("33 30 23")))
        #expect(decode(frame) == [.ready, .occupancy(.startingPosition)])
    }

    @Test func occupancyIsFileMajor() {
        // Only a2 occupied: file a, second character.
        let text = "01" + String(repeating: "0", count: 62)
        #expect(decode("30#" + text + "*") == [.ready, .occupancy(OccupancyMap([.a2]))])
        #expect(SquareOffWire.occupancyString(OccupancyMap([.a2])) == text)
        #expect(SquareOffWire.occupancyString(.startingPosition) == Self.startString)
    }

    @Test func decodesLiftAndPlace() throws {
        #expect(Data("0#b2u*".utf8) == (try bytes("30 23 62 32 75 2A")))
        #expect(Data("0#b2d*".utf8) == (try bytes("30 23 62 32 64 2A")))
        #expect(decode("0#b2u*0#b2d*") == [.pieceLifted(.b2), .piecePlaced(.b2, piece: nil)])
    }

    @Test func decodesBatteryReports() {
        #expect(decode("22#85*") == [.battery(percent: 85, charging: nil)])
        #expect(decode("22#85.5*") == [.battery(percent: 86, charging: nil)])
        #expect(decode("4#3752.50*") == [.battery(percent: 50, charging: nil)])
        #expect(decode("22#abc*") == [.raw(Data("22#abc*".utf8))])
    }

    @Test func newGameAckMacAndUnknownAreRaw() {
        #expect(decode("14#GO*") == [.raw(Data("14#GO*".utf8))])
        #expect(decode("1#C0:FF:EE:00:00:01*") == [.raw(Data("1#C0:FF:EE:00:00:01*".utf8))])
        #expect(decode("12-OK*") == [.raw(Data("12-OK*".utf8))])
        #expect(decode("99#x*") == [.raw(Data("99#x*".utf8))])
    }

    @Test func identicalConsecutiveMessagesGiveOneEvent() {
        let occupancy = "30#" + Self.startString + "*"
        #expect(decode(occupancy + occupancy) == [.ready, .occupancy(.startingPosition)])
        #expect(
            decode("0#e2u*0#e2u*0#e2d*0#e2u*") == [
                .pieceLifted(.e2), .piecePlaced(.e2, piece: nil), .pieceLifted(.e2),
            ])
    }

    @Test func garbageAndLineBreaksResynchronise() {
        #expect(decode("\r\n0#e2u*\r\n") == [.pieceLifted(.e2)])
        #expect(decode("xx\u{1}0#e2u*") == [.raw(Data("xx\u{1}".utf8)), .pieceLifted(.e2)])
        // Digits of garbage run into the code: the longest known suffix wins.
        #expect(
            decode("7730#" + Self.startString + "*") == [
                .raw(Data("77".utf8)), .ready, .occupancy(.startingPosition),
            ])
        #expect(decode("12#ab0#e4d*") == [.raw(Data("12#ab".utf8)), .piecePlaced(.e4, piece: nil)])
    }

    @Test func bufferIsBounded() {
        var adapter = SquareOffAdapter()
        let events = adapter.feed(bytes: Data(repeating: UInt8(ascii: "x"), count: 1000))
        #expect(adapter.bufferedByteCount < SquareOffAdapter.bufferCapacity)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { if case .raw = $0 { true } else { false } })
        #expect(adapter.feed(bytes: Data("*0#a1u*".utf8)).last == .pieceLifted(.a1))
    }

    @Test func neoBareTokens() {
        #expect(decode("e2ue4d", variant: .neo) == [.pieceLifted(.e2), .piecePlaced(.e4, piece: nil)])
        #expect(decode(Self.startString, variant: .neo) == [.ready, .occupancy(.startingPosition)])
        #expect(decode(Self.startString + Self.startString, variant: .neo) == [.ready, .occupancy(.startingPosition)])
        #expect(decode("OK", variant: .neo) == [.raw(Data("OK".utf8))])
        // Wrapped frames still work on the Neo, and bare tokens stay off inside them.
        #expect(
            decode("0#e2u*30#" + Self.startString + "*", variant: .neo) == [
                .pieceLifted(.e2), .ready, .occupancy(.startingPosition),
            ])
        // The Pro does not read bare tokens.
        #expect(decode("e2u", variant: .pro) == [])
    }

    @Test func neoMotorRoutesMatchTheCapture() {
        #expect(SquareOffWire.neoMotorRoute(from: .c7, to: .c6) == "2,6:2,4.92|")
        #expect(SquareOffWire.neoMotorRoute(from: .g8, to: .f6) == "6,7:5.5,6.5:5.5,5.5:4.92,4.92|")
        #expect(SquareOffWire.neoMotorRoute(from: .d2, to: .d4) == "3,1:3,3.08|")
        #expect(SquareOffWire.neoMotorRoute(from: .b1, to: .a1) == "1,0:-0.08,0|")
        #expect(SquareOffWire.neoMotorRoute(from: .b1, to: .d2) == "1,0:1.5,0.5:2.5,0.5:3.08,1.08|")
    }

    @Test func resetForgetsReadinessAndBuffer() {
        var adapter = SquareOffAdapter()
        _ = adapter.feed(bytes: Data(("30#" + Self.startString + "*0#e2").utf8))
        #expect(adapter.isReady)
        #expect(adapter.bufferedByteCount == 4)
        adapter.reset()
        #expect(!adapter.isReady)
        #expect(adapter.bufferedByteCount == 0)
    }
}
