import Chess
import Foundation
import TestSupport
import Testing

/// The movetext kept move by move gives the PGN that rendering every move again gave.
@Suite struct PGNMovetextTests {
    /// #33: seeded random games with clocks, comments (some long, some with `}`),
    /// takebacks and clock corrections along the way: after every change the PGN is the
    /// one the earlier renderer made from scratch.
    @Test func theKeptMovetextIsTheRenderedOne() throws {
        var generator = SeededGenerator(seed: 0x5047_4E4D)
        let comments = [
            "good", "a long comment that will not fit on the line where it starts, surely not", "brace } inside",
            "  spaced\nover lines  ",
        ]
        for _ in 0..<60 {
            var game = Game(
                startPosition: Bool.random(using: &generator)
                    ? .starting
                    : try Position(fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 3 17"),
                tags: ["Event": "Seeded"])
            for _ in 0..<Int.random(in: 0..<90, using: &generator) {
                let legal = game.position.legalMoves()
                guard let move = legal.randomElement(using: &generator), game.result == .ongoing else { break }
                let clock: TimeInterval? =
                    Bool.random(using: &generator) ? Double(Int.random(in: 0..<72_000, using: &generator)) / 10 : nil
                try game.play(move, clock: clock)
                switch Int.random(in: 0..<20, using: &generator) {
                case 0: game.takeBack(plies: Int.random(in: 1...3, using: &generator))
                case 1, 2:
                    game.setComment(
                        comments.randomElement(using: &generator),
                        forPly: Int.random(in: 0..<max(1, game.moves.count), using: &generator))
                case 3: game.setClock(nil, forPly: game.moves.count - 1)
                // The bridge's way: the mover's clock recorded just after the move.
                case 4, 5, 6:
                    game.setClock(
                        Double(Int.random(in: 0..<72_000, using: &generator)) / 10, forPly: game.moves.count - 1)
                case 7:
                    game.setClock(
                        Double(Int.random(in: 0..<72_000, using: &generator)) / 10,
                        forPly: Int.random(in: 0..<max(1, game.moves.count), using: &generator))
                case 8: game.setComment(comments.randomElement(using: &generator), forPly: game.moves.count - 1)
                default: break
                }
                #expect(game.pgn.hasSuffix("\n\n" + Self.renderedMovetext(of: game) + "\n"), "\(game.pgn)")
            }
        }
    }

    /// The movetext as the PGN export rendered it before it was kept (every move each time).
    private static func renderedMovetext(of game: Game) -> String {
        var tokens: [String] = []
        var blackNeedsNumber = true
        for (ply, record) in game.moves.enumerated() {
            let before = game.positions[ply]
            if before.sideToMove == .white {
                tokens.append("\(before.fullmoveNumber). \(record.san)")
            } else if blackNeedsNumber {
                tokens.append("\(before.fullmoveNumber)... \(record.san)")
            } else {
                tokens.append(record.san)
            }
            var words: [String] = []
            if let clock = record.clock, let text = Game.clockText(clock) { words.append("[%clk \(text)]") }
            if let comment = record.comment {
                words += comment.split(whereSeparator: { $0.isWhitespace || $0 == "}" }).map(String.init)
            }
            blackNeedsNumber = !words.isEmpty
            if !words.isEmpty {
                words[0] = "{ " + words[0]
                words[words.count - 1] += " }"
                tokens += words
            }
        }
        tokens.append(game.result.rawValue)
        var lines: [String] = []
        var line = ""
        for token in tokens {
            if line.isEmpty {
                line = token
            } else if line.count + 1 + token.count <= 80 {
                line += " " + token
            } else {
                lines.append(line)
                line = token
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// The FEN a game names is its position's, after moves, takebacks and none.
    @Test func theGamesFENIsItsPositions() throws {
        var game = Game()
        #expect(game.fen == Position.starting.fen)
        try game.play(san: "e4")
        try game.play(san: "c5")
        #expect(game.fen == game.position.fen)
        game.takeBack()
        #expect(game.fen == game.position.fen)
        game.takeBack()
        #expect(game.fen == Position.starting.fen)
    }
}
