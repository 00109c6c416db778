import Broadcast
import Chess
import Config
import Foundation
import HTTP
import Hall
import TestSupport

/// Section 6: a relay polling the hall's broadcast files (`/broadcast/<round>/games.pgn`)
/// for a 512-board round, 40 plies with clocks a game: the cost of one poll answered `304
/// Not Modified` (nothing new), `200` from the cache (a relay without `If-None-Match`), and
/// `200` after a move (the round's PGN rendered again), in the hall's own code without the
/// socket. The floor, measured in the same run, is one copy of the served body.
@MainActor
struct BroadcastSection: BenchSection {
    let number = 6
    let id = "broadcast"
    let title = "Broadcast: a relay polling a 512-board round"

    static let boards = 512
    static let plies = 40

    func run(_ context: BenchContext) async throws {
        let quick = context.quick
        let runTime: Duration = quick ? .milliseconds(20) : .milliseconds(200)
        let warmup: Duration = quick ? .milliseconds(10) : .milliseconds(100)
        let repeats = quick ? 3 : 9
        var csv = "board,board_id,white,black\n"
        for board in 1...Self.boards { csv += "\(board),t\(board),\"White \(board)\",\"Black \(board)\"\n" }
        let round = try BroadcastRound(csv: csv, round: "1", event: "Bench Open", timeControl: "5400+30")
        var broadcast = HallBroadcast(
            configuration: BroadcastConfiguration(rounds: [.init(round: round, delay: 0, running: true)]), at: 0)
        var random = SeededGenerator(seed: 22)
        var games: [HallBoard] = []
        for board in 1...Self.boards {
            var game = Game()
            for ply in 0..<Self.plies {
                let moves = game.position.legalMoves()
                guard !moves.isEmpty else { break }
                try game.play(moves[Int.random(in: 0..<moves.count, using: &random)], clock: 5400 - Double(ply) * 30)
            }
            var hallBoard = HallBoard(id: "t\(board)")
            hallBoard.pgn = game.pgn
            hallBoard.state = ["clock": ["white": .number(5000), "black": .number(4990)]]
            _ = broadcast.update(board: hallBoard, at: 1)
            games.append(hallBoard)
        }
        let request = HTTPRequest(method: "GET", path: "/broadcast/1/games.pgn")
        guard let first = broadcast.respond(to: request, at: 2), first.status == 200,
            let etag = first.headers.first(where: { $0.name == "ETag" })?.value
        else { throw BenchError(description: "games.pgn was not served") }
        let size = first.body.count
        let conditional = HTTPRequest(method: "GET", path: "/broadcast/1/games.pgn", headers: ["if-none-match": etag])

        let notModified = Stopwatch.measure(operations: 1, runTime: runTime, warmup: warmup, repeats: repeats) {
            broadcast.respond(to: conditional, at: 3)?.status ?? 0
        }
        let cached = Stopwatch.measure(operations: 1, runTime: runTime, warmup: warmup, repeats: repeats) {
            broadcast.respond(to: request, at: 3)?.body.count ?? 0
        }
        var ply = 0
        let changed = Stopwatch.measure(operations: 1, runTime: runTime, warmup: warmup, repeats: repeats) {
            // One board's clocks change (as after a move): the round is rendered again.
            ply += 1
            var board = games[ply % Self.boards]
            board.state = ["clock": ["white": .number(Double(5000 - ply)), "black": .number(4990)]]
            _ = broadcast.update(board: board, at: 3)
            return broadcast.respond(to: conditional, at: 3)?.body.count ?? 0
        }
        let body = first.body
        let floor = Stopwatch.measure(operations: 1, runTime: runTime, warmup: warmup, repeats: repeats) {
            var copy = body
            copy[0] = UInt8(truncatingIfNeeded: copy.count)
            return Int(copy[copy.count - 1])
        }
        let note = "\(Self.boards) games of \(Self.plies) plies with [%clk], games.pgn \(size / 1024) KiB"
        let floorNs = floor.medianSecondsPerOperation * 1e9
        context.record(
            BenchResult(
                key: "broadcast.poll.304", label: "poll answered 304 Not Modified (If-None-Match)",
                value: notModified.medianSecondsPerOperation * 1e6, unit: "µs",
                goal: BenchGoal(direction: .atMost, threshold: 50, text: "< 50 µs"),
                details: notModified.details.merging(["floor_ns": floorNs]) { $1 }, note: note))
        context.record(
            BenchResult(
                key: "broadcast.poll.200.cached", label: "poll answered 200 from the cache (no If-None-Match)",
                value: cached.medianSecondsPerOperation * 1e6, unit: "µs",
                details: cached.details.merging(["floor_ns": floorNs, "bytes": Double(size)]) { $1 }))
        context.record(
            BenchResult(
                key: "broadcast.poll.200.changed", label: "poll answered 200 after a board changed (rendered)",
                value: changed.medianSecondsPerOperation * 1e3, unit: "ms",
                details: changed.details.merging(["bytes": Double(size)]) { $1 }))
        context.record(
            BenchResult(
                key: "broadcast.floor.copy", label: "floor: one copy of the served games.pgn", value: floorNs,
                unit: "ns", details: floor.details))
    }
}
