import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

/// The emulated Square Off against the Square Off adapter: handshake, physical play, robot
/// moves, LEDs, battery.
@Suite struct SquareOffPersonalityTests {
    typealias Link = ChessUpSquareOffLink<SquareOffPersonality, SquareOffAdapter>

    private func connectedLink(
        _ variant: SquareOffAdapter.Variant = .pro, board: BoardSnapshot = .startingPosition, flipped: Bool = false
    ) -> Link {
        var link = Link(
            SquareOffPersonality(board: board, isFlipped: flipped, options: .init(variant: variant)),
            SquareOffAdapter(variant: variant))
        link.connect()
        return link
    }

    /// The sensor events a sequence of hand actions should produce.
    private func expectedEvents(_ actions: [PhysicalAction], on board: BoardSnapshot) -> [BoardEvent] {
        var board = board
        var events: [BoardEvent] = []
        for action in actions {
            switch action {
            case .lift(let square), .knockOver(let square):
                if board[square] != nil { events.append(.pieceLifted(square)) }
                board[square] = nil
            case .place(let piece, let square):
                if board[square] == nil { events.append(.piecePlaced(square, piece: nil)) }
                board[square] = piece
            case .setBattery, .pressButton:
                break
            }
        }
        return events
    }

    private func sensorEvents(_ events: [BoardEvent]) -> [BoardEvent] {
        events.filter {
            switch $0 {
            case .pieceLifted, .piecePlaced: true
            default: false
            }
        }
    }

    @Test(arguments: SquareOffAdapter.Variant.allCases)
    func handshakeIsExactAndGivesReady(variant: SquareOffAdapter.Variant) {
        var link = Link(SquareOffPersonality(options: .init(variant: variant)), SquareOffAdapter(variant: variant))
        link.connect()
        #expect(link.writes == [Data("14#1*".utf8), Data("30#R*".utf8)])
        #expect(link.time == 0.4)
        #expect(link.events.contains(.ready))
        #expect(link.events.last == .occupancy(.startingPosition))
        #expect(link.personality.newGameCount == 1)
        #expect(link.personality.violations == ProtocolViolations())
        #expect(link.personality.profile == SquareOffAdapter.profile(for: variant))
        if variant == .pro {
            #expect(link.notifications.first == Data("14#GO*".utf8))
        } else {
            #expect(link.notifications.first == Data(String(repeating: "11000011", count: 8).utf8))
        }
    }

    @Test func reconnectDoesNotStartANewGame() {
        var link = connectedLink()
        link.disconnect()
        link.adapter.reset()
        link.writes.removeAll()
        link.events.removeAll()
        link.connect(isReconnect: true)
        #expect(link.writes == [Data("30#R*".utf8)])
        #expect(link.personality.newGameCount == 1)
        #expect(link.events == [.ready, .occupancy(.startingPosition)])
    }

    @Test(arguments: SquareOffAdapter.Variant.allCases)
    func handPlayArrivesAsLiftsAndPlacements(variant: SquareOffAdapter.Variant) throws {
        var link = connectedLink(variant)
        link.events.removeAll()
        var generator = SeededGenerator(seed: 5)
        var expected: [BoardEvent] = []
        let game = [
            "e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7d6", "g1f3", "f8e7", "f1c4", "e8g8",
            "e1g1", "b8c6", "b2b4", "a7a5", "b4a5", "c8d7", "a5a6", "d8c8", "a6b7", "a8a7",
            "b7c8n", "d7c8",
        ]
        for uci in game {
            let move = try #require(BoardMove(uci: uci))
            let actions = HumanMoves.actions(for: move, on: link.personality.board, style: .random, using: &generator)
            expected += expectedEvents(actions, on: link.personality.board)
            link.perform(actions)
        }
        #expect(sensorEvents(link.events) == expected)
        link.send(.requestState)
        #expect(link.events.last == .occupancy(link.personality.board.occupancy))
    }

    @Test func robotExecutesMoves() throws {
        var link = connectedLink()
        link.events.removeAll()
        let sent = link.send(.executeMove(uci: "e2e4"))
        #expect(sent)
        #expect(link.events == [.pieceLifted(.e2), .piecePlaced(.e4, piece: nil)])
        #expect(link.personality.board[.e4] == Piece(.white, .pawn))
        link.write(Data("24#d7,d5*".utf8))
        link.events.removeAll()
        link.send(.executeMove(uci: "e4d5"))
        #expect(link.events == [.pieceLifted(.d5), .pieceLifted(.e4), .piecePlaced(.d5, piece: nil)])
        #expect(link.personality.executedMoves.map(\.uci) == ["e2e4", "d7d5", "e4d5"])
        #expect(link.personality.board.occupancy.count == 31)
        #expect(link.personality.violations.malformedCommands == 0)
    }

