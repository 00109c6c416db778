public import Chess
import FoundationEssentials

/// A running round as the relay outputs serve it: the pairings, each game's feed, and the
/// delay. Time is passed in (seconds on any steady clock), so a test drives it with a
/// fake clock.
///
/// The outputs, all as of `now - delay`:
/// - ``gamesPGN(at:)``: every game in board order, one PGN file (`games.pgn`);
/// - ``roundIndexJSON(at:)`` and ``gamePGN(number:at:)``: a LiveChess Cloud-style index
///   (`round.json`) and one `game-<n>.pgn` per game, `n` counting from 1 in board order.
public struct BroadcastRoundFeed: Sendable {
    /// The round and its pairings.
    public private(set) var round: BroadcastRound
    /// Seconds the outputs stay behind the boards (0–3600).
    public var delay: Double
    private var feeds: [String: BroadcastGameFeed] = [:]
    private var heard: [String: Double] = [:]
    /// When the round started (orphan boards are judged from then on).
    public let startedAt: Double

    /// The most a delay may be, in seconds (lichess's relays allow an hour).
    public static let maxDelay: Double = 3600

    /// A round that starts at `time`.
    public init(round: BroadcastRound, delay: Double, at time: Double) {
        self.round = round
        self.delay = min(max(delay, 0), Self.maxDelay)
        startedAt = time
    }

    /// Takes in what the e-board `boardID` published (its game record and current
    /// clocks); boards outside the round are ignored. Returns whether the board plays in
    /// this round.
    @discardableResult
    public mutating func update(boardID: String, game: Game, clocks: BroadcastClocks?, at time: Double) -> Bool {
        guard let pairing = round.pairing(onBoard: boardID) else { return false }
        heard[boardID] = time
        if var feed = feeds[pairing.gameID] {
            feed.update(game: game, clocks: clocks, at: time)
            feeds[pairing.gameID] = feed
        } else {
            feeds[pairing.gameID] = BroadcastGameFeed(game: game, at: time)
            if let clocks { feeds[pairing.gameID]?.update(game: game, clocks: clocks, at: time) }
        }
        return true
    }

    /// Notes that the e-board `boardID` sent something (any message: it is alive).
    public mutating func heardFrom(boardID: String, at time: Double) {
        if round.pairing(onBoard: boardID) != nil { heard[boardID] = time }
    }

    /// Moves a game to another e-board or board number; its feed and game id stay.
    public mutating func move(gameID: String, toBoard boardID: String?, number: Int? = nil) throws(PairingsError) {
        try round.move(gameID: gameID, toBoard: boardID, number: number)
    }

    /// Takes a new version of the round's pairings (its file changed mid-round): each game
    /// keeps its feed by game id, whatever its new board number or e-board; a game no
    /// longer paired is dropped, a new one starts empty. An e-board keeps when it was last
    /// heard from.
    public mutating func replacePairings(with newRound: BroadcastRound) {
        let kept = Set(newRound.pairings.map(\.gameID))
        feeds = feeds.filter { kept.contains($0.key) }
        let boards = Set(newRound.pairings.compactMap(\.boardID))
        heard = heard.filter { boards.contains($0.key) }
        round = newRound
    }

    /// The games of the round, on e-boards, that are not over and whose board has sent
    /// nothing for `silence` seconds (counted from the round's start for a board never
    /// heard).
    public func orphans(at now: Double, silence: Double) -> [BroadcastPairing] {
        round.pairings.filter { pairing in
            guard let board = pairing.boardID else { return false }
            if let feed = feeds[pairing.gameID], feed.game.result != .ongoing { return false }
            return now - (heard[board] ?? startedAt) >= silence
        }
    }

    /// The games of a timed round (the round's time control, or the game's own) whose last
    /// moves came without clock times (past the first two plies, which may be unclocked):
    /// a relay shows no clocks for them, which the arbiter should know.
    public func gamesWithoutClockTimes() -> [BroadcastPairing] {
        round.pairings.filter { pairing in
            guard let game = feeds[pairing.gameID]?.game, game.moves.count > 2 else { return false }
            let control = round.timeControl ?? game.tags["TimeControl"]
            guard let control, control != "-", control != "?" else { return false }
            return game.moves.suffix(2).allSatisfy { $0.clock == nil }
        }
    }

    /// When the game `gameID` last took in its board's record (`nil`: never). Once `now -
    /// delay` is past it, the game's outputs stay the same until its next update.
    public func lastUpdate(gameID: String) -> Double? { feeds[gameID]?.lastUpdate }

    /// The PGN of the game at `number` (1-based, board order), as of `now - delay`.
    public func gamePGN(number: Int, at now: Double) -> String? {
        guard round.pairings.indices.contains(number - 1) else { return nil }
        return pgn(round.pairings[number - 1], at: now)
    }

    /// Every game of the round, in board order, as of `now - delay`.
    public func gamesPGN(at now: Double) -> String {
        round.pairings.map { pgn($0, at: now) }.joined(separator: "\n")
    }

    /// The round index (`round.json`): the date and, in board order, each game's players
    /// and result as of `now - delay`.
    public func roundIndexJSON(at now: Double) -> String {
        let index = RoundIndex(
            date: round.date?.replacingDots(),
            pairings: round.pairings.map { pairing in
                let result = feeds[pairing.gameID].map { $0.view(at: now, delay: delay).game.result } ?? .ongoing
                return RoundIndex.Pairing(
                    white: .init(pairing.white), black: .init(pairing.black), result: result.rawValue,
                    live: result == .ongoing)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and booleans cannot fail.
        let data = (try? encoder.encode(index)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func pgn(_ pairing: BroadcastPairing, at now: Double) -> String {
        guard let feed = feeds[pairing.gameID] else {
            return BroadcastPGN.render(pairing: pairing, round: round, game: nil, clocks: nil)
        }
        let view = feed.view(at: now, delay: delay)
        return BroadcastPGN.render(pairing: pairing, round: round, game: view.game, clocks: view.clocks)
    }
}

/// The index of a round as LiveChess Cloud writes it (`round.json`), which lichess's
/// relay reads beside `game-<n>.pgn` files.
private struct RoundIndex: Encodable {
    struct Player: Encodable {
        var fname: String?
        var lname: String
        var title: String?
        var fideid: Int?

        init(_ player: BroadcastPlayer) {
            let parts = player.nameParts
            fname = parts.first
            lname = parts.last
            title = player.title
            fideid = player.fideID
        }
    }

    struct Pairing: Encodable {
        var white: Player
        var black: Player
        var result: String
        var live: Bool
    }

    var date: String?
    var pairings: [Pairing]
}

extension String {
    /// PGN's `2026.12.05` as `2026-12-05`.
    fileprivate func replacingDots() -> String { String(map { $0 == "." ? "-" : $0 }) }
}
