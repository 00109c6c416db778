import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport
import Testing

/// The emulated Chess Peripheral Protocol firmware against the README's exchanges.
@Suite struct ChessPeripheralPersonalityTests {
    typealias Link = EmulatedLink<ChessPeripheralAdapter, ChessPeripheralPersonality>
    static let startFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

    /// Connected, features answered, the round begun at `fen`.
    static func begun(
        _ personality: ChessPeripheralPersonality = ChessPeripheralPersonality(), fen: String = startFEN
    ) -> Link {
        var link = Link(ChessPeripheralAdapter(), personality)
        link.connect()
        link.send(.loadPosition(fen: fen))
        return link
    }

    static func play(_ uci: String, on link: inout Link, style: HumanMoveStyle = .standard) {
        var generator = SeededGenerator(seed: 1)
        for action in HumanMoves.actions(
            for: BoardMove(uci: uci)!, on: link.personality.board, style: style, using: &generator)
        {
            link.perform(action)
        }
    }

    /// The events since `count`, dropping the state stream.
    static func reports(_ link: Link, after count: Int) -> [BoardEvent] {
        link.events[count...].filter { if case .occupancy = $0 { false } else { true } }
    }

    @Test func theFeaturesAreAnsweredAndTheRoundBeginsInSync() {
        let link = Self.begun()
        #expect(link.events == [.ready, .occupancy(.startingPosition)])
        #expect(link.personality.enabledFeatures == ["submove_state", "check"])
        #expect(link.personality.isSynced)
        #expect(link.personality.violations.total == 0)

        var plain = Link(ChessPeripheralAdapter(), ChessPeripheralPersonality(options: .init(features: [])))
        plain.connect()
        #expect(plain.events == [.ready])
        #expect(plain.adapter.acceptedFeatures.isEmpty)
    }

    /// README "Move": `move`, answered; the held position follows the verdict.
    @Test func aMoveIsReportedOnceAndPlayedWhenTaken() {
        var link = Self.begun()
        let before = link.events.count
        Self.play("e2e4", on: &link)
        #expect(Self.reports(link, after: before) == [.moveReported(BoardMove(uci: "e2e4")!)])
        // The state stream showed the lift and the placement.
        #expect(link.events[before...].filter { if case .occupancy = $0 { true } else { false } }.count == 2)
        #expect(link.personality.awaitingVerdict == BoardMove(uci: "e2e4"))
        link.send(.judgeMove(reported: BoardMove(uci: "e2e4")!, taken: BoardMove(uci: "e2e4")!))
        #expect(link.personality.awaitingVerdict == nil)
        #expect(link.personality.heldFEN?.hasPrefix("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b") == true)
        #expect(link.personality.verdicts == ["ok"])
    }

    /// A refused move leaves the held position; the board says it is out of sync and comes
    /// back with `sync` once the piece is back.
    @Test func aRefusedMoveUnsyncsTheBoardUntilThePieceIsBack() {
        var link = Self.begun()
        Self.play("e2e4", on: &link)
        #expect(link.events.last == .moveReported(BoardMove(uci: "e2e4")!))
        var e4 = OccupancyMap.startingPosition
        e4.remove(.e2)
        e4.insert(.e4)
        link.send(.judgeMove(reported: BoardMove(uci: "e2e4")!, taken: nil))
        #expect(link.events.last == .occupancy(e4))
        #expect(!link.personality.isSynced)
        #expect(link.personality.verdicts == ["nok"])
        let back = link.events.count
        Self.play("e4e2", on: &link)
        #expect(link.personality.isSynced)
        #expect(link.events[back...].last == .occupancy(.startingPosition))
        #expect(Self.reports(link, after: back).isEmpty)
    }

    /// README "Promote": the pawn's move without a piece; the host's `promote` decides.
    @Test func aPromotionWithoutItsPieceTakesTheHostsPick() {
        let fen = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
        var link = Self.begun(
            ChessPeripheralPersonality(board: BoardSnapshot(fenPlacement: fen.prefix { $0 != " " })!), fen: fen)
        Self.play("a7a8n", on: &link)
        #expect(link.events.last == .moveReported(BoardMove(uci: "a7a8")!))
        link.send(.judgeMove(reported: BoardMove(uci: "a7a8")!, taken: BoardMove(uci: "a7a8n")!))
        #expect(link.personality.verdicts == ["promote a7a8n"])
        #expect(link.personality.heldFEN?.hasPrefix("N7/7k/") == true)
    }

