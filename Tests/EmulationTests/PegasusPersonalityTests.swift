import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

@Suite struct PegasusPersonalityTests {
    typealias Link = EmulatedLink<PegasusAdapter, PegasusPersonality>

    static func link(
        key: Data? = PegasusAdapter.defaultDeveloperKey, personality: PegasusPersonality = PegasusPersonality()
    ) throws -> Link {
        var link = Link(try PegasusAdapter(developerKey: key), personality)
        link.connect()
        return link
    }

    @Test func handshakeUnlocksAndReportsTheBoard() throws {
        let link = try Self.link()
        #expect(link.events.contains(.ready))
        #expect(link.events.contains(.version("1.0")))
        #expect(link.events.contains(.occupancy(.startingPosition)))
        #expect(link.events.contains(.battery(percent: 100, charging: nil)))
        #expect(link.adapter.isUnlocked == true)
        #expect(link.personality.isUnlocked && link.personality.sendsUpdates)
        #expect(link.personality.violations.total == 0)
    }

    @Test(arguments: [UInt64(4), 5])
    func physicalPlayIsReflectedAfterEveryAction(seed: UInt64) throws {
        var link = try Self.link()
        SampleGames.play(SampleGames.specialMoves, on: &link, style: .random, seed: seed) { link in
            #expect(link.foldedOccupancy == link.personality.board.occupancy)
        }
        #expect(link.adapter.occupancy == link.personality.board.occupancy)
        #expect(link.personality.violations.total == 0)
    }

    @Test func aWrongKeyKeepsTheBoardLocked() throws {
        var link = try Self.link(key: PegasusAdapter.alternateDeveloperKey)
        #expect(!link.events.contains(.ready))
        #expect(!link.events.contains { if case .occupancy = $0 { true } else { false } })
        #expect(link.events.filter { if case .handshakeFailed = $0 { true } else { false } }.count == 1)
        #expect(link.events.contains(.handshakeFailed(reason: "the board rejected the developer key")))
        #expect(link.adapter.isUnlocked == false)
        #expect(link.personality.violations.commandsBeforeUnlock > 0)
        let count = link.events.count
        link.perform(.lift(.e2))
        #expect(link.events.count == count)
    }

    @Test func noKeyKeepsTheBoardLocked() throws {
        let link = try Self.link(key: nil)
        #expect(!link.events.contains(.ready))
        #expect(link.personality.violations.commandsBeforeUnlock >= 4)
    }

    @Test func anUnlockedFirmwareNeedsNoKey() throws {
        let personality = PegasusPersonality(options: .init(acceptedDeveloperKeys: nil))
        let link = try Self.link(key: nil, personality: personality)
        #expect(link.events.contains(.ready))
        #expect(link.personality.violations.total == 0)
    }

    @Test func ledsLightAndClearThemselvesOnChange() throws {
        var link = try Self.link()
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(link.personality.litSquares == [.e2, .e4])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        link.send(.indicate(squares: [.e2, .e4], style: .hint))
        link.perform(.lift(.e2))
        #expect(link.personality.litSquares.isEmpty)
        #expect(link.personality.violations.total == 0)
    }

    @Test func aFlippedBoardReportsRotatedOccupancy() throws {
        var board = BoardSnapshot.startingPosition
        board[.e2] = nil
        var link = try Self.link(personality: PegasusPersonality(board: board, isFlipped: true))
        #expect(link.adapter.occupancy == board.occupancy.rotated)
        link.perform(.lift(.d2))
        #expect(link.events.last == .pieceLifted(Square.d2.rotated))
    }

    @Test func wholeNotificationsWorkToo() throws {
        let personality = PegasusPersonality(options: .init(notificationLimit: nil))
        let link = try Self.link(personality: personality)
        #expect(link.events.contains(.occupancy(.startingPosition)))
    }
}
