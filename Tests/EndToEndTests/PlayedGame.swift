import Chess
import Contract
import JSON
import Testing

/// A game as the test plays it: UCI moves replayed with the Chess module, which gives the
/// SAN and FEN every published move must carry.
struct PlayedGame {
    /// The moves, UCI.
    private(set) var uci: [String] = []
    /// The game replayed.
    private(set) var game = Game()

    /// A game of `uci` moves from the start; every move must be legal.
    init(_ uci: [String] = []) throws {
        try append(uci)
    }

    /// Plays more moves (each must be legal).
    mutating func append(_ moves: [String]) throws {
        for text in moves {
            let move = try #require(game.position.legalMove(uci: text), "\(text) is not legal in \(game.position.fen)")
            try game.play(move)
            uci.append(text)
        }
    }

    /// The moves of a PGN text, UCI.
    static func moves(inPGN text: String) throws -> [String] {
        try Game(pgn: text).moves.map(\.move.uci)
    }

    /// Checks `published` (payloads of the `move` topic) against plies `first…` of this
    /// game: the same moves in the same order, each with the right SAN, FEN, ply, move
    /// number and colour.
    func expectPublished(_ published: [JSONValue], fromPly first: Int = 1, board: String) {
        let expected = Array(game.moves.dropFirst(first - 1))
        #expect(
            published.compactMap { $0["uci"]?.stringValue } == expected.map(\.move.uci),
            "moves of \(board)")
        for (offset, (payload, move)) in zip(published, expected).enumerated() {
            let ply = first + offset
            #expect(payload["san"]?.stringValue == move.san, "SAN of ply \(ply) on \(board)")
            #expect(payload["fen"]?.stringValue == move.fenAfter, "FEN after ply \(ply) on \(board)")
            #expect(payload["ply"]?.intValue == ply, "ply number on \(board)")
            #expect(payload["move_number"]?.intValue == (ply + 1) / 2, "move number of ply \(ply) on \(board)")
            #expect(payload["color"]?.stringValue == (ply % 2 == 1 ? "white" : "black"), "colour of ply \(ply)")
        }
    }

    /// Checks that the PGN text holds exactly this game's moves.
    func expectPGN(_ text: String, board: String) {
        #expect((try? Self.moves(inPGN: text)) == uci, "PGN of \(board):\n\(text)")
    }
}

/// Short games with every special move, each legal from the standard start.
enum Games {
    /// White takes en passant (3. exf6), promotes to a queen (5. gxh8=Q) and Black castles
    /// long (6... O-O-O). Suits occupancy boards, which promote to the default queen.
    static let whitePromotes = [
        "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "d8d6", "f6g7", "c8d7", "g7h8q", "b8c6", "h8g8", "e8c8",
    ]

    /// White castles short (5. O-O), Black takes en passant (3... dxc3) and under-promotes to
    /// a knight (5... bxa1=N). For boards that know which piece is placed.
    static let blackUnderpromotes = [
        "g1f3", "d7d5", "g2g3", "d5d4", "c2c4", "d4c3", "f1g2", "c3b2", "e1g1", "b2a1n",
    ]

    /// An opening: 1. e4 e5 2. Nf3 Nc6.
    static let opening = ["e2e4", "e7e5", "g1f3", "b8c6"]
}