    /// Castling is reported as the king's move, whichever piece is moved first.
    @Test(arguments: [HumanMoveStyle.CastlingOrder.kingFirst, .rookFirst])
    func castlingIsTheKingsMove(order: HumanMoveStyle.CastlingOrder) {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
        var link = Self.begun(
            ChessPeripheralPersonality(board: BoardSnapshot(fenPlacement: fen.prefix { $0 != " " })!), fen: fen)
        let before = link.events.count
        Self.play("e1g1", on: &link, style: HumanMoveStyle(castling: order))
        #expect(Self.reports(link, after: before) == [.moveReported(BoardMove(uci: "e1g1")!)])
    }

    /// A move made while no link was up is reported after the next `begin`.
    @Test func aMoveMadeWithoutALinkIsReportedAfterTheNextBegin() {
        var link = Self.begun(ChessPeripheralPersonality(options: .init(features: [])))
        link.personality.linkLost()
        Self.play("g1f3", on: &link)
        #expect(link.personality.awaitingVerdict == nil)
        let before = link.events.count
        // A new link, a new adapter (as every transport makes one).
        link.adapter = ChessPeripheralAdapter()
        link.connect(isReconnect: true)
        link.send(.loadPosition(fen: Self.startFEN))
        var f3 = OccupancyMap.startingPosition
        f3.remove(.g1)
        f3.insert(.f3)
        #expect(Array(link.events[before...]) == [.ready, .occupancy(f3), .moveReported(BoardMove(uci: "g1f3")!)])
        link.send(.judgeMove(reported: BoardMove(uci: "g1f3")!, taken: BoardMove(uci: "g1f3")!))
        // Back in step: `sync`.
        #expect(link.events.last == .occupancy(f3))
        #expect(link.personality.isSynced)
    }

    /// A hand already at the next move when the verdict on a move reported as a round
    /// resumed comes: the next move is still reported (found in CI: the firmware stayed out
    /// of sync and reported nothing more).
    @Test func theNextMoveIsReportedWhenTheVerdictComesAfterAHandMoved() {
        var link = Self.begun(ChessPeripheralPersonality(options: .init(features: [])))
        link.personality.linkLost()
        Self.play("g1f3", on: &link)
        link.adapter = ChessPeripheralAdapter()
        link.connect(isReconnect: true)
        link.send(.loadPosition(fen: Self.startFEN))
        let g1f3 = BoardMove(uci: "g1f3")!
        #expect(link.events.last == .moveReported(g1f3))
        link.perform(.lift(.e7))
        link.send(.judgeMove(reported: g1f3, taken: g1f3))
        link.perform(.place(Piece(.black, .pawn), on: .e5))
        #expect(link.events.last == .moveReported(BoardMove(uci: "e7e5")!))
    }

