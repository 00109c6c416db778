import BoardKit
import Testing

@testable import Chess

@Suite struct MoveGenerationTests {
    private func uciSet(_ moves: [Move]) -> Set<String> { Set(moves.map(\.uci)) }

    @Test func enPassantIsIllegalWhenBothPawnsShieldTheKingOnARank() throws {
        // Taking on d6 would empty rank 5 between the king on a5 and the rook on h5.
        let position = try Position(fen: "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
        let capture = Move(from: .e5, to: .d6)
        #expect(!position.isLegal(capture))
        #expect(!position.legalMoves().contains(capture))
        #expect(position.pseudoLegalMoves().contains(capture))

        let unpinned = try Position(fen: "8/8/8/K2pP3/8/8/8/7k w - d6 0 1")
        #expect(unpinned.isLegal(capture))
    }

    @Test func enPassantIsIllegalForADiagonallyPinnedPawn() throws {
        // The e5 pawn is pinned by the bishop on h8 against the king on b2.
        let position = try Position(fen: "7b/8/8/3pP3/8/8/1K6/7k w - d6 0 1")
        #expect(!position.isLegal(Move(from: .e5, to: .d6)))
    }

    @Test func enPassantCanCaptureAPawnThatGivesCheck() throws {
        let position = try Position(fen: "4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 1")
        #expect(position.isCheck)
        #expect(uciSet(position.legalMoves()).contains("e5d6"))
        let after = position.applying(Move(from: .e5, to: .d6))
        #expect(after[.d5] == nil)
        #expect(after[.d6] == Piece(.white, .pawn))
        #expect(!after.applying(Move(from: .e8, to: .e7)).isCheck)
    }

    @Test func castlingBothSidesWhenAllowed() throws {
        let position = try Position(fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
        let moves = uciSet(position.legalMoves())
        #expect(moves.contains("e1g1"))
        #expect(moves.contains("e1c1"))
        let black = try Position(fen: "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
        #expect(uciSet(black.legalMoves()).isSuperset(of: ["e8g8", "e8c8"]))
    }

    struct CastlingCase: Sendable, CustomTestStringConvertible {
        let name: String
        let fen: String
        let kingside: Bool
        let queenside: Bool
        var testDescription: String { name }
    }

    static let castlingCases: [CastlingCase] = [
        CastlingCase(
            name: "through check on f1", fen: "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: false, queenside: true),
        CastlingCase(
            name: "into check on g1", fen: "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: false, queenside: true),
        CastlingCase(
            name: "out of check", fen: "4k3/8/8/4r3/8/8/8/R3K2R w KQ - 0 1", kingside: false, queenside: false),
        CastlingCase(
            name: "through check on d1", fen: "3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: true, queenside: false),
        CastlingCase(
            name: "into check on c1", fen: "2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: true, queenside: false),
        CastlingCase(
            name: "b1 attacked is fine", fen: "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: true, queenside: true),
        CastlingCase(
            name: "rook attacked is fine", fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQ - 0 1", kingside: true, queenside: true),
        CastlingCase(name: "b1 occupied", fen: "4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", kingside: true, queenside: false),
        CastlingCase(name: "g1 occupied", fen: "4k3/8/8/8/8/8/8/R3K1NR w KQ - 0 1", kingside: false, queenside: true),
        CastlingCase(name: "no rights", fen: "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", kingside: false, queenside: false),
        CastlingCase(
            name: "queenside right only", fen: "4k3/8/8/8/8/8/8/R3K2R w Q - 0 1", kingside: false, queenside: true),
        CastlingCase(
            name: "black through check", fen: "r3k2r/8/8/8/8/8/8/4KR2 b kq - 0 1", kingside: false, queenside: true),
    ]

    @Test(arguments: castlingCases)
    func castlingConditions(_ testCase: CastlingCase) throws {
        let position = try Position(fen: testCase.fen)
        let home: Square = position.sideToMove == .white ? .e1 : .e8
        let kingside = Move(from: home, to: home == .e1 ? .g1 : .g8)
        let queenside = Move(from: home, to: home == .e1 ? .c1 : .c8)
        #expect(position.isLegal(kingside) == testCase.kingside)
        #expect(position.isLegal(queenside) == testCase.queenside)
        #expect(position.legalMoves().contains(kingside) == testCase.kingside)
    }

    @Test func castlingThroughCheckIsPseudoLegalButNotLegal() throws {
        let position = try Position(fen: "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1")
        let castle = Move(from: .e1, to: .g1)
        #expect(position.pseudoLegalMoves().contains(castle))
        #expect(!position.legalMoves().contains(castle))
    }

    @Test func castlingMovesTheRookAndClearsRights() throws {
        let position = try Position(fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
        let kingside = position.applying(Move(from: .e1, to: .g1))
        #expect(kingside.fen == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1")
        let queenside = kingside.applying(Move(from: .e8, to: .c8))
        #expect(queenside.fen == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2")
    }

    @Test func rookMovesAndCapturesCostCastlingRights() throws {
        let position = try Position(fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
        #expect(
            position.applying(Move(from: .h1, to: .h2)).castlingRights == [
                .whiteQueenside, .blackKingside, .blackQueenside,
            ])
        // Rxa8 loses White's queenside right (rook moved) and Black's (rook captured).
        #expect(position.applying(Move(from: .a1, to: .a8)).castlingRights == [.whiteKingside, .blackKingside])
        #expect(position.applying(Move(from: .e1, to: .e2)).castlingRights == [.blackKingside, .blackQueenside])
    }

    @Test func promotionsToEveryPiece() throws {
        let position = try Position(fen: "1r5k/P7/8/8/8/8/8/K7 w - - 0 1")
        let promotions = position.legalMoves().filter { $0.from == .a7 }
        #expect(promotions.count == 8)
        for kind in [PieceKind.queen, .rook, .bishop, .knight] {
            #expect(promotions.contains(Move(from: .a7, to: .b8, promotion: kind)))
            #expect(position.applying(Move(from: .a7, to: .a8, promotion: kind))[.a8] == Piece(.white, kind))
        }
        #expect(!position.isLegal(Move(from: .a7, to: .a8)))
        #expect(!position.isLegal(Move(from: .a7, to: .a8, promotion: .king)))
        #expect(position.applying(Move(from: .a7, to: .a8))[.a8] == Piece(.white, .queen))
    }

    @Test func pinnedPiecesStayOnTheirLine() throws {
        // The rook on e4 is pinned by the rook on e8: it may move along the e-file only.
        let position = try Position(fen: "4r2k/8/8/8/4R3/8/8/4K3 w - - 0 1")
        let rookMoves = position.legalMoves(from: .e4)
        #expect(Set(rookMoves.map(\.to)) == [.e2, .e3, .e5, .e6, .e7, .e8])
        // A pinned knight cannot move at all.
        let knight = try Position(fen: "4r2k/8/8/8/4N3/8/8/4K3 w - - 0 1")
        #expect(knight.legalMoves(from: .e4).isEmpty)
    }

    @Test func checkEvasionsOnly() throws {
        // Check by the rook on e8: block on the e-file or step aside (e2 stays attacked).
        let position = try Position(fen: "4r2k/8/8/8/8/8/3B4/R3K3 w - - 0 1")
        #expect(position.isCheck)
        let moves = uciSet(position.legalMoves())
        #expect(moves == ["d2e3", "e1d1", "e1f1", "e1f2"])
        // Double check: only the king moves.
        let double = try Position(fen: "4r2k/8/8/8/8/5n2/8/R3K3 w - - 0 1")
        #expect(double.legalMoves().allSatisfy { $0.from == .e1 })
    }

    @Test func legalMoveFromUCI() {
        let start = Position.starting
        #expect(start.legalMove(uci: "e2e4") == Move(from: .e2, to: .e4))
        #expect(start.legalMove(uci: "e2e5") == nil)
        #expect(start.legalMove(uci: "junk") == nil)
        #expect(start.legalMove(uci: "e7e5") == nil)
        #expect(BoardMove(from: .g1, to: .f3).uci == "g1f3")
        #expect(Move(from: .e7, to: .e8, promotion: .queen) == BoardMove(uci: "e7e8q"))
    }

    @Test func applyingAMoveWithoutAPieceChangesNothing() {
        #expect(Position.starting.applying(Move(from: .e4, to: .e5)) == Position.starting)
        #expect(Position.starting.applying(Move(from: .e7, to: .e5)) == Position.starting)
    }

    @Test func snapshotAndSubscriptAgree() throws {
        let position = try Position(fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        let snapshot = position.snapshot
        for square in Square.allCases { #expect(snapshot[square] == position[square]) }
        #expect(snapshot.fenPlacement == "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R")
        #expect(Position.starting.snapshot == BoardSnapshot.startingPosition)
        let rebuilt = try Position(snapshot: snapshot, castlingRights: .all)
        #expect(rebuilt == position)
        #expect(position.kingSquare(of: .black) == .e8)
    }

    /// The fast generator must agree with the simple one filtered by "own king not attacked
    /// afterwards", in every position of a deterministic random walk.
    @Test func fastGeneratorAgreesWithFilteredPseudoLegalMoves() throws {
        var random = SplitMix64(seed: 7)
        let starts = try PerftTests.cases.map { try Position(fen: $0.fen) }
        var checked = 0
        for start in starts {
            for _ in 0..<4 {
                var position = start
                for _ in 0..<60 {
                    let legal = position.legalMoves()
                    let filtered = position.pseudoLegalPackedMoves().filter(position.isLegalPseudoLegalMove).map(\.move)
                    #expect(Set(legal) == Set(filtered), "\(position.fen)")
                    #expect(legal.count == filtered.count)
                    checked += 1
                    guard !legal.isEmpty else { break }
                    position.apply(legal[Int(random.next() % UInt64(legal.count))])
                }
            }
        }
        #expect(checked > 500)
    }
}

/// A small deterministic generator for reproducible random walks.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
