import BoardKit
import Chess
import Foundation
import Testing

@Suite struct GameTests {
    private func game(_ fen: String? = nil, playing sans: [String]) throws -> Game {
        var game = Game(startPosition: try fen.map { try Position(fen: $0) } ?? .starting)
        for san in sans { try game.play(san: san) }
        return game
    }

    @Test func recordsMovesWithSANAndFEN() throws {
        var game = Game()
        try game.play(Move(from: .e2, to: .e4), clock: 299.5, timestamp: 12)
        try game.play(san: "e5")
        #expect(game.moves.map(\.san) == ["e4", "e5"])
        #expect(game.moves[0].fenAfter == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        #expect(game.moves[0].clock == 299.5)
        #expect(game.moves[0].timestamp == 12)
        #expect(game.moves[1].clock == nil)
        #expect(game.position.fen == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
        #expect(game.positions.count == 3)
        #expect(game.result == .ongoing)
        #expect(game.termination == nil)
    }

    @Test func rejectsIllegalMoves() throws {
        var game = Game()
        #expect(throws: GameError.illegalMove(Move(from: .e2, to: .e5))) { try game.play(Move(from: .e2, to: .e5)) }
        #expect(throws: GameError.illegalMove(Move(from: .e7, to: .e5))) { try game.play(Move(from: .e7, to: .e5)) }
        #expect(throws: GameError.invalidSAN(.noSuchMove("Nf6"))) { try game.play(san: "Nf6") }
        #expect(game.moves.isEmpty)
        #expect(game.position == .starting)
    }

    @Test func checkmateEndsTheGame() throws {
        let game = try game(playing: ["f3", "e5", "g4", "Qh4#"])
        #expect(game.termination == .checkmate(winner: .black))
        #expect(game.result == .blackWins)
        #expect(game.position.isCheckmate)
        var more = game
        #expect(throws: GameError.self) { try more.play(san: "a3") }
    }

    @Test func stalemateEndsTheGame() throws {
        let game = try game("7k/8/6K1/5Q2/8/8/8/8 w - - 0 1", playing: ["Qf7"])
        #expect(game.termination == .stalemate)
        #expect(game.result == .draw)
        #expect(game.position.isStalemate)
    }

    @Test func captureToBareKingsIsInsufficientMaterial() throws {
        let game = try game("8/8/4k3/8/8/8/3q4/4K3 w - - 0 1", playing: ["Kxd2"])
        #expect(game.termination == .insufficientMaterial)
        #expect(game.result == .draw)
    }

    struct MaterialCase: Sendable, CustomTestStringConvertible {
        let name: String
        let fen: String
        let insufficient: Bool
        var testDescription: String { name }
    }

    static let materialCases: [MaterialCase] = [
        MaterialCase(name: "K vs K", fen: "8/8/4k3/8/8/8/6K1/8 w - - 0 1", insufficient: true),
        MaterialCase(name: "KN vs K", fen: "8/8/4k3/8/8/8/6K1/5N2 w - - 0 1", insufficient: true),
        MaterialCase(name: "K vs KB", fen: "8/8/4k3/8/2b5/8/6K1/8 w - - 0 1", insufficient: true),
        MaterialCase(name: "KB vs KB same colour", fen: "8/8/4k3/8/2b5/8/6K1/5B2 w - - 0 1", insufficient: true),
        MaterialCase(name: "KB vs KB opposite colours", fen: "8/8/4k3/8/3b4/8/6K1/5B2 w - - 0 1", insufficient: false),
        MaterialCase(name: "KNN vs K", fen: "8/8/4k3/8/8/8/6K1/4NN2 w - - 0 1", insufficient: false),
        MaterialCase(name: "KN vs KB", fen: "8/8/4k3/8/2b5/8/6K1/5N2 w - - 0 1", insufficient: false),
        MaterialCase(name: "KP vs K", fen: "8/8/4k3/8/8/8/4P1K1/8 w - - 0 1", insufficient: false),
        MaterialCase(name: "KR vs K", fen: "8/8/4k3/8/8/8/6K1/7R w - - 0 1", insufficient: false),
    ]

    @Test(arguments: materialCases)
    func insufficientMaterial(_ testCase: MaterialCase) throws {
        #expect(try Position(fen: testCase.fen).hasInsufficientMaterial == testCase.insufficient)
    }

    @Test func insufficientMaterialForOneSide() throws {
        // After a flag fall: can the other side still mate at all?
        let knight = try Position(fen: "8/8/4k3/8/8/8/6K1/5N2 w - - 0 1")
        #expect(knight.hasInsufficientMaterial(for: .white))
        #expect(knight.hasInsufficientMaterial(for: .black))
        let knightVersusPawn = try Position(fen: "8/8/4k3/4p3/8/8/6K1/5N2 w - - 0 1")
        #expect(!knightVersusPawn.hasInsufficientMaterial(for: .white))
        #expect(!knightVersusPawn.hasInsufficientMaterial(for: .black))
        let rook = try Position(fen: "8/8/4k3/8/8/8/6K1/7R w - - 0 1")
        #expect(!rook.hasInsufficientMaterial(for: .white))
        #expect(rook.hasInsufficientMaterial(for: .black))
    }

