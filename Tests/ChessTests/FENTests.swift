import BoardKit
import Chess
import Foundation
import Testing

@Suite struct FENTests {
    static let fens: [String] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "4k3/8/8/8/8/8/8/4K2R w K - 99 180",
    ]

    @Test(arguments: fens)
    func roundTrips(_ fen: String) throws {
        let position = try Position(fen: fen)
        #expect(position.fen == fen)
        #expect(try Position(fen: position.fen) == position)
    }

    @Test func startingPositionMatchesItsFEN() throws {
        let position = Position.starting
        #expect(position.fen == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        #expect(try Position(fen: position.fen) == position)
        #expect(position.sideToMove == .white)
        #expect(position.castlingRights == .all)
        #expect(position.enPassantSquare == nil)
        #expect(position.halfmoveClock == 0)
        #expect(position.fullmoveNumber == 1)
        #expect(position[.e1] == Piece(.white, .king))
        #expect(position[.d8] == Piece(.black, .queen))
        #expect(position[.e4] == nil)
    }

    @Test func fieldsAreParsed() throws {
        let position = try Position(fen: "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w Kq c6 3 7")
        #expect(position.sideToMove == .white)
        #expect(position.castlingRights == [.whiteKingside, .blackQueenside])
        #expect(position.enPassantSquare == .c6)
        #expect(position.halfmoveClock == 3)
        #expect(position.fullmoveNumber == 7)
    }

    @Test func clocksMayBeLeftOutAndSpacesAreTolerated() throws {
        let position = try Position(fen: "  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq -  ")
        #expect(position == Position.starting)
    }

    @Test func movesUpdateFENFields() {
        var position = Position.starting
        position.apply(Move(from: .e2, to: .e4))
        #expect(position.fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        position.apply(Move(from: .g8, to: .f6))
        #expect(position.fen == "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2")
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let fen: String
        let error: FENError
        var testDescription: String { "\(error)" }
    }

    static let errors: [ErrorCase] = [
        ErrorCase(fen: "", error: .wrongFieldCount(0)),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", error: .wrongFieldCount(3)),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", error: .wrongFieldCount(7)),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            error: .invalidPlacement("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR")),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1",
            error: .invalidPlacement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", error: .invalidPiece("X")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/4x3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", error: .invalidPiece("x")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", error: .invalidPiece("9")),
        ErrorCase(
            fen: "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            error: .invalidRankLength(rank: 7, text: "ppppppp")),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
            error: .invalidRankLength(rank: 1, text: "RNBQKBNRR")),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/44P/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            error: .invalidRankLength(rank: 4, text: "44P")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", error: .invalidSideToMove("x")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", error: .invalidSideToMove("W")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", error: .invalidCastling("KQkx")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1", error: .invalidCastling("KK")),
        ErrorCase(fen: "rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", error: .invalidCastling("KQkq")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", error: .missingKing(.white)),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", error: .invalidEnPassant("e9")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", error: .invalidEnPassant("e3")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", error: .invalidEnPassant("e6")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", error: .invalidHalfmoveClock("-1")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", error: .invalidHalfmoveClock("x")),
        ErrorCase(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", error: .invalidFullmoveNumber("0")),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", error: .invalidFullmoveNumber("one")),
        ErrorCase(fen: "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", error: .missingKing(.black)),
        ErrorCase(
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", error: .tooManyKings(.white, count: 2)),
        ErrorCase(fen: "k7/8/8/8/8/8/8/k6K w - - 0 1", error: .tooManyKings(.black, count: 2)),
        ErrorCase(fen: "4k3/8/8/8/8/8/8/P3K3 w - - 0 1", error: .pawnOnBackRank(.a1)),
        ErrorCase(fen: "4k2p/8/8/8/8/8/8/4K3 w - - 0 1", error: .pawnOnBackRank(.h8)),
        ErrorCase(fen: "4k2R/8/8/8/8/8/8/4K3 w - - 0 1", error: .sideNotToMoveInCheck(.black)),
    ]

    @Test(arguments: errors)
    func rejectsWithPreciseError(_ testCase: ErrorCase) {
        #expect(throws: testCase.error) { try Position(fen: testCase.fen) }
    }

    @Test func errorsDescribeTheOffendingValue() {
        #expect(FENError.invalidCastling("KQkx").description.contains("KQkx"))
        #expect(FENError.invalidRankLength(rank: 7, text: "ppppppp").description.contains("rank 7"))
    }

    @Test func snapshotInitializerValidates() throws {
        var snapshot = BoardSnapshot.startingPosition
        let position = try Position(snapshot: snapshot, castlingRights: .all)
        #expect(position == .starting)
        snapshot[.e1] = nil
        #expect(throws: FENError.missingKing(.white)) { try Position(snapshot: snapshot) }
        #expect(throws: FENError.invalidCastling("KQkq")) {
            try Position(snapshot: BoardSnapshot.startingPosition.rotated, castlingRights: .all)
        }
    }

    @Test func codableAsFENString() throws {
        let position = try Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        let data = try JSONEncoder().encode(position)
        #expect(try JSONDecoder().decode(String.self, from: data) == position.fen)
        #expect(try JSONDecoder().decode(Position.self, from: data) == position)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Position.self, from: Data("\"nonsense\"".utf8)) }
    }
}
