import Chess

/// Random legal games for property and fault tests, reproducible from a seed.
public enum RandomGame {
    /// A game of `plies` plies (fewer only when no move keeps it going), every move drawn
    /// with `generator` from the legal moves that do not end the game; UCI.
    public static func uci(plies: Int, using generator: inout SeededGenerator) -> [String] {
        var game = Game()
        var moves: [String] = []
        while moves.count < plies {
            let legal = game.position.legalMoves().filter { move in
                var next = game
                try? next.play(move)
                return next.result == .ongoing
            }
            guard let move = legal.randomElement(using: &generator) else { break }
            try? game.play(move)
            moves.append(move.uci)
        }
        return moves
    }

    /// The game of `plies` plies that `seed` gives (``uci(plies:using:)`` with a fresh generator).
    public static func uci(seed: UInt64, plies: Int) -> [String] {
        var generator = SeededGenerator(seed: seed)
        return uci(plies: plies, using: &generator)
    }
}
