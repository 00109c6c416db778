public import Broadcast
import Chess
public import Config
public import JSON

/// The rounds the hall broadcasts: each round's ``BroadcastRoundFeed`` fed from the boards
/// the hall sees, the relay files rendered from it (cached, with strong ETags), and the
/// orphan boards. Pure: time (seconds since 1970) is passed in, so tests drive it with a
/// fake clock.
///
/// A round not yet started (neither `running: true` in the configuration nor the
/// arbiter's "start round") lists its pairings with no moves: the boards may still show
/// the previous round's games.
public struct HallBroadcast: Sendable {
    /// One round.
    public struct RoundState: Sendable {
        /// The round as configured.
        public let configuration: BroadcastConfiguration.RoundConfiguration
        /// The feed (its pairings follow moves of games between boards).
        public internal(set) var feed: BroadcastRoundFeed
        /// Whether it takes the boards' games.
        public internal(set) var running: Bool
        /// Bumped whenever what the feed holds changes (the output cache follows it).
        public internal(set) var version: UInt64 = 0
    }

    /// The rounds by name.
    public private(set) var rounds: [String: RoundState] = [:]
    /// The round names in configuration order.
    public let order: [String]
    /// Seconds of silence after which a board of a running round is an orphan.
    public let orphanAfter: Double
    /// What each board last gave the feeds (its PGN text and clocks), to skip repeats.
    private var fed: [String: (pgn: String?, clocks: BroadcastClocks?)] = [:]
    /// The outputs rendered so far, by `<round>/<file>`.
    var outputs: [String: HallBroadcastOutput] = [:]
    /// Bumped whenever a game's feed takes in its board (by `<round>/<game id>`).
    private var gameVersions: [String: UInt64] = [:]
    /// Each game's PGN as last rendered (by `<round>/<game id>`): a poll after one board's
    /// move renders that game only.
    private var gameTexts: [String: RenderedGame] = [:]

    /// One game's PGN, the version and board number it was rendered for, and when.
    private struct RenderedGame {
        var version: UInt64
        var number: Int
        var renderedAt: Double
        var text: String
    }

    /// The rounds of `configuration`, as of `now`.
    public init(configuration: BroadcastConfiguration, at now: Double) {
        orphanAfter = configuration.orphanAfter
        order = configuration.rounds.map(\.round.round)
        for round in configuration.rounds {
            rounds[round.round.round] = RoundState(
                configuration: round, feed: BroadcastRoundFeed(round: round.round, delay: round.delay, at: now),
                running: round.running)
        }
    }

    /// Whether any round is configured.
    public var isEmpty: Bool { rounds.isEmpty }

    /// Takes in the hall's view of a board after one of its messages (received at `now`).
    /// Returns the names of the rounds whose outputs may have changed.
    public mutating func update(board: HallBoard, at now: Double) -> [String] {
        let clocks = Self.clocks(of: board)
        let changed = fed[board.id].map { $0.pgn != board.pgn || $0.clocks != clocks } ?? true
        var game: Game?
        var touched: [String] = []
        for name in order {
            guard var state = rounds[name], state.running, state.feed.round.pairing(onBoard: board.id) != nil
            else { continue }
            if changed {
                if game == nil { game = Self.game(of: board) }
                guard let game else { continue }
                state.feed.update(boardID: board.id, game: game, clocks: clocks, at: now)
                state.version &+= 1
                if let pairing = state.feed.round.pairing(onBoard: board.id) {
                    gameVersions[name + "/" + pairing.gameID, default: 0] &+= 1
                }
                touched.append(name)
            } else {
                state.feed.heardFrom(boardID: board.id, at: now)
            }
            rounds[name] = state
        }
        if changed, game != nil { fed[board.id] = (board.pgn, clocks) }
        return touched
    }

    /// Starts `name` at `now`: a fresh feed (no game of an earlier round), running. Returns
    /// each e-board's `new_game` command (board id and JSON), in board order; `nil` for an
    /// unknown round.
    public mutating func start(round name: String, at now: Double) -> [(board: String, command: String)]? {
        guard var state = rounds[name] else { return nil }
        let round = state.feed.round
        state.feed = BroadcastRoundFeed(round: round, delay: state.configuration.delay, at: now)
        state.running = true
        state.version &+= 1
        rounds[name] = state
        for pairing in round.pairings {
            if let board = pairing.boardID { fed[board] = nil }
            gameTexts[name + "/" + pairing.gameID] = nil
        }
        return round.pairings.compactMap { pairing in
            pairing.boardID.map { ($0, round.startCommand(for: pairing)) }
        }
    }

    /// Replaces the pairings of round `name` (its file changed): each game keeps its
    /// `GameId` and its moves and follows its new board number and e-board; `round.json`
    /// and `game-<n>.pgn` follow the new board order. Returns whether anything changed
    /// (`false` too for an unknown round).
    public mutating func replacePairings(round name: String, with round: BroadcastRound) -> Bool {
        guard var state = rounds[name], state.feed.round != round, round.round == name else { return false }
        state.feed.replacePairings(with: round)
        state.version &+= 1
        rounds[name] = state
        // A game's PGN names its board number and its players: render each again.
        let keys = Set(round.pairings.map { name + "/" + $0.gameID })
        for key in keys { gameVersions[key, default: 0] &+= 1 }
        gameTexts = gameTexts.filter { !$0.key.hasPrefix(name + "/") || keys.contains($0.key) }
        return true
    }

