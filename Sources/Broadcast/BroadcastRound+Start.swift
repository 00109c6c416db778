import FoundationEssentials

extension BroadcastRound {
    /// The `new_game` command that starts a pairing's game on its e-board, as the bridge's
    /// command topic takes it (`{"new_game":{…},"transaction":"…"}`): players, event,
    /// site, round, board number, the round's time control, and the relay's tags
    /// (`GameId`, titles, ratings, FIDE ids, federations) in `tags`.
    public func startCommand(for pairing: BroadcastPairing) -> String {
        struct Command: Encodable {
            struct NewGame: Encodable {
                var white: String
                var black: String
                var event: String?
                var site: String?
                var round: String
                var board: Int
                var timeControl: String?
                var tags: [String: String]

                enum CodingKeys: String, CodingKey {
                    case white, black, event, site, round, board, tags
                    case timeControl = "time_control"
                }
            }
            var newGame: NewGame
            var transaction: String

            enum CodingKeys: String, CodingKey {
                case transaction
                case newGame = "new_game"
            }
        }
        var tags = ["GameId": pairing.gameID]
        for (color, player) in [("White", pairing.white), ("Black", pairing.black)] {
            tags["\(color)Title"] = player.title
            tags["\(color)Elo"] = player.rating.map(String.init)
            tags["\(color)FideId"] = player.fideID.map(String.init)
            tags["\(color)Fed"] = player.federation
        }
        let command = Command(
            newGame: .init(
                white: pairing.white.name, black: pairing.black.name, event: event, site: site, round: round,
                board: pairing.boardNumber, timeControl: timeControl, tags: tags),
            transaction: "round-\(round)-\(pairing.gameID)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(command)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
