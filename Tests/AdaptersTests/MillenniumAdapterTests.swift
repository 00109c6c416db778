import Adapters
import BoardKit
import Foundation
import TestSupport
import Testing

/// Golden vectors from board-protocols.md §5.6 / §10, framing, orientation, LEDs.
@Suite struct MillenniumAdapterTests {
    static let startText = "srnbqkbnrpppppppp" + String(repeating: ".", count: 32) + "PPPPPPPPRNBQKBNR"
    static let startWire = Data(
        hex: "73 F2 6E 62 F1 6B 62 6E F2" + String(repeating: " 70", count: 8) + String(repeating: " AE", count: 32)
            + String(repeating: " D0", count: 8) + " 52 CE C2 51 CB C2 CE 52 37 B3")!
    static let reversedWire = Data(
        hex: "73 52 CE C2 CB 51 C2 CE 52" + String(repeating: " D0", count: 8) + String(repeating: " AE", count: 32)
            + String(repeating: " 70", count: 8) + " F2 6E 62 6B F1 62 6E F2 37 B3")!

    @Test func encodesCommandVectors() {
        let adapter = MillenniumAdapter()
        #expect(MillenniumWire.message("V") == Data(hex: "D6 B5 B6"))
        #expect(adapter.encode(.requestState) == Data(hex: "D3 B5 B3"))
        #expect(adapter.encode(.clearIndications) == Data(hex: "58 B5 38"))
        #expect(MillenniumWire.message("T") == Data(hex: "54 B5 34"))
        #expect(adapter.encode(.startSession) == Data(hex: "57 B0 32 B0 34 B5 31"))
        #expect(MillenniumWire.message("R02") == Data(hex: "52 B0 32 B5 B0"))
        #expect(adapter.encode(.requestBattery) == nil)
        #expect(adapter.encode(.executeMove(uci: "e2e4")) == nil)
        #expect(adapter.encode(.custom(Data([1, 2]))) == Data([1, 2]))
        #expect(MillenniumWire.text(Data(hex: "57 B0 32 B0 34 B5 31")!) == "W020451")
    }

    @Test func decodesTheVersionReply() {
        var adapter = MillenniumAdapter()
        let reply = Data(hex: "76 B0 31 B0 B3 37 34")!
        #expect(MillenniumWire.message("v0103") == reply)
        #expect(adapter.feed(bytes: reply) == [.version("1.3")])
    }

    @Test func decodesTheStartStatus() {
        var adapter = MillenniumAdapter()
        #expect(MillenniumWire.message(Self.startText) == Self.startWire)
        #expect(adapter.feed(bytes: Self.startWire) == [.ready, .pieces(.startingPosition)])
        #expect(!adapter.isReversed)
        #expect(adapter.feed(bytes: Self.startWire).isEmpty)
    }

    @Test func detectsAReversedBoardFromTheStartPosition() throws {
        var adapter = MillenniumAdapter()
        let reversedText = "s" + String(Self.startText.dropFirst().reversed())
        #expect(MillenniumWire.message(reversedText) == Self.reversedWire)
        #expect(adapter.feed(bytes: Self.reversedWire) == [.ready, .pieces(.startingPosition)])
        #expect(adapter.isReversed)
        // Later positions keep the detected orientation: 1.e4 on the reversed board.
        var position = BoardSnapshot.startingPosition
        position[.e2] = nil
        position[.e4] = Piece(.white, .pawn)
        let text = "s" + String(MillenniumWire.statusCharacters(position.rotated).map { Character(UnicodeScalar($0)) })
        #expect(adapter.feed(bytes: MillenniumWire.message(text)) == [.pieces(position)])
        // A fixed orientation never switches.
        var fixed = MillenniumAdapter(orientation: .standard)
        #expect(fixed.feed(bytes: Self.reversedWire) == [.ready, .pieces(BoardSnapshot.startingPosition.rotated)])
        #expect(!fixed.isReversed)
    }

