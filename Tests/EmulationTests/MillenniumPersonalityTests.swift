import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

@Suite struct MillenniumPersonalityTests {
    typealias Link = EmulatedLink<MillenniumAdapter, MillenniumPersonality>

    static func connected(_ personality: MillenniumPersonality = MillenniumPersonality()) -> Link {
        var link = Link(MillenniumAdapter(), personality)
        link.connect()
        return link
    }

    @Test func handshakeGivesVersionReadyAndThePosition() {
        let link = Self.connected()
        #expect(link.events == [.version("1.3"), .ready, .pieces(.startingPosition)])
        #expect(link.personality.reportMode == 4)
        #expect(link.personality.violations.total == 0)
    }

    @Test(arguments: [UInt64(6), 7])
    func physicalPlayIsReflectedAfterEveryAction(seed: UInt64) {
        var link = Self.connected()
        SampleGames.play(SampleGames.specialMoves, on: &link, style: .random, seed: seed) { link in
            #expect(link.lastPieces == link.personality.board)
        }
        #expect(link.personality.violations.total == 0)
    }

    @Test func aReversedBoardIsDetected() {
        var link = Self.connected(MillenniumPersonality(isFlipped: true))
        #expect(link.adapter.isReversed)
        #expect(link.lastPieces == .startingPosition)
        SampleGames.play(Array(SampleGames.specialMoves.prefix(8)), on: &link, style: .standard, seed: 1) { link in
            #expect(link.lastPieces == link.personality.board)
        }
        link.send(.indicate(squares: [.e2], style: .move))
        #expect(link.personality.litSquares == [.e2])
    }

    @Test func ledsAreUnderstoodWholeAndChunked() {
        var link = Self.connected()
        link.send(.indicate(squares: [.e2, .e5], style: .move))
        #expect(link.personality.litSquares == [.e2, .e5])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        let command = link.adapter.encode(.indicate(squares: [.a1, .h8], style: .hint)) ?? Data()
        link.time += 1
        for chunk in MillenniumAdapter.writeChunks(command) {
            link.deliver(link.personality.handleWrite(chunk, at: link.time))
        }
        #expect(link.personality.litSquares == [.a1, .h8])
        #expect(link.personality.violations.total == 0)
    }

    @Test func commandsCloserThan100msAreCounted() {
        var link = Self.connected()
        link.time += 1
        link.writeUnpaced(MillenniumWire.message("S"))
        link.time += 0.05
        link.writeUnpaced(MillenniumWire.message("S"))
        #expect(link.personality.violations.writesTooClose == 1)
    }

    @Test func corruptCommandsAreCounted() {
        var link = Self.connected()
        var bad = MillenniumWire.message("S")
        bad[2] = MillenniumWire.withParity(UInt8(ascii: "0"))
        link.write(bad)
        link.write(Data([UInt8(ascii: "S")]))
        link.write(MillenniumWire.message("V"))
        link.write(MillenniumWire.message("Q"))
        #expect(link.personality.violations.malformedCommands == 3)
    }

    @Test func theFactoryFloodIsDeduplicated() {
        var personality = MillenniumPersonality()
        var link = Link(MillenniumAdapter(), personality)
        link.deliver(link.personality.linkEstablished(at: 0))
        link.send(.requestState)
        let before = link.events.count
        link.run(for: 1)
        #expect(link.personality.reportMode == 0)
        #expect(link.events.count == before)
        link.perform(.lift(.e2))
        link.run(for: 0.1)
        personality = link.personality
        #expect(link.lastPieces == personality.board)
    }

    @Test func repliesWithoutParityAreAcceptedByDefault() {
        let link = Self.connected(
            MillenniumPersonality(options: .init(version: 2, versionMinor: 1, repliesWithParity: false)))
        #expect(link.events == [.version("2.1"), .ready, .pieces(.startingPosition)])
    }
}
