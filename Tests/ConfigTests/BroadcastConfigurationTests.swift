import Broadcast
import Config
import Foundation
import Testing

/// Issue #22: `hall.broadcast`, the rounds broadcast to relays.
@Suite struct BroadcastConfigurationTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bb-broadcast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "board,board_id,white,white_title,black\n2,b2,\"Roe, Richard\",IM,\"Poe, Edgar\"\n1,b1,\"Doe, John\",GM,X\n"
            .write(to: directory.appendingPathComponent("r1.csv"), atomically: true, encoding: .utf8)
        try "board,white,black\n1,A,B\n1,C,D\n"
            .write(to: directory.appendingPathComponent("twice.csv"), atomically: true, encoding: .utf8)
        try "board,white,blak\n1,A,B\n"
            .write(to: directory.appendingPathComponent("column.csv"), atomically: true, encoding: .utf8)
        try
            #"{"round":"2","event":"Open","pairings":[{"board":1,"board_id":"b3","white":{"name":"A"},"black":{"name":"B"}}]}"#
            .write(to: directory.appendingPathComponent("r2.json"), atomically: true, encoding: .utf8)
        try "secret-token\n".write(to: directory.appendingPathComponent("token"), atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Issue #30 (5): `Round "final.1"` has no round number; a named round is numbered by
    /// `number:`, else by its place in the list; lichess's 64 games a round is warned about.
    @Test func namedRoundsAreNumberedAndBigRoundsWarned() throws {
        var big = "board,board_id,white,black\n"
        for board in 1...65 { big += "\(board),e\(board),W\(board),B\(board)\n" }
        try big.write(to: directory.appendingPathComponent("big.csv"), atomically: true, encoding: .utf8)
        let yaml = """
            hall:
              broadcast:
                rounds:
                  - {round: "1", pairings_file: \(path("r1.csv"))}
                  - {round: final, pairings_file: \(path("r1.csv"))}
                  - {round: playoff, number: 9, pairings_file: \(path("r1.csv"))}
                  - {round: big, pairings_file: \(path("big.csv"))}

            """
        let broadcast = try ConfigLoader.parse(yamlText: yaml).hall.broadcast
        #expect(broadcast.rounds.map(\.round.tagRound) == ["1", "2", "9", "4"])
        let final = broadcast.rounds[1]
        let pgn = BroadcastPGN.render(pairing: final.round.pairings[0], round: final.round, game: nil, clocks: nil)
        #expect(pgn.contains("[Round \"2.1\"]"), "\(pgn)")
        // The file read again mid-round keeps the number.
        let reread = try #require(final.pairingsFile).read().flatMap(final.pairingsFile!.parse).get()
        #expect(reread.tagRound == "2")
        #expect(
            broadcast.warnings == [
                "hall.broadcast.rounds[3]: round big has 65 games; lichess keeps at most 64 per round (split it into several broadcast rounds)"
            ])
        #expect(broadcast.rounds[0].round.sizeWarning == nil)
    }

    /// Issue #30 (5): a PGN file of the round's games, as pairing programs export them.
    @Test func readsAPGNPairingsFile() throws {
        try "[Round \"4.1\"]\n[White \"Doe, John\"]\n[Black \"Roe, Richard\"]\n[BoardId \"b1\"]\n*\n"
            .write(to: directory.appendingPathComponent("r4.pgn"), atomically: true, encoding: .utf8)
        let yaml = "hall:\n  broadcast:\n    rounds:\n      - pairings_file: \(path("r4.pgn"))\n"
        let round = try #require(try ConfigLoader.parse(yamlText: yaml).hall.broadcast.rounds.first)
        #expect(round.round.round == "4")
        #expect(round.round.pairings.map(\.boardID) == ["b1"])
    }

    @Test func readsRoundsFromCSVAndJSON() throws {
        let yaml = """
            hall:
              broadcast:
                orphan_after: 120
                rounds:
                  - round: "1"
                    pairings_file: \(path("r1.csv"))
                    event: Weekend Open
                    time_control: 5400+30
                    delay: 900
                    files_dir: \(path("out"))
                    push: {url: "https://lichess.org/api/broadcast/round/abcd1234/push", token_file: \(path("token"))}
                  - pairings_file: \(path("r2.json"))
                    running: true
                    push: {url: "http://127.0.0.1:9/push", token_env: LICHESS_TOKEN}

            """
        let broadcast = try ConfigLoader.parse(yamlText: yaml, environment: ["LICHESS_TOKEN": "env-token"]).hall
            .broadcast
        #expect(broadcast.orphanAfter == 120)
        #expect(broadcast.rounds.count == 2)
        let first = broadcast.rounds[0]
        #expect(first.round.round == "1")
        #expect(first.round.event == "Weekend Open")
        #expect(first.round.timeControl == "5400+30")
        #expect(first.round.pairings.map(\.boardNumber) == [1, 2])
        #expect(first.round.pairings.map(\.boardID) == ["b1", "b2"])
        #expect(first.delay == 900)
        #expect(first.running == false)
        #expect(first.filesDirectory == path("out"))
        #expect(first.push?.token.reveal() == "secret-token")
        let second = broadcast.rounds[1]
        #expect(second.round.round == "2")
        #expect(second.round.event == "Open")
        #expect(second.running)
        #expect(second.push?.token.reveal() == "env-token")
        #expect(!"\(broadcast)".contains("secret-token"))
    }

    @Test(arguments: [
        ("twice.csv", "twice.csv: board number 1 is paired twice"),
        ("column.csv", "column.csv:1:13: unknown column 'blak'"),
    ])
    func pairingsErrorsNameTheFileLineAndColumn(_ file: String, _ expected: String) {
        let yaml = "hall:\n  broadcast:\n    rounds:\n      - {round: '1', pairings_file: \(path(file))}\n"
        do {
            _ = try ConfigLoader.parse(yamlText: yaml)
            Issue.record("accepted \(file)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(error.description.contains("hall.broadcast.rounds[0].pairings_file"), "\(error.description)")
            #expect(error.description.contains(":4:"), "no line of the YAML: \(error.description)")
        }
    }

    @Test(arguments: [
        ("{round: '1'}", "missing required key \"pairings_file\""),
        ("{round: 'a/b', pairings_file: R1}", "hall.broadcast.rounds[0].round"),
        ("{round: '1', pairings_file: /nonexistent/p.csv}", "cannot read"),
        ("{pairings_file: R1}", "missing required key \"round\""),
        ("{round: '1', pairings_file: R1, delay: 3601}", "hall.broadcast.rounds[0].delay"),
        ("{round: '1', pairings_file: R1, push: {url: 'ftp://x', token: abc}}", "http:// or https://"),
        ("{round: '1', pairings_file: R1, push: {url: 'https://x/push'}}", "missing required key \"token_file\""),
        ("{round: '1', pairings_file: R1, push: {url: 'https://x/push', token_env: NOPE}}", "NOPE"),
        ("{round: '1', pairings_file: R1, files_dir: R1}", "is a file, not a directory"),
        ("{round: '1', pairings_file: R1, pairs: x}", "unknown key \"pairs\""),
    ])
    func refusesWithPosition(_ round: String, _ expected: String) {
        let yaml =
            "hall:\n  broadcast:\n    rounds:\n      - " + round.replacingOccurrences(of: "R1", with: path("r1.csv"))
            + "\n"
        do {
            _ = try ConfigLoader.parse(yamlText: yaml)
            Issue.record("accepted \(round)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(error.description.contains(":4:"), "no line and column: \(error.description)")
        }
    }

    /// Issue #30: with one shared `config.yaml`, the bridge exited 78 when the hall's
    /// `push.token_env` (or its arbiter password's variable) was missing from its own
    /// environment. The bridge never uses the hall's secrets; the hall still needs them.
    @Test func theBridgeDoesNotNeedTheHallsSecrets() throws {
        let yaml = """
            hall:
              arbiter_password_env: ARBITER_PASSWORD
              broadcast:
                rounds:
                  - round: '1'
                    pairings_file: \(path("r1.csv"))
                    push: {url: "https://lichess.org/api/broadcast/round/abcd1234/push", token_env: LICHESS_TOKEN}
                  - round: '2'
                    pairings_file: \(path("r1.csv"))
                    push: {url: "https://lichess.org/api/broadcast/round/abcd1234/push", token_file: /nonexistent/t}

            """
        let bridge = try ConfigLoader.parse(yamlText: yaml, resolvingHallSecrets: false)
        #expect(bridge.hall.arbiterPassword == nil)
        #expect(bridge.hall.broadcast.rounds.map(\.push) == [nil, nil])
        #expect(bridge.hall.broadcast.rounds.map(\.round.round) == ["1", "2"])
        do {
            _ = try ConfigLoader.parse(yamlText: yaml)
            Issue.record("the hall's reading accepted missing secrets")
        } catch {
            let text = error.description
            for expected in ["ARBITER_PASSWORD", "LICHESS_TOKEN", "/nonexistent/t"] {
                #expect(text.contains(expected), "\(text)")
            }
        }
        // The shape of the hall's section is still checked for the bridge.
        let wrong = yaml.replacingOccurrences(of: "token_env: LICHESS_TOKEN", with: "token_env: [LICHESS_TOKEN]")
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: wrong, resolvingHallSecrets: false) }
    }

    @Test func twoRoundsMayNotShareAName() {
        let r1 = path("r1.csv")
        let yaml = """
            hall:
              broadcast:
                rounds:
                  - {round: '1', pairings_file: \(r1)}
                  - {round: '1', pairings_file: \(r1)}

            """
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: yaml) }
    }
}
