import Contract
import Foundation
import TestSupport
import Testing

extension EndToEndTests {
    /// Issue #16 (7 and 8), end to end: a Pegasus that rejects the bridge's developer key
    /// and a ChessUp that never answers show `handshake_failed` with the reason and a
    /// warning in the log; the retained
    /// topics are published once at start-up; the state names the adapter the bridge
    /// picked; topics without a board, a command name or an op are answered with errors.
    @Test func unlockFailuresStartupAndMalformedTopicsAreVisible() async throws {
        let chessnut = HallBoard(id: "air", family: "chessnut", address: "AA:BB:CC:00:02:01", configuresAdapter: false)
        // The emulated board accepts another key than the bridge's built-in one.
        let locked = HallBoard(
            id: "locked", family: "pegasus", address: "AA:BB:CC:00:02:02", orientation: "white",
            simulatorOptions: "key=01:02:03:04:05:06", becomesReady: false)
        // A ChessUp whose firmware never answers: `handshake_failed` 10 s after its handshake.
        let silent = HallBoard(
            id: "silent", family: "chessup", address: "AA:BB:CC:00:02:03", simulatorOptions: "silent=true",
            becomesReady: false)
        let hall = try await Hall(boards: [chessnut, locked, silent])
        defer { hall.stop() }

        // 7. The rejected key: a `handshake_failed` connection state and a warning.
        try await waitUntil("the locked Pegasus says handshake_failed", context: hall.report) {
            hall.connectionStates("locked").last == "handshake_failed"
        }
        let connection = try #require(hall.recorder.json(on: hall.topic("locked", "connection")).last)
        #expect(connection["last_error"]?.stringValue == "the board rejected the developer key")
        try await waitUntil("the locked Pegasus's state says handshake_failed", context: hall.report) {
            hall.recorder.json(on: hall.topic("locked")).last?["connection"]?["state"]?.stringValue
                == "handshake_failed"
        }
        #expect(
            hall.bridge.output.contains("board handshake failed")
                && hall.bridge.output.contains("the board rejected the developer key"))

        // 8. Start-up publishes each retained bridge and board topic once.
        let base = Hall.base
        #expect(hall.recorder.messages(on: hall.bridgeStateTopic).map(\.text) == [#"{"state":"online"}"#])
        // The info once at start-up, and again only with news: a board's firmware version or
        // serial number as it reports them at connect (never the same info twice in a row).
        let infos = hall.recorder.messages(on: "\(base)/bridge/\(Hall.node)/info").map(\.text)
        #expect(!infos.isEmpty && infos.count <= 1 + 3, "\(infos.count) infos")
        #expect(zip(infos, infos.dropFirst()).allSatisfy { $0 != $1 }, "an info published twice unchanged")
        #expect(hall.recorder.messages(on: hall.topic("air", "pgn")).count == 1)
        let availability = hall.recorder.json(on: hall.topic("air", "availability")).compactMap {
            $0["state"]?.stringValue
        }
        // At most the one `offline` of the broker connection before the link's `online`
        // (it was published twice).
        #expect(
            availability.prefix { $0 == "offline" }.count <= 1 && availability.last == "online",
            "availability of air: \(availability)")

        // 8. The adapter the bridge connected on, although the configuration names none.
        #expect(hall.recorder.json(on: hall.topic("air")).last?["adapter"]?.stringValue == "hci0")

        // 8. Malformed command and request topics get an error answer.
        let mark = hall.recorder.mark
        try hall.recorder.publish("\(base)/bridge/set", #"{"request":"state","transaction":"t1"}"#)
        try hall.recorder.publish(hall.topic("air", "set/"), "state")
        try hall.recorder.publish("\(base)/bridge/\(Hall.node)/request/", #"{"transaction":"t3"}"#)
        try hall.recorder.publish(hall.topic("air", "set"), #"{"position":"8/8/8/4k3/8/8/8/4K3 w - - 0"}"#)
        let answers = [
            "\(base)/bridge/response", hall.topic("air", "response"), "\(base)/bridge/\(Hall.node)/response/",
        ]
        try await waitUntil("error answers on \(answers)", context: hall.report) {
            hall.recorder.json(on: answers[0], since: mark).count == 1
                && hall.recorder.json(on: answers[1], since: mark).count == 2
                && hall.recorder.json(on: answers[2], since: mark).count == 1
        }
        let bridgeSet = hall.recorder.json(on: answers[0], since: mark)[0]
        #expect(bridgeSet["status"]?.stringValue == "error")
        #expect(bridgeSet["error"]?.stringValue == #"unknown board "bridge""#)
        #expect(bridgeSet["transaction"]?.stringValue == "t1")
        let boardAnswers = hall.recorder.json(on: answers[1], since: mark)
        #expect(boardAnswers.allSatisfy { $0["status"]?.stringValue == "error" })
        #expect(boardAnswers[0]["error"]?.stringValue?.hasPrefix("no command name after set/") == true)
        #expect(
            boardAnswers[1]["error"]?.stringValue
                == #"bad FEN "8/8/8/4k3/8/8/8/4K3 w - - 0": FEN has 5 fields, expected 4 or 6"#)
        let request = hall.recorder.json(on: answers[2], since: mark)[0]
        #expect(request["status"]?.stringValue == "error")
        #expect(
            request["error"]?.stringValue
                == #"unknown request "", expected one of info, boards, health, reconnect, restart"#)
        #expect(request["transaction"]?.stringValue == "t3")

        // 7. The silent ChessUp: no answer to the handshake.
        try await waitUntil("the silent ChessUp says handshake_failed", context: hall.report) {
            hall.connectionStates("silent").last == "handshake_failed"
        }
        let silence = try #require(hall.recorder.json(on: hall.topic("silent", "connection")).last)
        let reason = silence["last_error"]?.stringValue ?? ""
        #expect(reason.hasPrefix("no answer to the handshake after "), "\(reason)")
        #expect(hall.bridge.output.contains("no answer to the handshake"))
    }
}