    @Test func encodesLEDVectors() throws {
        var adapter = MillenniumAdapter()
        let e2 = try #require(adapter.encode(.indicate(squares: [.e2], style: .move)))
        #expect(e2.count == 167)
        #expect(Array(e2.suffix(2)) == [0xB3, 0xC1])
        let text = MillenniumWire.text(e2)
        #expect(text.hasPrefix("L0F"))
        let patterns = Array(text.dropFirst(3).prefix(162))
        for led in 1...81 {
            let pair = String(patterns[(led - 1) * 2..<led * 2])
            #expect(pair == ([43, 44, 52, 53].contains(led) ? "FF" : "00"), "LED \(led)")
        }
        #expect(MillenniumWire.leds(for: .a8) == [1, 2, 10, 11])
        #expect(MillenniumWire.leds(for: .h1) == [71, 72, 80, 81])
        let allOff = MillenniumAdapter(ledSlotTime: 0x32).encode(.indicate(squares: [], style: .move))
        #expect(allOff?.prefix(5) == Data(hex: "4C B3 32 B0 B0"))
        #expect(allOff.map { MillenniumWire.text($0).suffix(2) } == "4D")
        // Reversed: LED n becomes 82 − n.
        _ = adapter.feed(bytes: Self.reversedWire)
        let flipped = MillenniumWire.text(try #require(adapter.encode(.indicate(squares: [.e2], style: .move))))
        let flippedPatterns = Array(flipped.dropFirst(3).prefix(162))
        for led in [43, 44, 52, 53] {
            #expect(String(flippedPatterns[(81 - led) * 2..<(82 - led) * 2]) == "FF")
        }
    }

    @Test func chunksLongWrites() {
        let payload = Data(0..<167)
        let chunks = MillenniumAdapter.writeChunks(payload)
        #expect(chunks.count == 9)
        #expect(chunks.allSatisfy { $0.count <= 20 })
        #expect(chunks.reduce(Data(), +) == payload)
    }

    @Test func acksProduceNoEventsAndRepliesAreMatchedByLetter() {
        var adapter = MillenniumAdapter()
        var stream = MillenniumWire.message("l") + MillenniumWire.message("x") + MillenniumWire.message("w0204")
        stream += Self.startWire + MillenniumWire.message("r0214")
        let readReply = Data(MillenniumWire.text(MillenniumWire.message("r0214")).utf8)
        #expect(adapter.feed(bytes: stream) == [.ready, .pieces(.startingPosition), .raw(readReply)])
    }

    @Test func parityIsCheckedOnlyWhenAsked() {
        var strict = MillenniumAdapter(checksParity: true)
        var lenient = MillenniumAdapter()
        let plain = Data(MillenniumWire.message("v0103").map { $0 & 0x7F })
        #expect(lenient.feed(bytes: plain) == [.version("1.3")])
        #expect(!strict.feed(bytes: plain).contains(.version("1.3")))
        #expect(strict.feed(bytes: MillenniumWire.message("v0103")) == [.raw(plain), .version("1.3")])
    }

    @Test func everySplitGivesTheSameEvents() {
        var stream = MillenniumWire.message("v0103") + Self.startWire + Data(hex: "73 F2 00 FF")!
        stream += MillenniumWire.message("l") + Self.reversedWire + MillenniumWire.message("x")
        let result = FramingVerifier.verify(MillenniumAdapter(), stream, seeds: Array(1...20))
        #expect(result.mismatch == nil)
        #expect(result.events.first == .version("1.3"))
    }

    @Test func aBadChecksumIsGarbage() {
        var adapter = MillenniumAdapter()
        var wire = Self.startWire
        wire[wire.count - 1] = MillenniumWire.withParity(UInt8(ascii: "4"))
        let events = adapter.feed(bytes: wire)
        #expect(!events.contains { if case .pieces = $0 { true } else { false } })
        #expect(adapter.feed(bytes: Self.startWire).contains(.pieces(.startingPosition)))
    }

    @Test func profileAndPacing() {
        let adapter = MillenniumAdapter()
        #expect(MillenniumAdapter.profile.serviceUUID == "49535343-fe7d-4ae5-8fa9-9fafd205e455")
        #expect(MillenniumAdapter.profile.notifyCharacteristicUUIDs == ["49535343-1e4d-4bd9-ba61-23c647249616"])
        #expect(MillenniumAdapter.profile.writeCharacteristicUUID == "49535343-8841-43f4-a8d4-ecbe34729bb3")
        #expect(MillenniumAdapter.profile.matches(name: "MILLENNIUM CHESS", serviceUUIDs: []))
        #expect(adapter.minimumWriteInterval >= 0.1)
        let fresh = adapter.handshakeCommands(isReconnect: false)
        #expect(fresh.map(\.command) == [.custom(MillenniumWire.message("V")), .startSession, .requestState])
        #expect(
            adapter.handshakeCommands(isReconnect: true).map(\.command) == [
                .custom(MillenniumWire.message("V")), .requestState,
            ])
    }

    @Test(arguments: [UInt64(31)])
    func survivesAMillionRandomBytes(seed: UInt64) {
        var adapter = MillenniumAdapter(orientation: .standard)
        let outcome = AdapterFuzz.run(
            &adapter, seed: seed, bufferedByteCount: { $0.bufferedByteCount },
            frame: { generator in
                let board = AdapterFuzz.randomBoard(using: &generator)
                let text = Array("s".utf8) + MillenniumWire.statusCharacters(board)
                return (MillenniumWire.message(text), .pieces(board))
            })
        #expect(outcome.largestBuffer <= MillenniumAdapter.maximumFrameLength + MillenniumAdapter.maximumGarbageChunk)
        #expect(outcome.expectedFound == outcome.expected.count)
    }
}
