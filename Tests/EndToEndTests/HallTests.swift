import Contract
import Foundation
import JSON
import TestSupport
import Testing

extension EndToEndTests {
    /// The hall: six boards of every BLE family on two adapters.
    static let hallBoards = [
        HallBoard(id: "air", family: "chessnut", address: "AA:BB:CC:00:01:01", adapter: "hci0"),
        HallBoard(id: "up", family: "chessup", address: "AA:BB:CC:00:01:02", adapter: "hci0"),
        HallBoard(
            id: "pegasus", family: "pegasus", address: "AA:BB:CC:00:01:03", adapter: "hci0", orientation: "white"),
        HallBoard(
            id: "squareoff", family: "squareoff", address: "AA:BB:CC:00:01:04", adapter: "hci1",
            orientation: "white"),
        HallBoard(id: "mill", family: "millennium", address: "AA:BB:CC:00:01:05", adapter: "hci1"),
        HallBoard(id: "one", family: "ichessone", address: "AA:BB:CC:00:01:06", adapter: "hci1"),
        HallBoard(id: "diy", family: "cpp", address: "AA:BB:CC:00:01:07", adapter: "hci0"),
    ]

    /// The game each hall board plays: occupancy boards, and a Chess Peripheral Protocol
    /// board that names no promotion piece, promote to the default queen; the others
    /// under-promote.
    static func hallGame(for board: HallBoard) -> [String] {
        ["pegasus", "squareoff", "cpp"].contains(board.family) ? Games.whitePromotes : Games.blackUnderpromotes
    }

    /// Issue #7 (1 and 6): every board plays a full game at once; every move is published
    /// with the right SAN and FEN and the retained PGN holds the game. Then a burst of bad
    /// commands is answered with errors naming each problem, and the games go on.
    @Test func hallPlaysFullGamesAndAnswersBadCommands() async throws {
        let hall = try await Hall(boards: Self.hallBoards)
        defer { hall.stop() }

        // 1. Full games, all boards at once.
        try await hall.playTogether(Self.hallBoards.map { ($0.id, Self.hallGame(for: $0)) })
        var games: [String: PlayedGame] = [:]
        for board in Self.hallBoards {
            let game = try PlayedGame(Self.hallGame(for: board))
            let published = try await hall.waitForMoves(board.id, count: game.uci.count)
            game.expectPublished(published, board: board.id)
            game.expectPGN(try await hall.waitForPGN(board.id, plies: game.uci.count), board: board.id)
            games[board.id] = game
        }

        // 6. A burst of bad commands at every board (and one at a board that does not exist).
        let mark = hall.recorder.mark
        for board in Self.hallBoards {
            for command in BadCommand.all {
                try hall.recorder.publish(hall.topic(board.id, "set"), bytes: command.payload)
            }
        }
        try hall.recorder.publish(hall.topic("board-99", "set"), #"{"request":"state"}"#)
        for board in Self.hallBoards {
            let topic = hall.topic(board.id, "response")
            try await waitUntil("\(BadCommand.all.count) responses on \(topic)", context: hall.report) {
                hall.recorder.json(on: topic, since: mark).count >= BadCommand.all.count
            }
            let responses = hall.recorder.json(on: topic, since: mark)
            #expect(responses.count == BadCommand.all.count, "one response per command on \(board.id)")
            for (response, command) in zip(responses, BadCommand.all) {
                #expect(response["status"]?.stringValue == "error", "\(command.name) on \(board.id)")
                let message = response["error"]?.stringValue ?? ""
                #expect(message.contains(command.expected), "\(command.name) on \(board.id): \(message)")
            }
        }
        let unknown = hall.topic("board-99", "response")
        try await waitUntil("a response on \(unknown)", context: hall.report) {
            !hall.recorder.json(on: unknown, since: mark).isEmpty
        }
        let unknownResponse = hall.recorder.json(on: unknown, since: mark).first
        #expect(unknownResponse?["status"]?.stringValue == "error")
        #expect(unknownResponse?["error"]?.stringValue == #"unknown board "board-99""#)

        // The games go on: one more move on every board is published.
        for board in Self.hallBoards {
            guard var game = games[board.id] else { continue }
            let ply = game.uci.count + 1
            try game.append(["b1c3"])
            games[board.id] = game
            let moveMark = hall.recorder.mark
            try await hall.play(board.id, ["b1c3"])
            let published = try await hall.waitForMoves(board.id, count: 1, since: moveMark)
            game.expectPublished(published, fromPly: ply, board: board.id)
            game.expectPGN(try await hall.waitForPGN(board.id, plies: ply), board: board.id)
        }

        // What a client connecting now finds retained: each board's whole game.
        let retained = try await hall.retainedMessages()
        for board in Self.hallBoards {
            let pgn = try #require(retained[hall.topic(board.id, "pgn")], "retained PGN of \(board.id)")
            games[board.id]?.expectPGN(pgn, board: board.id)
        }

        // The bridge spoke every board's protocol as the firmware expects it.
        for board in Self.hallBoards {
            let result = try await hall.simulator.ctl("violations", board.id)
            let counters = try JSONValue(parsing: result.standardOutput)
            #expect(counters["total"] == 0, "protocol violations on \(board.id): \(result.standardOutput)")
        }

        // SIGTERM: a clean exit that says offline for the bridge and every board.
        let stopMark = hall.recorder.mark
        #expect(await hall.bridge.terminate() == 0)
        try await waitUntil("offline after SIGTERM", context: hall.report) {
            hall.recorder.messages(on: hall.bridgeStateTopic, since: stopMark).contains {
                $0.text == #"{"state":"offline"}"#
            }
        }
        for board in Self.hallBoards {
            let availability = hall.recorder.json(on: hall.topic(board.id, "availability"), since: stopMark)
            #expect(availability.last?["state"] == "offline", "availability of \(board.id) after SIGTERM")
        }
    }
}

/// A command the bridge must refuse, with the words its error must contain.
struct BadCommand {
    var name: String
    var payload: [UInt8]
    var expected: String

    static let all = [
        BadCommand(name: "bad JSON", payload: Array(#"{"move":"e2e4""#.utf8), expected: "invalid JSON"),
        BadCommand(
            name: "unknown command", payload: Array(#"{"mvoe":"e2e4"}"#.utf8), expected: #"unknown command "mvoe""#),
        BadCommand(name: "bad square", payload: Array(#"{"leds":["e2","e9"]}"#.utf8), expected: #"bad square "e9""#),
        BadCommand(
            name: "bad FEN",
            payload: Array(#"{"position":"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}"#.utf8),
            expected: "bad FEN"),
        BadCommand(
            name: "too large",
            payload: Array(#"{"leds":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 70_000)
                + Array(#""}"#.utf8), expected: "command too large"),
        BadCommand(name: "not an object", payload: Array("[1,2]".utf8), expected: "must be a JSON object"),
    ]
}