    /// The link drops after the host took a move but before its `ok` reached the board, and
    /// a move is made meanwhile: the host begins the position with the taken move, which is
    /// the held position and the report the board waits on, so the round resumes and the
    /// move made meanwhile is reported (found in a full run: the game stopped at ply 15).
    @Test func aRoundResumesWhenTheVerdictWasLostWithTheLink() {
        var link = Self.begun(ChessPeripheralPersonality(options: .init(features: [])))
        Self.play("e2e4", on: &link)
        #expect(link.personality.awaitingVerdict == BoardMove(uci: "e2e4"))
        link.personality.linkLost()
        Self.play("e7e5", on: &link)
        link.adapter = ChessPeripheralAdapter()
        link.connect(isReconnect: true)
        link.send(.loadPosition(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"))
        #expect(link.events.last == .moveReported(BoardMove(uci: "e7e5")!))
    }

    /// After `end`, nothing is reported until the next `begin`; `check` is kept.
    @Test func theRoundEndsAndTheCheckSquareIsShown() {
        var link = Self.begun()
        link.send(.indicate(squares: [.e1], style: .check))
        #expect(link.personality.checkSquare == .e1)
        link.send(.endGame(reason: "checkmate"))
        #expect(link.personality.endReason == "checkmate")
        let before = link.events.count
        Self.play("e2e4", on: &link)
        #expect(link.events.count == before)
    }

    /// The 2024 dialect (README at `3b1220d`; OPENCHESSBOARD's firmware on ArduinoBleChess
    /// 0.2): `begin` is refused with `nok`, the adapter takes the board for what it is, and
    /// the round is begun with `fen`, answered `ok`; a refused move, a promotion and a
    /// position the squares do not show go as that dialect says.
    @Test func aBoardOfThe2024DialectIsRefereedInItsOwnWords() {
        var link = Link(ChessPeripheralAdapter(), ChessPeripheralPersonality(options: .openChessBoard))
        link.connect()
        #expect(link.events == [.ready])
        link.send(.loadPosition(fen: Self.startFEN))
        #expect(link.events == [.ready, .ready], "begin refused: another dialect, ready for it")
        #expect(link.adapter.dialect == .acknowledged)
        link.send(.loadPosition(fen: Self.startFEN))
        #expect(link.events.last == .positionConfirmed)
        #expect(link.personality.isSynced && link.personality.heldFEN == Self.startFEN)

        // A move in sync: reported alone (no state stream in that dialect), taken.
        var before = link.events.count
        Self.play("e2e4", on: &link)
        #expect(Array(link.events[before...]) == [.moveReported(BoardMove(uci: "e2e4")!)])
        link.send(.judgeMove(reported: BoardMove(uci: "e2e4")!, taken: BoardMove(uci: "e2e4")!))
        #expect(link.personality.heldFEN?.hasPrefix("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b") == true)

        // Refused: the board says what its squares show (`fen`) until the piece is back.
        Self.play("e7e5", on: &link)
        #expect(link.events.last == .moveReported(BoardMove(uci: "e7e5")!))
        link.send(.judgeMove(reported: BoardMove(uci: "e7e5")!, taken: nil))
        #expect(!link.personality.isSynced)
        guard case .occupancy(let shown) = link.events.last else {
            Issue.record("no placement after the refusal: \(link.events.suffix(3))")
            return
        }
        #expect(!shown.contains(.e7) && shown.contains(.e5))
        link.perform(.lift(.e5))
        link.perform(.place(Piece(.black, .pawn), on: .e7))
        #expect(link.personality.isSynced)
        let back = link.personality.board.occupancy
        #expect(link.events.last == .occupancy(back))

        // A position the squares do not show: `nok`, then what they show.
        before = link.events.count
        link.send(.loadPosition(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))
        #expect(link.events[before...].contains(.occupancy(back)))
        #expect(!link.events[before...].contains(.positionConfirmed))

        // Commands it does not know are refused, never `err`.
        var firmware = ChessPeripheralPersonality(options: .openChessBoard)
        for command in ["begin \(Self.startFEN)", "end checkmate", "check e1", "dance"] {
            #expect(firmware.handleWrite(Data(command.utf8), at: 0) == [Data("nok".utf8)], "\(command)")
        }
        #expect(firmware.handleWrite(Data("feature msg".utf8), at: 0) == [Data("ok".utf8)])
        #expect(firmware.handleWrite(Data("feature submove_state".utf8), at: 0) == [Data("nok".utf8)])
    }

    /// The 2024 dialect's promotion: the host's `promote` is acknowledged `ok`, which says
    /// the squares show the game's position.
    @Test func aPromotionOfThe2024DialectIsAcknowledged() {
        let fen = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
        let board = BoardSnapshot(fenPlacement: fen.prefix { $0 != " " })!
        var link = Link(ChessPeripheralAdapter(), ChessPeripheralPersonality(board: board, options: .openChessBoard))
        link.connect()
        link.send(.loadPosition(fen: fen))
        link.send(.loadPosition(fen: fen))
        #expect(link.events == [.ready, .ready, .positionConfirmed])
        Self.play("a7a8n", on: &link)
        #expect(link.events.last == .moveReported(BoardMove(uci: "a7a8")!))
        link.send(.judgeMove(reported: BoardMove(uci: "a7a8")!, taken: BoardMove(uci: "a7a8n")!))
        #expect(link.personality.verdicts == ["promote a7a8n"])
        #expect(link.personality.heldFEN?.hasPrefix("N7/7k/") == true)
        #expect(link.events.last == .positionConfirmed)
    }

    @Test func whatTheFirmwareCannotReadIsAnsweredErr() {
        var personality = ChessPeripheralPersonality()
        #expect(personality.handleWrite(Data("dance".utf8), at: 0) == [Data("err unsupported command".utf8)])
        #expect(personality.handleWrite(Data([0xFF, 0x00]), at: 0) == [Data("err malformed command".utf8)])
        #expect(personality.handleWrite(Data("ok".utf8), at: 0) == [Data("err unsupported command".utf8)])
        #expect(personality.handleWrite(Data("begin not/a/fen".utf8), at: 0) == [Data("err unsupported command".utf8)])
        #expect(personality.violations.malformedCommands == 4)
        #expect(personality.handleWrite(Data("variant standard".utf8), at: 0) == [Data("ok".utf8)])
        #expect(personality.handleWrite(Data("variant chess_960".utf8), at: 0) == [Data("nok".utf8)])
    }
}
