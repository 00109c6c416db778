import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

@Suite struct ChessnutPersonalityTests {
    typealias Link = EmulatedLink<ChessnutAdapter, ChessnutPersonality>

    static func connected(
        model: ChessnutAdapter.Model = .classic, board: BoardSnapshot = .startingPosition, isFlipped: Bool = false
    ) -> Link {
        let personality = ChessnutPersonality(
            name: model == .move ? "Chessnut Move" : "Chessnut Air", board: board, isFlipped: isFlipped,
            options: .init(model: model))
        var link = Link(ChessnutAdapter(model: model), personality)
        link.connect()
        return link
    }

    @Test func handshakeGivesReadyAndThePosition() {
        let link = Self.connected()
        #expect(link.events.prefix(2) == [.ready, .pieces(.startingPosition)])
        #expect(link.personality.isStreaming)
        #expect(link.personality.violations.total == 0)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func physicalPlayIsReflectedAfterEveryAction(seed: UInt64) {
        var link = Self.connected()
        SampleGames.play(SampleGames.specialMoves, on: &link, style: .random, seed: seed) { link in
            #expect(link.lastPieces == link.personality.board)
        }
        #expect(link.personality.board.fenPlacement == "2kr1bnr/1p1qppp1/2npb3/1B6/P7/3P1N2/2P2P2/RNBQ2RK")
        #expect(link.personality.violations.total == 0)
    }

    @Test func streamingRepeatsProduceNoNewEvents() {
        var link = Self.connected()
        let before = link.events.count
        var streamed = 0
        for _ in 0..<20 {
            link.time += 0.1
            let frames = link.personality.tick(at: link.time)
            streamed += frames.count
            link.deliver(frames)
        }
        #expect(streamed == 20)
        #expect(link.events.count == before)
    }

    @Test func ledsAreUnderstood() {
        var link = Self.connected()
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(Set(link.personality.litSquares.keys) == [.e2, .e4])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        #expect(link.personality.violations.total == 0)
    }

    @Test func moveColourLEDsFollowTheStyle() {
        var link = Self.connected(model: .move)
        link.send(.indicate(squares: [.e2, .e4], style: .alert))
        #expect(link.personality.litSquares == [.e2: .red, .e4: .red])
        link.send(.indicate(squares: [.d4], style: .move))
        #expect(link.personality.litSquares == [.d4: .green])
        #expect(link.personality.violations.total == 0)
    }

    @Test func writesCloserThanTheFloorAreCounted() {
        var link = Self.connected()
        link.time += 1
        link.writeUnpaced(ChessnutWire.requestBattery.data)
        link.time += 0.1
        link.writeUnpaced(ChessnutWire.requestBattery.data)
        #expect(link.personality.violations.writesTooClose == 1)
        link.time += 0.2
        link.writeUnpaced(ChessnutWire.requestBattery.data)
        #expect(link.personality.violations.writesTooClose == 1)
    }

    @Test func malformedWritesAreCounted() {
        var link = Self.connected()
        link.write(Data([0x99, 0x01, 0x00]))
        link.write(Data([0x0A, 0x08, 0x00]))
        #expect(link.personality.violations.malformedCommands == 2)
    }

    @Test func batteryAndButtons() {
        var link = Self.connected()
        link.perform(.setBattery(percent: 57, charging: true))
        link.send(.requestBattery)
        #expect(link.events.last == .battery(percent: 57, charging: true))
        link.perform(.pressButton("new_game"))
        #expect(link.events.last == .button(.named("new_game")))

        var move = Self.connected(model: .move)
        move.perform(.setBattery(percent: 33, charging: false))
        move.send(.requestBattery)
        #expect(move.events.last == .battery(percent: 33, charging: false))
        #expect(move.personality.violations.total == 0)
    }

    @Test func theMoveExecutesAutoMoves() {
        var link = Self.connected(model: .move)
        link.send(.executeMove(uci: "e2e4"))
        link.send(.executeMove(uci: "e7e5"))
        link.send(.executeMove(uci: "g1f3"))
        #expect(link.personality.autoMovesExecuted == 3)
        #expect(link.personality.board.fenPlacement == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R")
        #expect(link.lastPieces == link.personality.board)
        #expect(link.personality.violations.total == 0)
    }

    @Test func aFlippedBoardReportsRotatedSquares() {
        var link = Self.connected(isFlipped: true)
        #expect(link.lastPieces == BoardSnapshot.startingPosition.rotated)
        link.perform(.lift(.e2))
        #expect(link.lastPieces == link.personality.board.rotated)
        link.send(.indicate(squares: [Square.e2.rotated], style: .move))
        #expect(Set(link.personality.litSquares.keys) == [.e2])
    }

    @Test func reconnectGivesReadyAgain() {
        var link = Self.connected()
        link.personality.linkLost()
        link.adapter.reset()
        link.perform(.lift(.e2))
        link.events = []
        link.connect(isReconnect: true)
        #expect(link.events.prefix(1) == [.ready])
        #expect(link.lastPieces == link.personality.board)
    }
}

extension Array where Element == UInt8 {
    fileprivate var data: Data { Data(self) }
}
