public import Chess

/// The PGN of a broadcast game, as lichess's relay and other relays read it.
///
/// Tags: the Seven Tag Roster (`Round` as `"<round number>.<board number>"`, the players from
/// the pairing), then `Board`, `TimeControl`, and — when known — `WhiteTitle`,
/// `BlackTitle`, `WhiteElo`, `BlackElo`, `WhiteFideId`, `BlackFideId`, `WhiteFed`,
/// `BlackFed`, `GameId`, and `WhiteClock` / `BlackClock` (the clocks now, `h:mm:ss`).
/// Other tags of the board's record are kept. Movetext: the moves with `[%clk]` after each
/// one the board's record has a clock for, and the result (`*` while the game goes on).
public enum BroadcastPGN {
    /// The tags this renderer sets itself; the board's own values for them are replaced.
    static let ownTags: Set<String> = [
        "Event", "Site", "Date", "Round", "White", "Black", "Board", "TimeControl", "WhiteTitle", "BlackTitle",
        "WhiteElo", "BlackElo", "WhiteFideId", "BlackFideId", "WhiteFed", "BlackFed", "GameId", "WhiteClock",
        "BlackClock",
    ]

    /// The PGN of `pairing`'s game in `round`: `game` is the board's record (or `nil`
    /// while the game has no e-board or nothing was seen), `clocks` the clocks now.
    public static func render(
        pairing: BroadcastPairing, round: BroadcastRound, game: Game?, clocks: BroadcastClocks?
    ) -> String {
        var game = game ?? Game()
        var tags = PGNTags()
        func set(_ name: String, _ value: String?) {
            if let value, !value.isEmpty { tags[name] = value }
        }
        set("Event", round.event ?? game.tags["Event"])
        set("Site", round.site ?? game.tags["Site"])
        set("Date", round.date ?? game.tags["Date"])
        set("Round", "\(round.tagRound).\(pairing.boardNumber)")
        set("White", pairing.white.name)
        set("Black", pairing.black.name)
        set("Board", String(pairing.boardNumber))
        set("TimeControl", round.timeControl ?? game.tags["TimeControl"])
        for (color, player) in [("White", pairing.white), ("Black", pairing.black)] {
            set("\(color)Title", player.title)
            set("\(color)Elo", player.rating.map(String.init))
            set("\(color)FideId", player.fideID.map(String.init))
            set("\(color)Fed", player.federation)
        }
        set("GameId", pairing.gameID)
        set("WhiteClock", clocks?.white.flatMap(Game.clockText))
        set("BlackClock", clocks?.black.flatMap(Game.clockText))
        for tag in game.tags.all where !ownTags.contains(tag.name) {
            tags[tag.name] = tag.value
        }
        game.tags = tags
        return game.pgn
    }
}
