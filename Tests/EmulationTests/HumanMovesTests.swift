import BoardKit
import Emulation
import TestSupport
import Testing

@Suite struct HumanMovesTests {
    static func board(_ fen: String) -> BoardSnapshot {
        BoardSnapshot(fenPlacement: fen) ?? BoardSnapshot()
    }

    static func plan(_ uci: String, _ board: BoardSnapshot, _ style: HumanMoveStyle = .standard) -> [PhysicalAction] {
        var generator = SeededGenerator(seed: 1)
        guard let move = BoardMove(uci: uci) else { return [] }
        return HumanMoves.actions(for: move, on: board, style: style, using: &generator)
    }

    @Test func quietMoveIsLiftThenPlace() {
        let actions = Self.plan("g1f3", .startingPosition)
        #expect(actions == [.lift(.g1), .place(Piece(.white, .knight), on: .f3)])
        #expect(HumanMoves.applying(actions, to: .startingPosition)[.f3] == Piece(.white, .knight))
    }

    @Test func captureInBothOrders() {
        let board = Self.board("4k3/8/8/3p4/4P3/8/8/4K3")
        let pawn = Piece(.white, .pawn)
        #expect(Self.plan("e4d5", board) == [.lift(.d5), .lift(.e4), .place(pawn, on: .d5)])
        let capturingFirst = HumanMoveStyle(capture: .capturingFirst)
        #expect(Self.plan("e4d5", board, capturingFirst) == [.lift(.e4), .lift(.d5), .place(pawn, on: .d5)])
        #expect(HumanMoves.applying(Self.plan("e4d5", board), to: board) == Self.board("4k3/8/8/3P4/8/8/8/4K3"))
    }

    @Test(arguments: [
        ("e1g1", "r3k2r/8/8/8/8/8/8/R3K2R", "r3k2r/8/8/8/8/8/8/R4RK1"),
        ("e1c1", "r3k2r/8/8/8/8/8/8/R3K2R", "r3k2r/8/8/8/8/8/8/2KR3R"),
        ("e8g8", "r3k2r/8/8/8/8/8/8/R3K2R", "r4rk1/8/8/8/8/8/8/R3K2R"),
        ("e8c8", "r3k2r/8/8/8/8/8/8/R3K2R", "2kr3r/8/8/8/8/8/8/R3K2R"),
    ])
    func castlingMovesKingAndRook(uci: String, before: String, after: String) {
        let board = Self.board(before)
        let kingFirst = Self.plan(uci, board)
        let rookFirst = Self.plan(uci, board, HumanMoveStyle(castling: .rookFirst))
        #expect(kingFirst.count == 4 && rookFirst.count == 4)
        guard case .lift(let first) = kingFirst.first, case .lift(let rookStart) = rookFirst.first else {
            Issue.record("castling must start with a lift")
            return
        }
        #expect(board[first]?.kind == .king)
        #expect(board[rookStart]?.kind == .rook)
        #expect(HumanMoves.applying(kingFirst, to: board) == Self.board(after))
        #expect(HumanMoves.applying(rookFirst, to: board) == Self.board(after))
    }

    @Test func enPassantRemovesThePawnBeforeOrAfter() {
        let board = Self.board("4k3/8/8/3pP3/8/8/8/4K3")
        let pawn = Piece(.white, .pawn)
        let after = Self.plan("e5d6", board)
        #expect(after == [.lift(.e5), .place(pawn, on: .d6), .lift(.d5)])
        let before = Self.plan("e5d6", board, HumanMoveStyle(enPassant: .before))
        #expect(before == [.lift(.d5), .lift(.e5), .place(pawn, on: .d6)])
        #expect(HumanMoves.applying(after, to: board) == Self.board("4k3/8/3P4/8/8/8/8/4K3"))
    }

    @Test func promotionPlacesThePromotedPiece() {
        let board = Self.board("1n2k3/P7/8/8/8/8/8/4K3")
        #expect(Self.plan("a7a8n", board) == [.lift(.a7), .place(Piece(.white, .knight), on: .a8)])
        #expect(Self.plan("a7a8", board) == [.lift(.a7), .place(Piece(.white, .queen), on: .a8)])
        let capture = Self.plan("a7b8q", board)
        #expect(capture == [.lift(.b8), .lift(.a7), .place(Piece(.white, .queen), on: .b8)])
        let black = Self.board("4k3/8/8/8/8/8/p7/4K3")
        #expect(Self.plan("a2a1r", black) == [.lift(.a2), .place(Piece(.black, .rook), on: .a1)])
    }

    @Test func aDiagonalPawnMoveWithoutAVictimIsAPlainMove() {
        let board = Self.board("4k3/8/8/4P3/8/8/8/4K3")
        #expect(Self.plan("e5d6", board) == [.lift(.e5), .place(Piece(.white, .pawn), on: .d6)])
    }

    @Test func anEmptyFromSquarePlansNothing() {
        #expect(Self.plan("e4e5", .startingPosition).isEmpty)
    }

    @Test func randomStyleIsSeededAndUsesBothOrders() throws {
        let board = Self.board("4k3/8/8/3p4/4P3/8/8/4K3")
        let move = try #require(BoardMove(uci: "e4d5"))
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        var seen: Set<[PhysicalAction]> = []
        for _ in 0..<40 {
            let one = HumanMoves.actions(for: move, on: board, style: .random, using: &first)
            let two = HumanMoves.actions(for: move, on: board, style: .random, using: &second)
            #expect(one == two)
            seen.insert(one)
        }
        #expect(seen.count == 2)
    }

    @Test func sampleGameEndsWhereTheMovesLead() {
        var board = BoardSnapshot.startingPosition
        var generator = SeededGenerator(seed: 3)
        for uci in SampleGames.specialMoves {
            guard let move = BoardMove(uci: uci) else { continue }
            board = HumanMoves.applying(
                HumanMoves.actions(for: move, on: board, style: .random, using: &generator), to: board)
        }
        #expect(board.fenPlacement == "2kr1bnr/1p1qppp1/2npb3/1B6/P7/3P1N2/2P2P2/RNBQ2RK")
    }
}
