import Broadcast
import Chess
import Config
import Contract
import FoundationEssentials
import HTTP
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Hall

/// Issue #22: the hall's relay outputs (`/broadcast/<round>/…`), their ETags, the delay,
/// "start round" and orphan boards, driven with a fake clock.
@Suite struct HallBroadcastTests {
    static func configuration(delay: Double = 0, running: Bool = true) throws -> BroadcastConfiguration {
        let round = try BroadcastRound(
            csv: """
                board,board_id,white,black
                3,b3,"Loe, Lee","Zoe, Zed"
                1,b1,"Doe, John","Moe, Max"
                2,b2,"Roe, Richard","Poe, Ed"
                """, round: "5", event: "Open", timeControl: "5400+30")
        return BroadcastConfiguration(
            orphanAfter: 60, rounds: [.init(round: round, delay: delay, running: running)])
    }

    static func board(_ id: String, moves: [String], clocks: (Double, Double)? = nil) throws -> HallBoard {
        var game = Game()
        for (ply, san) in moves.enumerated() {
            try game.play(san: san, clock: 5400 - Double(ply))
        }
        var board = HallBoard(id: id)
        board.pgn = game.pgn
        let clock: JSONValue =
            clocks.map { ["white": .number($0.0), "black": .number($0.1), "running": "white", "paused": false] }
            ?? ["white": nil, "black": nil]
        board.state = ["fen": .string(game.position.fen), "clock": clock]
        return board
    }

    static func get(_ path: String, etag: String? = nil, method: String = "GET") -> HTTPRequest {
        HTTPRequest(method: method, path: path, headers: etag.map { ["if-none-match": $0] } ?? [:])
    }

    /// The answer to a request for `path`; a 599 when the broadcast does not answer it.
    static func respond(
        _ broadcast: inout HallBroadcast, _ path: String, etag: String? = nil, method: String = "GET", at time: Double
    ) -> HTTPResponse {
        broadcast.respond(to: get(path, etag: etag, method: method), at: time) ?? HTTPResponse(status: 599)
    }

    /// A file of round 5 as rendered at `time` (empty when there is no such file).
    static func render(_ broadcast: inout HallBroadcast, _ file: String, at time: Double) -> String {
        broadcast.render(round: "5", file: file, at: time) ?? ""
    }

