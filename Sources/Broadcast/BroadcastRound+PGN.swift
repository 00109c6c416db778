import Chess

extension BroadcastRound {
    /// Reads a round's pairings as pairing programs export them: a PGN file with one game
    /// per board (usually without moves).
    ///
    /// Per game: `White` and `Black` (required, not `?`); `WhiteTitle`, `WhiteFideId`,
    /// `WhiteElo`, `WhiteFed` and Black's the same; the board number from `Board`, else
    /// from `Round` (`"5.3"` is board 3), else the game's place in the file; `GameId` when
    /// set; the e-board from `BoardId` (BoardBridge's tag: pairing programs do not know the
    /// e-boards, so add it, or map boards in a CSV file instead). The round's name is
    /// `round`, else the first game's `Round` before its dot; `Event`, `Site`, `Date`
    /// and `TimeControl` come from the arguments, else from the first game. Errors name
    /// the game (`game 3 (Doe, John – Roe, Richard): …`).
    public init(
        pgn text: String, round: String?, event: String? = nil, site: String? = nil, date: String? = nil,
        timeControl: String? = nil
    ) throws(PairingsError) {
        let games: [Game]
        do {
            games = try Game.games(pgn: text)
        } catch {
            throw PairingsError(line: 0, column: 0, message: "not PGN: \(error)")
        }
        guard let first = games.first else {
            throw PairingsError(line: 0, column: 0, message: "the file holds no game")
        }
        let firstRound = first.tags["Round"].flatMap { $0.split(separator: ".").first.map(String.init) }
        guard let name = round ?? firstRound.flatMap({ $0 == "?" || $0.isEmpty ? nil : $0 }) else {
            throw PairingsError(line: 0, column: 0, message: "no round name: set round, or a Round tag in the games")
        }
        var pairings: [BroadcastPairing] = []
        for (index, game) in games.enumerated() {
            let place = "game \(index + 1) (\(game.tags["White"] ?? "?") – \(game.tags["Black"] ?? "?"))"
            func tag(_ key: String) -> String? {
                guard let value = game.tags[key], !value.isEmpty, value != "?", value != "-" else { return nil }
                return value
            }
            func number(_ key: String) throws(PairingsError) -> Int? {
                guard let text = tag(key) else { return nil }
                guard let value = Int(text), value >= 0 else {
                    throw PairingsError(
                        line: 0, column: 0, message: "\(place): \(key) must be a whole number, not '\(text)'")
                }
                return value
            }
            func player(_ color: String) throws(PairingsError) -> BroadcastPlayer {
                guard let name = tag(color) else {
                    throw PairingsError(line: 0, column: 0, message: "\(place): no \(color) player")
                }
                return BroadcastPlayer(
                    name: name, title: tag("\(color)Title"), fideID: try number("\(color)FideId"),
                    rating: try number("\(color)Elo"), federation: tag("\(color)Fed"))
            }
            let fromRound = tag("Round").flatMap { $0.split(separator: ".").dropFirst().first.flatMap { Int($0) } }
            let board = try number("Board") ?? fromRound ?? index + 1
            guard board > 0 else {
                throw PairingsError(line: 0, column: 0, message: "\(place): board must be a whole number from 1")
            }
            pairings.append(
                BroadcastPairing(
                    boardNumber: board, boardID: tag("BoardId"), white: try player("White"),
                    black: try player("Black"), round: name, gameID: tag("GameId")))
        }
        func firstTag(_ key: String) -> String? {
            first.tags[key].flatMap { $0.isEmpty || $0.contains("?") ? nil : $0 }
        }
        try self.init(
            round: name, event: event ?? firstTag("Event"), site: site ?? firstTag("Site"),
            date: date ?? firstTag("Date"), timeControl: timeControl ?? firstTag("TimeControl"), pairings: pairings)
    }
}
