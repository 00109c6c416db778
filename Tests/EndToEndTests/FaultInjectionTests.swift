import Chess
import Contract
import Foundation
import JSON
import TestSupport
import Testing

/// Issue #29: the project's own fault-injection suite. Each class of fault strikes a hall of
/// one board per family (two identity boards, two occupancy boards, a board that reports its
/// moves) in the middle of random games played at once; moves are made while the fault
/// lasts. Afterwards every ply of every game is counted as published (in the PGN, every
/// `move` message right), reported (after a `missed_moves` the bridge could not resolve: the
/// arbiter's), lost (neither) or wrong (a move, ply or FEN that is not the game's). Lost and
/// wrong must be 0; the figures are printed as `fault-injection:` lines, which
/// `deploy/test-faults.sh` collects into a table (docs/faults.md).
///
/// It runs when `BOARDBRIDGE_FAULT_SUITE` is set: `deploy/test-faults.sh` (a CI chain) runs it
/// against the release binaries, in a network namespace of its own when it can.
@Suite(.serialized, .enabled(if: FaultRun.isEnabled)) @MainActor struct FaultInjectionTests {
    /// The boards of every class: ids are per class, so the halls of two classes never meet.
    static func boards(_ prefix: String, _ number: Int) -> [HallBoard] {
        let address = { (index: Int) in String(format: "AA:BB:CC:29:%02X:%02X", number, index) }
        return [
            HallBoard(id: "\(prefix)-nut", family: "chessnut", address: address(1)),
            HallBoard(id: "\(prefix)-mil", family: "millennium", address: address(2)),
            HallBoard(id: "\(prefix)-so", family: "squareoff", address: address(3), orientation: "white"),
            HallBoard(id: "\(prefix)-peg", family: "pegasus", address: address(4), orientation: "white"),
            HallBoard(id: "\(prefix)-up", family: "chessup", address: address(5)),
        ]
    }

    /// Plies before the fault, while it lasts (at most), and after.
    nonisolated static let before = 6
    nonisolated static let during = 3
    nonisolated static let after = 6

    @Test func brokerKilled() async throws {
        try await FaultRun.strike(
            "broker killed", seed: 2901, boards: Self.boards("fb", 1), settings: .init(brokerPersistence: true)
        ) { hall, _ in
            await hall.broker.kill()
        } recover: { hall, _ in
            try await hall.broker.start()
        }
    }

    @Test func bridgeKilledWithMovesWhileDown() async throws {
        try await FaultRun.strike("bridge killed", seed: 2902, boards: Self.boards("fk", 2)) { hall, _ in
            _ = await hall.bridge.kill()
        } recover: { hall, boards in
            let mark = hall.recorder.mark
            try hall.bridge.start()
            for board in boards { try await hall.waitUntilReady(board.id, since: mark) }
        }
    }

    @Test func linksDropped() async throws {
        try await FaultRun.strike("links dropped", seed: 2903, boards: Self.boards("fl", 3)) { hall, boards in
            for board in boards {
                try await hall.ctl("fail-connects", board.id, "4")
                try await hall.ctl("drop", board.id)
            }
        } recover: { hall, boards in
            for board in boards {
                try await waitUntil("\(board.id) ready again", context: hall.report) {
                    hall.connectionStates(board.id).last == "ready"
                }
            }
        }
    }

    @Test func adapterSwitchedOff() async throws {
        try await FaultRun.strike("adapter off", seed: 2904, boards: Self.boards("fa", 4)) { hall, boards in
            let mark = hall.recorder.mark
            try await hall.ctl("power", "hci0", "off")
            for board in boards {
                try await waitUntil("\(board.id) powered off", context: hall.report) {
                    hall.connectionStates(board.id, since: mark).last == "powered_off"
                }
            }
        } recover: { hall, boards in
            let mark = hall.recorder.mark
            try await hall.ctl("power", "hci0", "on")
            for board in boards { try await hall.waitUntilReady(board.id, since: mark) }
        }
    }

    @Test func stateDirectoryFull() async throws {
        let settings = HallSettings(stateDirectoryTmpfs: "size=256k")
        try await FaultRun.strike("state directory full", seed: 2905, boards: Self.boards("fs", 5), settings: settings)
        {
            hall, _ in
            let state = hall.directory.appendingPathComponent("state").path
            try await hall.inBridgeNamespace("head -c 1048576 /dev/zero > '\(state)/filler' 2>/dev/null; true")
        } recover: { hall, _ in
            let state = hall.directory.appendingPathComponent("state").path
            try await hall.inBridgeNamespace("rm -f '\(state)/filler'")
        } finally: { hall, boards, games in
            // Every move made while the disk was full is saved once it has room again (a
            // restart cannot show it here: the bridge's tmpfs would be a new one).
            let state = hall.directory.appendingPathComponent("state").path
            for board in boards {
                guard let san = try PlayedGame(games[board.id] ?? []).game.moves.last?.san else { continue }
                let files = "'\(state)/\(board.id).json' '\(state)/\(board.id).journal'"
                let deadline = ContinuousClock.now + .seconds(30)
                while (try? await hall.inBridgeNamespace("cat \(files) | grep -qF '\"san\":\"\(san)\"'")) == nil {
                    guard ContinuousClock.now < deadline else {
                        Issue.record("\(board.id)'s last move \(san) not saved")
                        break
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
    }

    @Test func floodOfLargeCommands() async throws {
        try await FaultRun.strike("flood of large commands", seed: 2906, boards: Self.boards("ff", 6)) { hall, boards in
            // 400 refused `leds` commands of 60 KB on the first board's topic, sent while every
            // board plays.
            let payload = #"{"leds":""# + String(repeating: "x", count: 60_000) + #""}"#
            for _ in 0..<400 { try hall.recorder.publish(hall.topic(boards[0].id, "set"), payload) }
        } recover: { _, _ in
        }
    }
}

/// One class of fault through a hall: the games, the fault, the count.
@MainActor
enum FaultRun {
    /// Whether the suite runs (`BOARDBRIDGE_FAULT_SUITE` set).
    nonisolated static let isEnabled = ProcessInfo.processInfo.environment["BOARDBRIDGE_FAULT_SUITE"] != nil

    typealias Step = @MainActor (Hall, [HallBoard]) async throws -> Void
    typealias Check = @MainActor (Hall, [HallBoard], [String: [String]]) async throws -> Void

    /// One board's game and how many of its plies are made while the fault lasts.
    struct Plan {
        var game: [String]
        var gap: Int
        /// The plies before the fault.
        var before: [String] { Array(game.prefix(FaultInjectionTests.before)) }
        /// The plies made while it lasts (the fault strikes during the first).
        var during: [String] { Array(game.dropFirst(FaultInjectionTests.before).prefix(gap)) }
        /// The rest of the game.
        var after: [String] { Array(game.dropFirst(FaultInjectionTests.before + gap)) }
    }

    /// Per board: plies published, reported, lost, wrong; moves recovered.
    struct Tally {
        var plies = 0
        var published = 0
        var reported = 0
        var lost = 0
        var wrong = 0
        var recovered = 0
        var problems: [String] = []

        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(
                plies: lhs.plies + rhs.plies, published: lhs.published + rhs.published,
                reported: lhs.reported + rhs.reported, lost: lhs.lost + rhs.lost, wrong: lhs.wrong + rhs.wrong,
                recovered: lhs.recovered + rhs.recovered, problems: lhs.problems + rhs.problems)
        }
    }

    /// Plays random games on `boards` (`seed`); after ``FaultInjectionTests/before`` plies the
    /// boards play up to ``FaultInjectionTests/during`` more (a random number per board, 1 at
    /// least) and `fault` strikes at a random moment of the first of them; `recover` ends it,
    /// the rest is played, `finally` runs, and every board's game is counted.
    static func strike(
        _ name: String, seed: UInt64, boards: [HallBoard], settings: HallSettings = HallSettings(),
        fault: Step, recover: Step, finally: Check? = nil
    ) async throws {
        var settings = settings
        settings.desyncGrace = 0.5
        settings.reconnectDelays = [0.3]
        let hall = try await Hall(boards: boards, settings: settings)
        defer { hall.stop() }
        var generator = SeededGenerator(seed: seed)
        let total = FaultInjectionTests.before + FaultInjectionTests.during + FaultInjectionTests.after
        var plans: [String: Plan] = [:]
        for board in boards {
            let game = RandomGame.uci(plies: total, using: &generator)
            plans[board.id] = Plan(game: game, gap: Int.random(in: 1...FaultInjectionTests.during, using: &generator))
        }
        let played = plans.mapValues(\.game)
        func phase(_ part: (Plan) -> [String]) -> [(board: String, uci: [String])] {
            boards.map { ($0.id, plans[$0.id].map(part) ?? []) }
        }
        try await hall.playTogether(phase(\.before))
        for board in boards { _ = try await hall.waitForPGN(board.id, plies: plans[board.id]?.before.count ?? 0) }
        // The fault strikes while the boards play, at a random moment of their first move.
        let gap = phase(\.during)
        let playing = Task { try await hall.playTogether(gap) }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<400, using: &generator)))
        try await fault(hall, boards)
        try await playing.value
        try await recover(hall, boards)
        try await hall.playTogether(phase(\.after))
        if let finally { try await finally(hall, boards, played) }

        // Settled: every board's PGN holds its game, or its gap went to the arbiter.
        try? await waitUntil("every game published or its gap reported", timeout: .seconds(30)) {
            boards.allSatisfy { board in
                let tally = count(board, hall: hall, game: played[board.id] ?? [])
                return tally.published == tally.plies || tally.reported > 0
            }
        }
        var sum = Tally()
        var lines: [String] = []
        for board in boards {
            let tally = count(board, hall: hall, game: played[board.id] ?? [])
            sum = sum + tally
            if tally.reported > 0, ProcessInfo.processInfo.environment["BOARDBRIDGE_FAULT_DEBUG"] != nil {
                print(dump(board, hall: hall, game: played[board.id] ?? []))
            }
            lines.append(
                "\(board.family) (gap \(plans[board.id]?.gap ?? 0)) \(tally.published)/\(tally.plies)"
                    + (tally.reported > 0 ? " (\(tally.reported) reported)" : ""))
        }
        let summary =
            "fault-injection: \(name): \(boards.count) boards, \(sum.plies) plies: \(sum.published) published"
            + " (\(sum.recovered) recovered after a gap), \(sum.reported) reported, \(sum.lost) lost,"
            + " \(sum.wrong) wrong; seed \(seed); \(lines.joined(separator: ", "))"
        print(summary)
        #expect(sum.wrong == 0, "\(summary)\n\(sum.problems.joined(separator: "\n"))")
        #expect(sum.lost == 0, "\(summary)\n\(sum.problems.joined(separator: "\n"))\n\(hall.report())")
    }

    /// What happened to `board`, for a reader of a reported gap (`BOARDBRIDGE_FAULT_DEBUG=1`;
    /// `BOARDBRIDGE_E2E_LOG_LEVEL=debug` makes the bridge's log say more).
    static func dump(_ board: HallBoard, hall: Hall, game: [String]) -> String {
        var lines = ["== \(board.id) (\(board.family)): \(game.joined(separator: " "))"]
        for message in hall.recorder.messages where message.topic.hasPrefix(hall.topic(board.id) + "/") {
            guard !message.topic.hasSuffix("/pgn"), !message.topic.hasSuffix("/clock") else { continue }
            lines.append("\(message.topic) \(message.text.prefix(300))")
        }
        lines.append("-- bridge log")
        lines += hall.bridge.output.split(separator: "\n").filter { $0.contains(board.id) }.map(String.init)
        lines.append("-- boardsim log")
        lines += hall.simulator.output.split(separator: "\n").filter { $0.contains(board.id) }.map(String.init)
        return lines.joined(separator: "\n")
    }

    /// Counts one board's game: the last PGN must be a beginning of the game, every move
    /// message the game's ply; what the PGN lacks is reported after a `missed_moves`, else lost.
    static func count(_ board: HallBoard, hall: Hall, game uci: [String]) -> Tally {
        var tally = Tally(plies: uci.count)
        guard let truth = try? PlayedGame(uci) else { return tally }
        let moves = truth.game.moves
        for payload in hall.recorder.json(on: hall.topic(board.id, "move")) {
            guard let ply = payload["ply"]?.intValue, ply >= 1, ply <= moves.count,
                payload["uci"]?.stringValue == moves[ply - 1].move.uci,
                payload["fen"]?.stringValue == moves[ply - 1].fenAfter,
                payload["san"]?.stringValue == moves[ply - 1].san
            else {
                tally.wrong += 1
                tally.problems.append("\(board.id): wrong move \(payload.encodedString())")
                continue
            }
            if payload["recovered"] == true { tally.recovered += 1 }
        }
        let pgn = hall.recorder.messages(on: hall.topic(board.id, "pgn")).last?.text ?? ""
        let published = (try? PlayedGame.moves(inPGN: pgn)) ?? []
        guard Array(uci.prefix(published.count)) == published else {
            tally.wrong += 1
            tally.problems.append("\(board.id): PGN is not the game's: \(published) for \(uci)")
            return tally
        }
        tally.published = published.count
        let missed = hall.recorder.json(on: hall.topic(board.id, "event")).contains {
            $0["event_type"] == "out_of_sync" && $0["reason"] == "missed_moves"
        }
        if missed { tally.reported = uci.count - published.count } else { tally.lost = uci.count - published.count }
        return tally
    }
}
