import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

/// The emulated ChessUp against the ChessUp adapter: handshake, physical play, acks and
/// retransmissions, host commands.
@Suite struct ChessUpPersonalityTests {
    typealias Link = ChessUpSquareOffLink<ChessUpPersonality, ChessUpAdapter>

    private func connectedLink(
        options: ChessUpPersonality.Options = .init(), flipped: Bool = false
    ) -> Link {
        var link = Link(ChessUpPersonality(isFlipped: flipped, options: options), ChessUpAdapter())
        link.connect()
        return link
    }

    /// Plays `ucis` on the physical board the way a person does.
    private func play(
        _ ucis: [String], on link: inout Link, style: HumanMoveStyle = .standard, seed: UInt64 = 1
    ) throws {
        var generator = SeededGenerator(seed: seed)
        for uci in ucis {
            let move = try #require(BoardMove(uci: uci))
            let actions = HumanMoves.actions(for: move, on: link.personality.board, style: style, using: &generator)
            #expect(!actions.isEmpty, "\(uci)")
            link.perform(actions)
        }
    }

    private func moves(_ ucis: [String]) -> [BoardMove] { ucis.compactMap { BoardMove(uci: $0) } }

    @Test func handshakeOpensSessionAndGivesReady() {
        let link = connectedLink()
        #expect(link.events.first == .version("ChessUp 2"))
        #expect(link.events.contains(.ready))
        #expect(link.events.last { if case .pieces = $0 { true } else { false } } == .pieces(.startingPosition))
        // The handshake's last step switches the occupancy stream on; the board answers with it.
        #expect(link.events.last == .occupancy(.startingPosition))
        #expect(link.personality.streamsOccupancy)
        #expect(link.personality.isSessionOpen)
        #expect(link.personality.sessionOpenCount == 1)
        #expect(link.writes.first == ChessUpWire.sessionOpenFrame)
        #expect(link.personality.violations == ProtocolViolations())
    }

    @Test func generationNamesTheModel() {
        var link = Link(ChessUpPersonality(options: .init(generation: .gen1)), ChessUpAdapter())
        link.connect()
        #expect(link.events.first == .version("ChessUp"))
        #expect(link.personality.profile == ChessUpAdapter.profile)
        #expect(link.personality.family == .chessUp)
    }

