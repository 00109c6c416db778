import BoardKit
import Chess
import TestSupport

/// Seeded random legal games: the move source of every pure-core benchmark.
enum RandomGames {
    /// A random legal game from the start: uniform over the legal moves, promotions to a
    /// queen only (an occupancy board cannot show which piece was put down), until the
    /// game ends or `maxPlies` are played.
    static func game(seed: UInt64, maxPlies: Int) -> [Move] {
        var generator = SeededGenerator(seed: seed)
        var game = Game()
        var moves: [Move] = []
        while moves.count < maxPlies, game.result == .ongoing {
            let legal = game.position.legalMoves().filter { $0.promotion == nil || $0.promotion == .queen }
            guard let move = legal.randomElement(using: &generator) else { break }
            do { try game.play(move) } catch { break }
            moves.append(move)
        }
        return moves
    }
}