    @Test func fiftyMoveRuleIsClaimable() throws {
        let game = try game("8/8/4k3/8/8/8/4K3/R7 w - - 99 60", playing: ["Ra2"])
        #expect(game.position.halfmoveClock == 100)
        #expect(game.termination == .fiftyMoveRule)
        #expect(game.termination?.isAutomatic == false)
        #expect(game.result == .ongoing)
    }

    @Test func seventyFiveMoveRuleIsAutomatic() throws {
        let game = try game("8/8/4k3/8/8/8/4K3/R7 w - - 149 90", playing: ["Ra2"])
        #expect(game.termination == .seventyFiveMoveRule)
        #expect(game.termination?.isAutomatic == true)
        #expect(game.result == .draw)
    }

    @Test func checkmateOutranksTheSeventyFiveMoveRule() throws {
        let game = try game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100", playing: ["Ra8#"])
        #expect(game.position.halfmoveClock == 150)
        #expect(game.termination == .checkmate(winner: .white))
        #expect(game.result == .whiteWins)
    }

    @Test func threefoldRepetitionIsClaimable() throws {
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        var game = try game(playing: shuffle + shuffle.dropLast())
        #expect(game.repetitionCount == 2)
        #expect(game.termination == nil)
        try game.play(san: "Ng8")
        #expect(game.repetitionCount == 3)
        #expect(game.termination == .threefoldRepetition)
        #expect(game.result == .ongoing)
    }

    @Test func fivefoldRepetitionIsAutomatic() throws {
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        var game = try game(playing: Array(repeating: shuffle, count: 3).flatMap { $0 })
        #expect(game.termination == .threefoldRepetition)
        for san in shuffle { try game.play(san: san) }
        #expect(game.repetitionCount == 5)
        #expect(game.termination == .fivefoldRepetition)
        #expect(game.result == .draw)
    }

    @Test func repetitionNeedsTheSameCastlingRights() throws {
        // King steps away and back: the placement repeats but White has lost its rights.
        let moves = ["e4", "e5", "Ke2", "Ke7", "Ke1", "Ke8", "Ke2", "Ke7", "Ke1", "Ke8"]
        let game = try game(playing: moves)
        // Positions after Ke1/Ke8 repeat twice; the one after 2.e5 had castling rights.
        #expect(game.repetitionCount == 2)
        #expect(game.termination == nil)
    }

    @Test func unusableEnPassantSquareDoesNotBreakRepetition() throws {
        let afterDoublePush = try Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
        let same = try Position(fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        #expect(afterDoublePush != same)
        #expect(afterDoublePush.repetitionKey == same.repetitionKey)
        let usable = try Position(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
        let without = try Position(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1")
        #expect(usable.repetitionKey != without.repetitionKey)
    }

    @Test func takeBackRestoresPositionAndResult() throws {
        var game = try game(playing: ["f3", "e5", "g4", "Qh4#"])
        game.takeBack()
        #expect(game.result == .ongoing)
        #expect(game.termination == nil)
        #expect(game.moves.map(\.san) == ["f3", "e5", "g4"])
        #expect(game.position.fen == "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2")
        game.takeBack(plies: 0)
        #expect(game.moves.count == 3)
        game.takeBack(plies: 10)
        #expect(game.moves.isEmpty)
        #expect(game.position == .starting)
        game.takeBack()
        #expect(game.positions == [.starting])
    }

    @Test func resultCanBeSetForResignation() throws {
        var game = try game(playing: ["e4"])
        game.result = .whiteWins
        #expect(game.result == .whiteWins)
        #expect(game.termination == nil)
    }

    @Test func codableRoundTrip() throws {
        var game = Game(tags: ["White": "Alice", "Black": "Bob"])
        try game.play(san: "e4", clock: 300, timestamp: 1.5)
        try game.play(san: "c5", clock: 298.2)
        game.setComment("Sicilian", forPly: 1)
        let data = try JSONEncoder().encode(game)
        let decoded = try JSONDecoder().decode(Game.self, from: data)
        #expect(decoded == game)
        #expect(decoded.moves[1].comment == "Sicilian")
        #expect(decoded.moves[0].timestamp == 1.5)
    }

    @Test func decodingRejectsIllegalMoves() throws {
        var game = Game()
        try game.play(san: "e4")
        let data = try JSONEncoder().encode(game)
        var text = String(decoding: data, as: UTF8.self)
        // e2 → e4 becomes e2 → e5 (Square raw values 12 → 28 become 12 → 36).
        text = text.replacingOccurrences(of: "\"to\":28", with: "\"to\":36")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Game.self, from: Data(text.utf8)) }
    }
}