    @Test func robotCastlesTakesEnPassantAndPromotes() throws {
        let position = try #require(BoardSnapshot(fenPlacement: "4k3/1P6/8/3pP3/8/8/8/4K2R"))
        var link = connectedLink(board: position)
        link.send(.executeMove(uci: "e1g1"))
        #expect(link.personality.board[.g1] == Piece(.white, .king))
        #expect(link.personality.board[.f1] == Piece(.white, .rook))
        link.send(.executeMove(uci: "e5d6"))
        #expect(link.personality.board[.d5] == nil)
        #expect(link.personality.board[.d6] == Piece(.white, .pawn))
        link.send(.executeMove(uci: "b7b8n"))
        #expect(link.personality.board[.b8] == Piece(.white, .knight))
        #expect(link.personality.violations.malformedCommands == 0)
    }

    @Test func neoCannotBeAskedToMove() {
        var link = connectedLink(.neo)
        let sent = link.send(.executeMove(uci: "e2e4"))
        #expect(!sent)
        link.write(Data("0#e2e4*".utf8))
        #expect(link.personality.violations.malformedCommands == 1)
        #expect(link.personality.board == .startingPosition)
    }

    @Test func lightsFollowIndications() {
        var link = connectedLink()
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(link.personality.litSquares == [.e2, .e4])
        link.send(.clearIndications)
        #expect(link.personality.litSquares.isEmpty)
        link.write(Data("26#ISG*\r\n".utf8))
        link.write(Data("27#ck*".utf8))
        link.write(Data("!#*".utf8))
        #expect(link.personality.statusLED == "ISG")
        #expect(link.personality.gameEndSignal == "ck")
        #expect(link.personality.violations.malformedCommands == 0)
    }

    @Test(arguments: SquareOffAdapter.Variant.allCases)
    func batteryIsReported(variant: SquareOffAdapter.Variant) {
        var link = connectedLink(variant)
        link.perform([.setBattery(percent: 55, charging: false)])
        link.send(.requestBattery)
        #expect(link.events.last == .battery(percent: 55, charging: nil))
        #expect(link.personality.batteryPercent == 55)
    }

    @Test func macAddressAndChunkedWrites() {
        var link = connectedLink()
        link.write(Data("\r\n1#".utf8))
        link.write(Data("*".utf8))
        #expect(link.notifications.last == Data("1#C0:FF:EE:00:00:01*".utf8))
        link.write(Data("30#".utf8))
        link.write(Data("R*\r\n".utf8))
        #expect(link.notifications.last == Data(("30#" + String(repeating: "11000011", count: 8) + "*").utf8))
        #expect(link.personality.violations.malformedCommands == 0)
    }

    @Test func malformedCommandsAreCounted() {
        var link = connectedLink()
        for command in ["99#x*", "25#e9*", "25#e*", "0#zz*", "14#*", "26#XX*", "4#1*", "x*", "30#R2*"] {
            link.write(Data(command.utf8))
        }
        link.write(Data(repeating: UInt8(ascii: "7"), count: 300))
        #expect(link.personality.violations.malformedCommands == 10)
    }

    @Test func neoStreamsItsOccupancy() {
        var link = connectedLink(.neo)
        link.events.removeAll()
        link.advance(by: 3)
        #expect(link.events.isEmpty, "the same occupancy again is no news")
        link.perform([.lift(.e2)])
        #expect(link.events == [.pieceLifted(.e2)])
        link.advance(by: 1.5)
        var lifted = OccupancyMap.startingPosition
        lifted.remove(.e2)
        #expect(link.events.last == .occupancy(lifted))
        link.perform([.place(Piece(.white, .pawn), on: .e4)])
        #expect(link.events.last == .piecePlaced(.e4, piece: nil))
    }

    @Test func flippedBoardRotatesTheWire() {
        var link = connectedLink(flipped: true)
        link.perform([.lift(.e2)])
        #expect(link.notifications.last == Data("0#d7u*".utf8))
        #expect(link.events.last == .pieceLifted(.d7))
        link.send(.indicate(squares: [.d7], style: .highlight))
        #expect(link.personality.litSquares == [.e2])
    }

    @Test func nothingIsSentWithoutALink() {
        var personality = SquareOffPersonality()
        #expect(personality.perform(.lift(.e2), at: 0).isEmpty)
        #expect(personality.handleWrite(Data("30#R*".utf8), at: 0).isEmpty)
        #expect(personality.board[.e2] == nil)
        #expect(personality.tickInterval == nil)
    }
}
