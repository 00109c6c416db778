import FoundationEssentials

/// What a lichess-compatible push endpoint (`POST /api/broadcast/round/{id}/push`)
/// answered for each game of a push: `{"games":[{"tags":{…},"moves":4},
/// {"tags":{…},"error":"Invalid move: Nxe5"}]}`.
public struct BroadcastPushReply: Equatable, Sendable {
    /// One game of the reply.
    public struct GameResult: Equatable, Sendable {
        /// The game's `GameId` tag, when the relay echoed it.
        public var gameID: String?
        /// `White - Black`, to name the game when no id came back.
        public var players: String
        /// How many moves the relay took.
        public var moves: Int?
        /// Why the relay refused the game, when it did.
        public var error: String?
    }

    /// The games, in the order of the push.
    public var games: [GameResult]

    /// The games the relay refused.
    public var errors: [GameResult] { games.filter { $0.error != nil } }

    /// Reads a reply body; `nil` when it is not such a reply.
    public init?(json: String) {
        struct Body: Decodable {
            struct Game: Decodable {
                var tags: [String: String]?
                var moves: Int?
                var error: String?
            }
            var games: [Game]
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(json.utf8)) else { return nil }
        games = body.games.map { game in
            let tags = game.tags ?? [:]
            return GameResult(
                gameID: tags["GameId"], players: "\(tags["White"] ?? "?") - \(tags["Black"] ?? "?")",
                moves: game.moves, error: game.error)
        }
    }
}
