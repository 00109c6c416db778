import Adapters
import BoardKit
import Chess
import Emulation
import Foundation
import Kernel
import TestScheduling
import TestSupport
import Testing

@Suite struct CertaboPersonalityTests {
    typealias Link = ChessUpSquareOffLink<CertaboPersonality, CertaboAdapter>

    /// A board calibrated through the protocol (with its spare queens on d3 and d6 when
    /// `spares`), the spares put away again; the learned table and the board.
    static func calibrated(spares: Bool, name: String = "Certabo") -> (PieceCalibration, CertaboPersonality) {
        var link = Link(CertaboPersonality(name: name), CertaboAdapter())
        if spares { link.perform([.place(Piece(.white, .queen), on: .d3), .place(Piece(.black, .queen), on: .d6)]) }
        link.connect()
        link.advance(by: 1)
        var table: PieceCalibration?
        for case .calibration(.learned(let learned)) in link.events { table = learned }
        if spares { link.perform([.lift(.d3), .lift(.d6)]) }
        return (table ?? PieceCalibration(), link.personality)
    }

    static func lastPieces(_ link: Link) -> BoardSnapshot? {
        for case .pieces(let snapshot) in link.events.reversed() { return snapshot }
        return nil
    }

    @Test func theBoardCalibratesThroughItsOwnFrames() {
        var link = Link(CertaboPersonality(), CertaboAdapter())
        link.connect()
        #expect(link.personality.litSquares.count == 34, "the calibration squares are lit")
        link.advance(by: 1)
        #expect(link.events.first == .calibration(.needed))
        #expect(link.events.contains(.ready))
        #expect(link.events.contains(.pieces(.startingPosition)))
        #expect(link.adapter.calibration?.count == 32)
        #expect(link.personality.litSquares.isEmpty, "and dark once learned")
        #expect(link.personality.violations.total == 0)
    }

    @Test func tagsTravelWithThePieces() {
        let (table, personality) = Self.calibrated(spares: true)
        #expect(table.count == 34)
        var link = Link(personality, CertaboAdapter(calibration: table))
        link.connect()
        link.advance(by: 0.3)
        var generator = SeededGenerator(seed: 2)
        for uci in SampleGames.specialMoves {
            let move = BoardMove(uci: uci)!
            link.perform(HumanMoves.actions(for: move, on: link.personality.board, style: .random, using: &generator))
            link.advance(by: 0.3)
            #expect(Self.lastPieces(link) == link.personality.board, "after \(uci)")
        }
        #expect(!link.events.contains { if case .calibration(.unknownPieces) = $0 { true } else { false } })
    }

    @Test func aPieceFromAnotherSetIsAnUnknownPiece() {
        let (table, personality) = Self.calibrated(spares: false)
        var link = Link(personality, CertaboAdapter(calibration: table))
        link.connect()
        link.advance(by: 0.3)
        // No white queen is off the board: the one put down is another set's.
        link.perform([.place(Piece(.white, .queen), on: .e4)])
        link.advance(by: 0.3)
        #expect(link.events.contains(.calibration(.unknownPieces([.e4]))))
        #expect(Self.lastPieces(link) == .startingPosition, "no position with a piece it cannot name")
        link.perform([.lift(.e4)])
        link.advance(by: 0.3)
        #expect(link.events.last == .calibration(.unknownPieces([])))
    }

    /// A board with RGB LEDs (`D`) takes RGB writes, whole or cut anywhere; the handshake's
    /// 8-byte write, sent before the board said what it is, is the one it cannot use.
    @Test func anRGBBoardIsLitThroughRGBWrites() {
        var link = Link(CertaboPersonality(options: .init(ledMarker: "D")), CertaboAdapter())
        link.connect()
        link.advance(by: 1)
        #expect(link.adapter.calibration?.count == 32)
        #expect(link.personality.litSquares.isEmpty, "dark once learned")
        // Corner LEDs: e2 and e4 would light all four corners of e3 too.
        link.send(.indicate(squares: [.e2, .e5], style: .move))
        #expect(link.personality.litSquares == [.e2, .e5])
        var personality = link.personality
        let frame = Data(CertaboWire.rgbFrame([.a8, .h1], colour: [0x40, 0, 0]))
        _ = personality.handleWrite(frame.prefix(100), at: 10)
        _ = personality.handleWrite(frame.dropFirst(100), at: 10)
        #expect(personality.litSquares == [.a8, .h1])
        #expect(personality.violations.malformedCommands == 1, "the handshake's 8-byte write")
    }

    @Test func aSentioStreamsItsOccupancy() {
        var link = ChessUpSquareOffLink(
            CertaboPersonality(name: "Sentio", options: .init(recognisesPieces: false)), SentioAdapter())
        link.connect()
        link.advance(by: 0.2)
        #expect(link.events == [.ready, .occupancy(BoardSnapshot.startingPosition.occupancy)])
        link.send(.indicate(squares: [.e2, .e4], style: .move))
        #expect(link.personality.litSquares == [.e2, .e4])
    }
}

/// Random legal games played by hand on the emulated Certabo and Sentio, recovered move for
/// move by the kernel's identity and occupancy paths.
@Suite(.cpuBound) struct CertaboKernelRoundTripTests {
    @Test func twentyRandomCertaboGamesAreRecovered() {
        var totals = ChessUpSquareOffRoundTrip()
        var plies = 0
        for seed in UInt64(1)...20 {
            let (table, personality) = CertaboPersonalityTests.calibrated(spares: true, name: "Certabo \(seed)")
            var link = ChessUpSquareOffLink(personality, CertaboAdapter(calibration: table))
            // A promotion needs a piece of that kind off the board (a captured one, or a spare queen).
            let result = link.playRandomGame(seed: seed, maxPlies: 120, underpromotes: true) { move, board in
                guard let kind = move.promotion else { return true }
                let color: PieceColor = move.to.rank == 7 ? .white : .black
                return !(board.offBoard[Piece(color, kind)] ?? []).isEmpty
            }
            #expect(result.tracked == result.played, "game \(seed)")
            #expect(!result.outputs.contains { if case .illegalMove = $0 { true } else { false } }, "game \(seed)")
            #expect(link.personality.violations == ProtocolViolations(), "game \(seed)")
            totals.castlings += result.castlings
            totals.promotions += result.promotions
            plies += result.played.count
        }
        #expect(totals.castlings >= 5)
        #expect(totals.promotions >= 4)
        #expect(plies >= 1_000, "\(plies) plies")
    }

    @Test func twentyRandomSentioGamesAreRecovered() {
        var totals = ChessUpSquareOffRoundTrip()
        for seed in UInt64(1)...20 {
            var link = ChessUpSquareOffLink(
                CertaboPersonality(name: "Sentio", options: .init(recognisesPieces: false)), SentioAdapter())
            // Occupancy cannot show which piece a pawn became: queens only.
            let result = link.playRandomGame(seed: seed, maxPlies: 120, underpromotes: false)
            #expect(result.tracked == result.played, "game \(seed)")
            #expect(!result.outputs.contains { if case .illegalMove = $0 { true } else { false } }, "game \(seed)")
            totals.castlings += result.castlings
            totals.promotions += result.promotions
        }
        #expect(totals.castlings >= 5)
        #expect(totals.promotions >= 4)
    }
}