    @Test func reconnectDoesNotReopenTheSession() throws {
        var link = connectedLink()
        try play(["e2e4"], on: &link)
        link.disconnect()
        link.adapter.reset()
        link.events.removeAll()
        let writesBefore = link.writes.count
        link.connect(isReconnect: true)
        #expect(!link.writes[writesBefore...].contains(ChessUpWire.sessionOpenFrame))
        #expect(link.personality.sessionOpenCount == 1)
        #expect(link.events.contains(.ready))
        var afterE4 = BoardSnapshot.startingPosition
        afterE4[.e2] = nil
        afterE4[.e4] = Piece(.white, .pawn)
        #expect(
            link.events.last { if case .pieces = $0 { true } else { false } } == .pieces(afterE4), "the game went on")
        #expect(link.events.last == .occupancy(afterE4.occupancy), "the stream is on again")
    }

    @Test func noMovesWithoutASession() throws {
        var link = Link(ChessUpPersonality(), ChessUpAdapter())
        link.deliver(link.personality.linkEstablished(at: 0))
        try play(["e2e4", "e7e5"], on: &link)
        #expect(link.reportedMoves.isEmpty)
        #expect(!link.notifications.contains { $0.first == ChessUpWire.moveOpcode })
    }

    @Test func physicalPlayReportsMovesAndAcksStopRetransmission() throws {
        var link = connectedLink()
        let game = ["e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8d2", "b1d2", "b7c6"]
        try play(game, on: &link, style: .random, seed: 3)
        link.advance(by: 5)
        #expect(link.reportedMoves == moves(game))
        #expect(link.personality.unacknowledgedFrameCount == 0)
        #expect(link.personality.violations.missingAcks == 0)
        #expect(link.writes.filter { $0 == Data([0x21]) }.count == game.count)
        #expect(link.personality.violations == ProtocolViolations())
    }

    @Test func unacknowledgedMovesAreRetransmittedUntilTheLinkDrops() throws {
        var link = connectedLink(options: .init(retransmitInterval: 0.3, floodLimit: 40))
        link.writesResponses = false
        try play(["e2e4", "e7e5"], on: &link)
        link.advance(by: 1.0)
        let e4 = ChessUpWire.moveFrame(from: .e2, to: .e4)
        let e5 = ChessUpWire.moveFrame(from: .e7, to: .e5)
        let sent = link.notifications.filter { $0.first == ChessUpWire.moveOpcode }
        #expect(sent.filter { $0 == e4 }.count >= 3)
        #expect(sent.filter { $0 == e5 }.count >= 3)
        #expect(link.personality.violations.missingAcks == sent.count - 2)
        #expect(link.reportedMoves == moves(["e2e4", "e7e5"]), "retransmissions are no new moves")
        #expect(!link.personality.wantsToDropLink)
        link.advance(by: 10)
        #expect(link.personality.wantsToDropLink)
        // Acks that finally come stop the wave.
        _ = link.personality.handleWrite(Data([0x21, 0x21]), at: link.time)
        #expect(link.personality.unacknowledgedFrameCount == 0)
    }

    @Test func realGameIsReproducedByteForByte() throws {
        // The 90 plies of the real capture, played by hand on the emulated board, give the
        // very frames the real board sent (touch frames aside).
        let frames = ChessUpRealGameFrames.wireFrames
        var ucis: [String] = []
        for (index, hex) in ChessUpRealGameFrames.moveFrames.enumerated() {
            let frame = try #require(Data(hex: hex))
            let move = try #require(ChessUpWire.move(frame: frame))
            ucis.append(move.uci + (index == ChessUpRealGameFrames.promotionPly ? "q" : ""))
        }
        for style in [HumanMoveStyle.standard, .random] {
            var link = connectedLink()
            try play(ucis, on: &link, style: style, seed: 11)
            let sent = link.notifications.filter { $0.first == 0xA3 || $0.first == 0x97 }
            #expect(sent == frames)
            #expect(link.reportedMoves == moves(ucis))
            #expect(link.personality.violations.missingAcks == 0)
        }
    }

    @Test func castlingEnPassantAndPromotionInEveryHandOrder() throws {
        let game = [
            "e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7d6", "g1f3", "f8e7", "f1c4", "e8g8",
            "e1g1", "b8c6", "b2b4", "a7a5", "b4a5", "c8d7", "a5a6", "d8c8", "a6b7", "a8a7",
            "b7c8n", "d7c8",
        ]
        for seed in UInt64(1)...12 {
            var link = connectedLink()
            try play(game, on: &link, style: .random, seed: seed)
            link.advance(by: 2)
            #expect(link.reportedMoves == moves(game), "seed \(seed)")
            #expect(link.personality.violations == ProtocolViolations())
        }
    }

    @Test func rookMoveThatCouldStartCastlingIsReportedAfterTheGrace() throws {
        var link = connectedLink()
        try play(["g1f3", "g8f6", "e2e3", "e7e6", "f1e2", "f8e7"], on: &link)
        link.perform([.lift(.h1), .place(Piece(.white, .rook), on: .f1)])
        #expect(link.reportedMoves.count == 6, "waits: this may be castling rook-first")
        link.advance(by: 1.5)
        #expect(link.reportedMoves.last == BoardMove(from: .h1, to: .f1))
    }

    @Test func rookMoveIsReportedWhenTheOpponentMoves() throws {
        var link = connectedLink()
        try play(["g1f3", "g8f6", "e2e3", "e7e6", "f1e2", "f8e7", "h1f1", "b8c6"], on: &link)
        #expect(link.reportedMoves.map(\.uci).suffix(2) == ["h1f1", "b8c6"])
    }

    @Test func promotionPickFollowsThePlacedPieceOrTheDefault() throws {
        let opening = ["a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6b7", "b8c6"]
        var link = connectedLink(options: .init(defaultPromotion: .rook))
        try play(opening, on: &link)
        link.perform([.lift(.a8), .lift(.b7), .place(Piece(.white, .pawn), on: .a8)])
        #expect(link.reportedMoves.last == BoardMove(from: .b7, to: .a8, promotion: .rook))
        #expect(link.notifications.last == Data([0x97, 0x01]))
        #expect(link.personality.gameState.pieces[.a8] == Piece(.white, .rook))
    }

    @Test func illegalOrIncompleteHandlingReportsNothing() throws {
        var link = connectedLink()
        link.perform([.lift(.e7), .place(Piece(.black, .pawn), on: .e5)])  // not Black's turn
        link.perform([.lift(.e5), .place(Piece(.black, .pawn), on: .e7)])  // put back
        link.perform([.lift(.g1), .place(Piece(.white, .knight), on: .g3)])  // no knight move
        link.perform([.lift(.g3), .place(Piece(.white, .knight), on: .g1)])
        link.perform([.lift(.e2)])
        #expect(link.reportedMoves.isEmpty)
        link.perform([.place(Piece(.white, .pawn), on: .e4)])
        #expect(link.reportedMoves == moves(["e2e4"]))
    }

    /// Issue #30 (4): the board's own engine refuses a move that leaves its king in check
    /// (the emulation accepted a pinned pawn's step, as it only checked how pieces move).
    @Test func aMoveIntoCheckIsRefusedByTheBoardsEngine() throws {
        let fen = "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1"
        let pieces = try #require(BoardSnapshot(fenPlacement: "4k3/8/8/8/1b6/8/3P4/4K3"))
        var link = Link(ChessUpPersonality(board: pieces), ChessUpAdapter())
        link.connect()
        let body = Data(("/" + fen.split(separator: " ").prefix(4).joined(separator: " ") + " ").utf8) + Data([0, 1])
        link.write(Data([0x66]) + body)
        #expect(link.personality.gameState.pieces == pieces)
        // d2 is pinned by the bishop on b4: d2d3 would leave the king in check.
        link.perform([.lift(.d2), .place(Piece(.white, .pawn), on: .d3)])
        #expect(link.reportedMoves.isEmpty)
        link.perform([.lift(.d3), .place(Piece(.white, .pawn), on: .d2)])
        link.perform([.lift(.e1), .place(Piece(.white, .king), on: .f1)])
        #expect(link.reportedMoves == moves(["e1f1"]))
    }

    /// A hand on a piece gives `B8`, its release `BB`; the occupancy stream (on since the
    /// handshake) follows each; a completed move is reported last.
    @Test func touchFramesAccompanyHandMovements() {
        var link = connectedLink()
        var before = link.notifications.count
        link.perform([.lift(.e2)])
        #expect(link.notifications[before...].map { $0.first } == [0xB8, 0xFD])
        #expect(link.notifications[before] == Data([0xB8, 0x0C, 0x00]))
        before = link.notifications.count
        link.perform([.place(Piece(.white, .pawn), on: .e4)])
        #expect(link.notifications[before...].map { $0.first } == [0xBB, 0xFD, 0xA3])
        var quiet = Link(ChessUpPersonality(options: .init(sendsTouchEvents: false)), ChessUpAdapter())
        quiet.connect()
        before = quiet.notifications.count
        quiet.perform([.lift(.e2)])
        #expect(quiet.notifications[before...].map { $0.first } == [0xFD])
    }

    @Test func hostCommandsAreAnswered() throws {
        var link = connectedLink()
        link.write(Data([0x67, 0x00]))
        #expect(link.notifications.last?.count == 73)
        link.write(Data([0x99, 0x0C, 0x1C]))
        #expect(link.notifications.last == Data([0x22]))
        #expect(link.personality.shownMove == BoardMove(from: .e2, to: .e4))
        link.write(Data([0x97, 0x04]))
        #expect(link.notifications.last == Data([0x23]))
        link.write(Data([0xB0]))
        #expect(link.notifications.last == Data([0xB0, 0x01]))
        link.write(Data([0x50]))
        #expect(link.events.last == .occupancy(.startingPosition))
        link.perform([.lift(.e2)])
        var lifted = OccupancyMap.startingPosition
        lifted.remove(.e2)
        #expect(link.events.contains(.occupancy(lifted)))
        link.write(Data([0x52, 0x0B, 0xB6, 0x00, 0x64, 0xCA]))
        #expect(link.personality.violations.malformedCommands == 0)
        #expect(
            ChessUpAdapter(showsMoves: true).encode(.indicate(squares: [.e2, .e4], style: .move))
                == Data([0x99, 0x0C, 0x1C]))
    }

    @Test func loadPositionGoldenVector() throws {
        // The 57-byte FEN-load of the start position (reference §2.6).
        let frame = try #require(
            Data(
                hex: "66 2F 72 6E 62 71 6B 62 6E 72 2F 70 70 70 70 70 70 70 70 2F 38 2F 38 2F 38 2F 38"
                    + " 2F 50 50 50 50 50 50 50 50 2F 52 4E 42 51 4B 42 4E 52 20 77 20 4B 51 6B 71 20 2D 20 00 01"))
        #expect(frame.count == 57)
        var link = connectedLink()
        try play(["e2e4"], on: &link)
        link.write(frame)
        #expect(link.notifications.last == Data([0xB1]))
        #expect(link.personality.gameState.pieces == .startingPosition)
        #expect(link.personality.gameState.sideToMove == .white)
        #expect(link.personality.gameState.fullmoveNumber == 1)
        // A position with Black to move, no castling, an en-passant square.
        let body = Data("/rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b - e3 ".utf8) + Data([0, 3])
        link.write(Data([0x66]) + body)
        #expect(link.personality.gameState.sideToMove == .black)
        #expect(link.personality.gameState.enPassantSquare == .e3)
        #expect(link.personality.gameState.castlingRights == [false, false, false, false])
        #expect(link.personality.violations.malformedCommands == 0)
    }

    @Test func malformedCommandsAreCounted() {
        var link = connectedLink()
        link.write(Data([0x01]))
        link.write(Data([0xB9, 0x05]))
        link.write(Data([0x99, 0x0C]))
        link.write(Data([0x99, 0x0C, 0x0C]))
        link.write(Data([0x97, 0x09]))
        link.write(Data([0x66]) + Data("/nonsense w - - ".utf8) + Data([0, 1]))
        #expect(link.personality.violations.malformedCommands == 6)
    }

    @Test func flippedBoardRotatesTheWire() throws {
        var link = connectedLink(flipped: true)
        link.perform([.lift(.e2), .place(Piece(.white, .pawn), on: .e4)])
        #expect(link.notifications.contains(ChessUpWire.moveFrame(from: .d7, to: .d5)))
        #expect(link.reportedMoves == [BoardMove(from: .d7, to: .d5)])
    }

    @Test func chargingFlagIsSentWhenItChanges() {
        var link = connectedLink()
        link.perform([.setBattery(percent: 80, charging: true)])
        #expect(link.notifications.last == Data([0x33, 0x01]))
        let count = link.notifications.count
        link.perform([.setBattery(percent: 70, charging: true), .pressButton("play")])
        #expect(link.notifications.count == count)
        #expect(link.personality.batteryPercent == 70)
    }

    @Test func movesMadeOfflineAreSentOnTheNextLink() throws {
        var link = connectedLink()
        link.disconnect()
        link.adapter.reset()
        try play(["e2e4", "e7e5"], on: &link)
        #expect(link.reportedMoves.isEmpty)
        link.connect(isReconnect: true)
        #expect(link.reportedMoves == moves(["e2e4", "e7e5"]))
        link.advance(by: 2)
        #expect(link.personality.violations.missingAcks == 0)
    }
}