    /// The orphan boards of each running round at `now`, in board order (rounds without
    /// orphans left out).
    public func orphans(at now: Double) -> [String: [BroadcastPairing]] {
        var result: [String: [BroadcastPairing]] = [:]
        for (name, state) in rounds where state.running {
            let orphans = state.feed.orphans(at: now, silence: orphanAfter)
            if !orphans.isEmpty { result[name] = orphans }
        }
        return result
    }

    /// The file `file` of round `name` (`games.pgn`, `round.json`, `game-<n>.pgn`) as a
    /// relay may see it at `now`; `nil` when there is no such file.
    public mutating func render(round name: String, file: String, at now: Double) -> String? {
        guard let feed = rounds[name]?.feed else { return nil }
        switch file {
        case "games.pgn":
            return feed.round.pairings.indices.map { gamePGN(round: name, number: $0 + 1, at: now) ?? "" }
                .joined(separator: "\n")
        case "round.json", "index.json": return feed.roundIndexJSON(at: now)
        default:
            guard file.hasPrefix("game-"), file.hasSuffix(".pgn"),
                let number = Int(file.dropFirst(5).dropLast(4)), String(number) == file.dropFirst(5).dropLast(4)
            else { return nil }
            return gamePGN(round: name, number: number, at: now)
        }
    }

    /// Every file of round `name` (`games.pgn`, `round.json`, `game-1.pgn` …) at `now`.
    public mutating func files(round name: String, at now: Double) -> [(name: String, text: String)] {
        guard let count = rounds[name]?.feed.round.pairings.count else { return [] }
        var files: [(name: String, text: String)] = []
        for file in ["games.pgn", "round.json"] + (0..<count).map({ "game-\($0 + 1).pgn" }) {
            files.append((file, render(round: name, file: file, at: now) ?? ""))
        }
        return files
    }

    /// Game `number` of round `name` (1-based, board order) as of `now - delay`, rendered
    /// again only when its board changed, or while a delay still holds some of it back
    /// (then at most ``delayedRefresh`` seconds old).
    private mutating func gamePGN(round name: String, number: Int, at now: Double) -> String? {
        guard let state = rounds[name], state.feed.round.pairings.indices.contains(number - 1) else { return nil }
        let pairing = state.feed.round.pairings[number - 1]
        let key = name + "/" + pairing.gameID
        let version = gameVersions[key, default: 0]
        let delay = state.configuration.delay
        if let cached = gameTexts[key], cached.version == version, cached.number == number {
            // Everything the game took in was already older than the delay when it was
            // rendered: nothing will appear until its board changes again.
            let complete = cached.renderedAt - delay >= (state.feed.lastUpdate(gameID: pairing.gameID) ?? -.infinity)
            if delay == 0 || complete || now - cached.renderedAt < Self.delayedRefresh { return cached.text }
        }
        let text = state.feed.gamePGN(number: number, at: now) ?? ""
        gameTexts[key] = RenderedGame(version: version, number: number, renderedAt: now, text: text)
        return text
    }

    /// The rounds for the hall view: name, running, delay, boards, and the orphans at `now`.
    public func status(at now: Double) -> JSONValue {
        let orphans = orphans(at: now)
        return .array(
            order.compactMap { name in
                guard let state = rounds[name] else { return nil }
                return [
                    "round": .string(name), "running": .bool(state.running),
                    "delay": .number(state.configuration.delay),
                    "games": .number(Double(state.feed.round.pairings.count)),
                    "files": state.configuration.filesDirectory.map(JSONValue.string) ?? .null,
                    "push": state.configuration.push.map { .string($0.url) } ?? .null,
                    "orphans": .array((orphans[name] ?? []).map(Self.json)),
                    "warning": state.feed.round.sizeWarning.map(JSONValue.string) ?? .null,
                    "without_clock_times": .array(state.feed.gamesWithoutClockTimes().map(Self.json)),
                ]
            })
    }

    /// A pairing for the view and the MQTT alert.
    static func json(_ pairing: BroadcastPairing) -> JSONValue {
        [
            "board": .number(Double(pairing.boardNumber)), "board_id": pairing.boardID.map(JSONValue.string) ?? .null,
            "game_id": .string(pairing.gameID), "white": .string(pairing.white.name),
            "black": .string(pairing.black.name),
        ]
    }

    /// The clocks of the board's last full state.
    static func clocks(of board: HallBoard) -> BroadcastClocks? {
        guard let clock = board.state?["clock"] else { return nil }
        let white = clock["white"]?.doubleValue
        let black = clock["black"]?.doubleValue
        return white == nil && black == nil ? nil : BroadcastClocks(white: white, black: black)
    }

    /// The board's game: its PGN, else (no PGN published yet) an empty game.
    static func game(of board: HallBoard) -> Game? {
        guard let pgn = board.pgn else { return board.state == nil ? nil : Game() }
        return try? Game(pgn: pgn)
    }
}
