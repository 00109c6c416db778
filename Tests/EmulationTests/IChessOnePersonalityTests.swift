import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

@Suite struct IChessOnePersonalityTests {
    typealias Link = EmulatedLink<IChessOneAdapter, IChessOnePersonality>

    static func connected(_ personality: IChessOnePersonality = IChessOnePersonality()) -> Link {
        var link = Link(IChessOneAdapter(), personality)
        link.connect()
        return link
    }

    @Test func handshakeGivesReadyThePositionAndTheBattery() {
        let link = Self.connected()
        #expect(link.events == [.ready, .pieces(.startingPosition), .battery(percent: 100, charging: false)])
        #expect(link.personality.reportsChanges)
        #expect(link.personality.violations.total == 0)
    }

    @Test(arguments: [UInt64(8), 9])
    func physicalPlayIsReflectedAfterEveryAction(seed: UInt64) {
        var link = Self.connected()
        SampleGames.play(SampleGames.specialMoves, on: &link, style: .random, seed: seed) { link in
            #expect(link.lastPieces == link.personality.board)
        }
        #expect(link.personality.violations.total == 0)
    }

    @Test func aPositionIsTwoNotificationsAtTheDefaultMTU() {
        let personality = IChessOnePersonality()
        #expect(personality.positionReport().map(\.count) == [20, 14])
    }

    @Test func reportsStopWithTheLinkUntilTheHostAsksAgain() {
        var personality = IChessOnePersonality()
        _ = personality.handleWrite(Data("CPIRQ".utf8), at: 0)
        #expect(!personality.perform(.lift(.e2), at: 1).isEmpty)
        personality.linkLost()
        #expect(personality.perform(.place(Piece(.white, .pawn), on: .e4), at: 2).isEmpty)
        #expect(personality.handleWrite(Data("RP".utf8), at: 3) == personality.positionReport())
    }

    @Test func ledsTakeTheirSquaresAndColour() {
        var link = Self.connected()
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(link.personality.litSquares == [.e2, .e4])
        #expect(link.personality.ledColour == IChessOneWire.colour(for: .move))
        link.send(.indicate(squares: [.g1], style: .alert))
        #expect(link.personality.litSquares == [.g1])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        #expect(link.personality.violations.total == 0)
    }

    @Test func commandsTogetherInOneWriteOrCutAcrossTwoAreEachTakenOnce() {
        var personality = IChessOnePersonality()
        let both = Data("RB".utf8) + Data("RP".utf8)
        #expect(personality.handleWrite(both.prefix(3), at: 0).count == 1)
        #expect(personality.handleWrite(both.dropFirst(3), at: 1).count == 2)
        #expect(personality.violations.writesTooClose == 0)
    }

    @Test func unknownAndTooCloseCommandsAreCounted() {
        var personality = IChessOnePersonality()
        _ = personality.handleWrite(Data("QQ".utf8), at: 0)
        #expect(personality.violations.malformedCommands == 2)
        _ = personality.handleWrite(Data("RP".utf8), at: 1)
        _ = personality.handleWrite(Data("RB".utf8), at: 1.05)
        #expect(personality.violations.writesTooClose == 1)
    }

    @Test func aBoardTurnedRoundReportsItsSquaresTurnedRound() {
        let link = Self.connected(IChessOnePersonality(isFlipped: true))
        #expect(link.lastPieces == BoardSnapshot.startingPosition.rotated)
    }
}