    static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test func aPollWithTheETagGets304UntilAMove() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4"]), at: 1)
        for file in ["games.pgn", "round.json", "game-1.pgn", "game-3.pgn"] {
            let first = Self.respond(&broadcast, "/broadcast/5/\(file)", at: 2)
            #expect(first.status == 200)
            let etag = try #require(Self.header(first, "ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
            #expect(Self.header(first, "Last-Modified") == "Thu, 01 Jan 1970 00:00:02 GMT")
            let again = Self.respond(&broadcast, "/broadcast/5/\(file)", etag: etag, at: 3)
            #expect(again.status == 304 && again.body.isEmpty)
            #expect(Self.header(again, "ETag") == etag)
            let weak = Self.respond(&broadcast, "/broadcast/5/\(file)", etag: "W/\(etag)", at: 3)
            #expect(weak.status == 304)
            let other = Self.respond(&broadcast, "/broadcast/5/\(file)", etag: "\"x\", \(etag)", at: 3)
            #expect(other.status == 304)
        }
        let before = Self.respond(&broadcast, "/broadcast/5/games.pgn", at: 4)
        let etag = try #require(Self.header(before, "ETag"))
        // Another board's move changes games.pgn but not game-1.pgn.
        let game1 = try #require(Self.header(Self.respond(&broadcast, "/broadcast/5/game-1.pgn", at: 4), "ETag"))
        _ = broadcast.update(board: try Self.board("b2", moves: ["d4"]), at: 5)
        let after = Self.respond(&broadcast, "/broadcast/5/games.pgn", etag: etag, at: 6)
        #expect(after.status == 200)
        #expect(Self.header(after, "ETag") != etag)
        #expect(Self.header(after, "Last-Modified") == "Thu, 01 Jan 1970 00:00:06 GMT")
        #expect(Self.respond(&broadcast, "/broadcast/5/game-1.pgn", etag: game1, at: 6).status == 304)
        // The same message again (a repeated retained state) changes nothing.
        #expect(broadcast.update(board: try Self.board("b2", moves: ["d4"]), at: 7).isEmpty)
    }

    @Test func everyServedGameReplaysToTheBoardsPositionInBoardOrder() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        let played = [
            "b1": ["e4", "e5", "Nf3", "Nc6", "Bb5"], "b2": ["d4", "Nf6"], "b3": ["c4", "e5", "Nc3", "Nf6", "g3", "d5"],
        ]
        var boards: [String: HallBoard] = [:]
        for (id, moves) in played {
            boards[id] = try Self.board(id, moves: moves, clocks: (5000, 4990.5))
            _ = broadcast.update(board: boards[id]!, at: 1)
        }
        let games = try Game.games(pgn: Self.render(&broadcast, "games.pgn", at: 2))
        #expect(games.map { $0.tags["Round"] } == ["5.1", "5.2", "5.3"])
        for (index, id) in ["b1", "b2", "b3"].enumerated() {
            #expect(games[index].position.fen == boards[id]?.state?["fen"]?.stringValue)
            #expect(games[index].moves.map(\.san) == played[id])
            #expect(games[index].tags["WhiteClock"] == "1:23:20")
            #expect(games[index].tags["BlackClock"] == "1:23:10.5")
            let single = try Game(pgn: Self.render(&broadcast, "game-\(index + 1).pgn", at: 2))
            #expect(single.position.fen == games[index].position.fen)
        }
        let index = try JSONValue(parsing: Self.render(&broadcast, "round.json", at: 2))
        #expect(index["pairings"]?.arrayValue?.map { $0["white"]?["lname"]?.stringValue } == ["Doe", "Roe", "Loe"])
    }

    @Test func withADelayNothingNewerIsServed() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(delay: 60), at: 0)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4"]), at: 100)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4", "c5"]), at: 130)
        func moves(at time: Double) throws -> [String] {
            let response = Self.respond(&broadcast, "/broadcast/5/game-1.pgn", at: time)
            return try Game(pgn: String(decoding: response.body, as: UTF8.self)).moves.map(\.san)
        }
        for time in stride(from: 100.0, to: 220, by: 0.25) {
            let shown = try moves(at: time)
            let allowed = time - 60 >= 130 ? 2 : time - 60 >= 100 ? 1 : 0
            #expect(shown.count <= allowed, "at \(time): \(shown)")
            // A delayed file is rendered again at least once a second.
            #expect(shown.count >= (time - 61 >= 130 ? 2 : time - 61 >= 100 ? 1 : 0), "at \(time): \(shown)")
        }
    }

    /// Random moves, takebacks and polls on a steady clock: with no delay every poll gets
    /// exactly what the feed shows; with one, each game is what the feed showed at some
    /// moment of the last ``HallBroadcast/delayedRefresh`` seconds (never newer).
    @Test(arguments: [0.0, 30.0])
    func theGameCacheServesWhatTheFeedShows(delay: Double) throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(delay: delay), at: 0)
        var random = SeededGenerator(seed: 2222)
        var lines: [String: [String]] = ["b1": [], "b2": [], "b3": []]
        var hundredths = 0
        for _ in 0..<200 {
            hundredths += Int.random(in: 0...1500, using: &random)
            let time = Double(hundredths) / 100
            if Bool.random(using: &random) {
                let id = ["b1", "b2", "b3"][Int.random(in: 0..<3, using: &random)]
                var game = Game()
                for san in lines[id]! { try game.play(san: san) }
                let moves = game.position.legalMoves()
                if Int.random(in: 0..<6, using: &random) == 0 || moves.isEmpty {
                    if !lines[id]!.isEmpty { lines[id]!.removeLast() }  // a takeback
                } else {
                    lines[id]!.append(game.position.san(for: moves[Int.random(in: 0..<moves.count, using: &random)]))
                }
                _ = broadcast.update(board: try Self.board(id, moves: lines[id]!), at: time)
                continue
            }
            let feed = try #require(broadcast.rounds["5"]?.feed)
            let served = Self.render(&broadcast, "games.pgn", at: time)
            if delay == 0 {
                #expect(served == feed.gamesPGN(at: time))
                continue
            }
            let games = served.components(separatedBy: "\n[Event").count
            #expect(games == 3)
            for number in 1...3 {
                let text = Self.render(&broadcast, "game-\(number).pgn", at: time)
                let window = stride(from: hundredths, through: max(0, hundredths - 100), by: -1)
                let shownOnce = window.contains { feed.gamePGN(number: number, at: Double($0) / 100) == text }
                #expect(shownOnce, "game \(number) at \(time) is not what the feed showed in the last second")
            }
        }
    }

    @Test func startRoundSendsEachBoardItsNewGameAndForgetsTheOldGames() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(running: false), at: 0)
        #expect(broadcast.update(board: try Self.board("b1", moves: ["e4"]), at: 1).isEmpty)
        let before = try Game.games(pgn: Self.render(&broadcast, "games.pgn", at: 2))
        #expect(before.allSatisfy { $0.moves.isEmpty })
        let started = broadcast.start(round: "5", at: 3)
        let commands = try #require(started)
        #expect(commands.map(\.board) == ["b1", "b2", "b3"])
        let first = try JSONValue(parsing: commands[0].command)
        #expect(first["new_game"]?["white"]?.stringValue == "Doe, John")
        #expect(first["new_game"]?["round"]?.stringValue == "5")
        #expect(first["new_game"]?["board"]?.doubleValue == 1)
        #expect(first["new_game"]?["time_control"]?.stringValue == "5400+30")
        #expect(
            first["new_game"]?["tags"]?["GameId"]?.stringValue == broadcast.rounds["5"]?.feed.round.pairings[0].gameID)
        #expect(broadcast.start(round: "6", at: 3) == nil)
        #expect(broadcast.update(board: try Self.board("b1", moves: []), at: 4) == ["5"])
        #expect(broadcast.update(board: try Self.board("b1", moves: ["d4"]), at: 5) == ["5"])
        let game = try Game(pgn: Self.render(&broadcast, "game-1.pgn", at: 6))
        #expect(game.moves.map(\.san) == ["d4"])
    }

    /// Round 5's pairings with the rows of `lines` (after the header).
    static func pairings(_ lines: [String]) throws -> BroadcastRound {
        try BroadcastRound(
            csv: (["board,board_id,white,black"] + lines).joined(separator: "\n"), round: "5", event: "Open",
            timeControl: "5400+30")
    }

    static let rows = [
        #"1,b1,"Doe, John","Moe, Max""#, #"2,b2,"Roe, Richard","Poe, Ed""#, #"3,b3,"Loe, Lee","Zoe, Zed""#,
    ]

    @Test func swappedEBoardsKeepTheirGamesAndGameIds() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4", "e5"]), at: 1)
        _ = broadcast.update(board: try Self.board("b2", moves: ["d4"]), at: 1)
        let ids = try #require(broadcast.rounds["5"]?.feed.round.pairings.map(\.gameID))
        let etag = try #require(Self.header(Self.respond(&broadcast, "/broadcast/5/games.pgn", at: 2), "ETag"))
        // The arbiter moves Doe–Moe to e-board b2 and Roe–Poe to b1.
        let swapped = try Self.pairings([
            #"1,b2,"Doe, John","Moe, Max""#, #"2,b1,"Roe, Richard","Poe, Ed""#, Self.rows[2],
        ])
        let replaced = broadcast.replacePairings(round: "5", with: swapped)
        let again = broadcast.replacePairings(round: "5", with: swapped)
        #expect(replaced && !again)
        #expect(broadcast.rounds["5"]?.feed.round.pairings.map(\.gameID) == ids)
        var games = try Game.games(pgn: Self.render(&broadcast, "games.pgn", at: 3))
        #expect(games.map { $0.moves.map(\.san) } == [["e4", "e5"], ["d4"], []])
        #expect(games.map { $0.tags["GameId"] } == ids)
        // Each game now takes the moves of its new e-board.
        _ = broadcast.update(board: try Self.board("b2", moves: ["e4", "e5", "Nf3"]), at: 4)
        _ = broadcast.update(board: try Self.board("b1", moves: ["d4", "d5"]), at: 4)
        games = try Game.games(pgn: Self.render(&broadcast, "games.pgn", at: 5))
        #expect(games.map { $0.moves.map(\.san) } == [["e4", "e5", "Nf3"], ["d4", "d5"], []])
        #expect(Self.respond(&broadcast, "/broadcast/5/games.pgn", etag: etag, at: 5).status == 200)
    }

    @Test func renumberedBoardsMoveTheirGamesInTheRoundOrder() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4"]), at: 1)
        _ = broadcast.update(board: try Self.board("b3", moves: ["c4", "c5"]), at: 1)
        let ids = try #require(broadcast.rounds["5"]?.feed.round.pairings.map(\.gameID))
        let index = Self.respond(&broadcast, "/broadcast/5/round.json", at: 2)
        let etag = try #require(Self.header(index, "ETag"))
        // Boards 1 and 3 trade numbers (the e-boards stay with their games).
        let renumbered = try Self.pairings([
            #"3,b1,"Doe, John","Moe, Max""#, Self.rows[1], #"1,b3,"Loe, Lee","Zoe, Zed""#,
        ])
        let replaced = broadcast.replacePairings(round: "5", with: renumbered)
        #expect(replaced)
        #expect(broadcast.rounds["5"]?.feed.round.pairings.map(\.gameID) == [ids[2], ids[1], ids[0]])
        let again = Self.respond(&broadcast, "/broadcast/5/round.json", etag: etag, at: 3)
        #expect(again.status == 200 && Self.header(again, "ETag") != etag)
        let json = try JSONValue(parsing: String(decoding: again.body, as: UTF8.self))
        #expect(json["pairings"]?.arrayValue?.map { $0["white"]?["lname"]?.stringValue } == ["Loe", "Roe", "Doe"])
        let first = try Game(pgn: Self.render(&broadcast, "game-1.pgn", at: 3))
        #expect(first.moves.map(\.san) == ["c4", "c5"])
        #expect(first.tags["GameId"] == ids[2] && first.tags["Round"] == "5.1")
        let third = try Game(pgn: Self.render(&broadcast, "game-3.pgn", at: 3))
        #expect(third.moves.map(\.san) == ["e4"] && third.tags["GameId"] == ids[0] && third.tags["Round"] == "5.3")
        // A file that names another round is not taken.
        var other = renumbered
        other.round = "6"
        let taken = broadcast.replacePairings(round: "5", with: other)
        #expect(!taken)
    }

    @MainActor @Test func theHallReloadsAChangedPairingsFileAndKeepsTheOldOneWhenItIsBroken() throws {
        let directory = try TestTools.temporaryDirectory("pairings")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("round5.csv").path
        func write(_ lines: [String]) throws {
            try (["board,board_id,white,black"] + lines).joined(separator: "\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        try write(Self.rows)
        let file = BroadcastPairingsFile(path: path, round: "5", event: "Open", timeControl: "5400+30")
        let round = try file.read().flatMap(file.parse).get()
        let configuration = BroadcastConfiguration(
            orphanAfter: 60, rounds: [.init(round: round, running: true, pairingsFile: file)])
        let entries = Mutex<[LogEntry]>([])
        let logger = Logger(
            label: "hall", level: .debug, sink: ClosureSink { entry in entries.withLock { $0.append(entry) } })
        let service = HallBroadcastService(
            configuration: configuration, topics: try Topics(base: "boardbridge", node: "hall"), logger: logger,
            publish: { _, _, _ in }, notify: { _, _ in })
        service.boardChanged(try Self.board("b1", moves: ["e4"]))
        let ids = service.broadcast.rounds["5"]?.feed.round.pairings.map(\.gameID)
        service.reloadPairings()
        #expect(entries.withLock { $0.isEmpty })
        try write([#"1,b2,"Doe, John","Moe, Max""#, #"2,b1,"Roe, Richard","Poe, Ed""#, Self.rows[2]])
        service.reloadPairings()
        var pairings = service.broadcast.rounds["5"]?.feed.round.pairings
        #expect(pairings?.map(\.boardID) == ["b2", "b1", "b3"] && pairings?.map(\.gameID) == ids)
        #expect(entries.withLock { $0.map(\.message) } == ["pairings reloaded"])
        // A broken file: logged with its line and column, the pairings stay.
        try write([#"1,b1,"Doe, John","Moe, Max""#, #"two,b2,"Roe, Richard","Poe, Ed""#])
        service.reloadPairings()
        service.reloadPairings()
        pairings = service.broadcast.rounds["5"]?.feed.round.pairings
        #expect(pairings?.map(\.boardID) == ["b2", "b1", "b3"])
        let refusals = entries.withLock { $0.filter { $0.level == .error } }
        #expect(refusals.count == 1)
        let error = refusals.first?.metadata.first { $0.0 == "error" }?.1 ?? ""
        #expect(error.hasPrefix("\(path):3:1: "), "\(error)")
        let status = try JSONValue(parsing: service.statusText ?? "")
        #expect(status["rounds"]?.arrayValue?.first?["pairings_error"]?.stringValue == error)
        // Two boards on one e-board is refused too.
        try write([#"1,b1,"Doe, John","Moe, Max""#, #"2,b1,"Roe, Richard","Poe, Ed""#])
        service.reloadPairings()
        #expect(service.broadcast.rounds["5"]?.feed.round.pairings.map(\.boardID) == ["b2", "b1", "b3"])
        #expect(entries.withLock { $0.filter { $0.level == .error }.count } == 2)
        // The same pairings as in force, spelt differently: the refusal clears, nothing moves.
        try write([#"1,b2,"Doe, John","Moe, Max""#, #"2,b1,"Roe, Richard","Poe, Ed""#, Self.rows[2], ""])
        service.reloadPairings()
        let cleared = try JSONValue(parsing: service.statusText ?? "")
        #expect(cleared["rounds"]?.arrayValue?.first?["pairings_error"] == JSONValue.null)
        #expect(entries.withLock { $0.filter { $0.message == "pairings reloaded" }.count } == 1)
    }

    @Test func aSilentBoardOfARunningRoundIsAnOrphan() throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        _ = broadcast.update(board: try Self.board("b1", moves: ["e4"]), at: 50)
        _ = broadcast.update(board: try Self.board("b2", moves: ["e4"]), at: 10)
        #expect(broadcast.orphans(at: 59).isEmpty)
        #expect(broadcast.orphans(at: 60)["5"]?.map(\.boardID) == ["b3"])
        #expect(broadcast.orphans(at: 70)["5"]?.map(\.boardID) == ["b2", "b3"])
        #expect(broadcast.orphans(at: 110)["5"]?.map(\.boardID) == ["b1", "b2", "b3"])
        let idle = HallBroadcast(configuration: try Self.configuration(running: false), at: 0)
        #expect(idle.orphans(at: 1000).isEmpty)
        let status = broadcast.status(at: 70)
        #expect(status.arrayValue?.first?["orphans"]?.arrayValue?.count == 2)
    }

    @Test(arguments: [
        ("/broadcast/6/games.pgn", "GET", 404), ("/broadcast/5/game-0.pgn", "GET", 404),
        ("/broadcast/5/game-4.pgn", "GET", 404), ("/broadcast/5/game-01.pgn", "GET", 404),
        ("/broadcast/5/game-x.pgn", "GET", 404), ("/broadcast/5/../../etc/passwd", "GET", 404),
        ("/broadcast/5/games.pgn", "POST", 405), ("/broadcast/5/games.pgn", "HEAD", 200),
        ("/broadcast/5/index.json", "GET", 200), ("/broadcast", "GET", 404),
    ])
    func badPathsAreRefused(_ path: String, _ method: String, _ status: Int) throws {
        var broadcast = HallBroadcast(configuration: try Self.configuration(), at: 0)
        #expect(Self.respond(&broadcast, path, method: method, at: 1).status == status)
        #expect(Self.respond(&broadcast, "/api/boards", at: 1).status == 599)
    }

    @Test func theHallIgnoresItsOwnOrphanAlerts() throws {
        var model = HallModel(base: "boardbridge")
        let topic = HallBroadcastService.orphanTopic(base: "boardbridge", round: "5")
        #expect(topic == "boardbridge/bridge/hall/broadcast/5/orphans")
        let result = model.apply(topic: topic, payload: Array(#"{"round":"5","orphans":[]}"#.utf8), now: 0)
        #expect(try result.get() == [])
        #expect(model.rejectedCount == 0)
    }

    @Test func httpDatesAreIMFFixdates() {
        #expect(HallBroadcastOutput.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HallBroadcastOutput.httpDate(1_764_633_600) == "Tue, 02 Dec 2025 00:00:00 GMT")
        #expect(HallBroadcastOutput.httpDate(951_782_400 + 86_399.9) == "Tue, 29 Feb 2000 23:59:59 GMT")
    }
}
