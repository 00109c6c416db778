import Contract
import Foundation
import TestSupport
import Testing

@testable import Hall

@Suite("HallModel: the live model of every board, from the contract's messages")
struct HallModelTests {
    static let state = """
        {"board":"b1","name":"Board 1","family":"chessnut","model":"Chessnut Air","address":null,"adapter":"hci0",\
        "connection":{"state":"ready","attempt":null,"max_attempts":null},\
        "fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1","turn":"black","ply":1,"move_number":1,\
        "last_move":{"uci":"e2e4","san":"e4"},"sync":{"state":"in_sync","squares":[],"reason":null},\
        "clock":{"white":300,"black":290,"running":"black","paused":false},"battery":{"percent":81,"charging":false},\
        "game":{"event":null,"site":null,"round":"3","board":"7","white":"Doe, J","black":"Roe, R"},\
        "result":"*","updated":"2026-05-01T14:03:11.204Z"}
        """

    static let now = ISO8601Timestamp.milliseconds("2026-05-01T14:03:12.000Z")!

    func apply(_ model: inout HallModel, _ topic: String, _ payload: String) -> Result<[HallChange], HallRejection> {
        model.apply(topic: "boardbridge/" + topic, payload: Array(payload.utf8), now: Self.now)
    }

    @Test("retained state and the node's info make a board with its node; host offline marks it")
    func stateAndNode() throws {
        var model = HallModel(base: "boardbridge")
        #expect(try apply(&model, "b1", Self.state).get() == [.board("b1")])
        #expect(model.boards["b1"]?.state?["fen"]?.stringValue?.hasPrefix("rnbqkbnr/pppppppp/8/8/4P3") == true)
        _ = apply(
            &model, "bridge/hall-a/info", #"{"version":"0.1.0","node":"hall-a","boards":[{"id":"b1"},{"id":"b2"}]}"#)
        #expect(model.boards["b1"]?.node == "hall-a")
        #expect(model.boards["b2"]?.node == "hall-a")
        #expect(model.boards["b1"]?.needsAttention(hostOffline: false) == false)
        let changes = try apply(&model, "bridge/hall-a/state", #"{"state":"offline"}"#).get()
        #expect(changes.contains(.node("hall-a")) && changes.contains(.board("b1")))
        let json = HallJSON.board(model.boards["b1"]!, model: model)
        #expect(json["host"] == "offline")
        #expect(json["attention"] == true)
    }

    @Test("the clock reference is the state's time, never later than its arrival")
    func clockReference() {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        #expect(model.boards["b1"]?.clockReference == ISO8601Timestamp.milliseconds("2026-05-01T14:03:11.204Z"))
        _ = apply(&model, "b1", Self.state.replacingOccurrences(of: "2026-05-01T14:03:11", with: "2030-01-01T00:00:00"))
        #expect(model.boards["b1"]?.clockReference == Self.now)
        #expect(ISO8601Timestamp.milliseconds("1970-01-01T00:00:01.500Z") == 1500)
        let date = Date(timeIntervalSince1970: 1_777_644_191.204)
        #expect(abs(ISO8601Timestamp.milliseconds(ISO8601Timestamp.string(from: date))! - 1_777_644_191_204) < 1)
        #expect(ISO8601Timestamp.milliseconds("garbage") == nil)
        #expect(ISO8601Timestamp.milliseconds("2026-13-01T00:00:00.000Z") == nil)
    }

    @Test("an illegal move stays until acknowledged, or until play goes on")
    func illegalMoveAlert() {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        _ = apply(
            &model, "b1/event",
            #"{"event_type":"illegal_move","uci":"f1f4","squares":["f1","f4"],"lan":"Bf1-f4","timestamp":"2026-05-01T14:03:11.204Z"}"#
        )
        #expect(model.boards["b1"]?.alert?["lan"] == "Bf1-f4")
        _ = apply(&model, "b1/event", #"{"event_type":"alert","reason":"illegal_move","squares":["f1","f4"]}"#)
        _ = apply(&model, "b1/event", #"{"event_type":"in_sync","timestamp":"2026-05-01T14:03:11.204Z"}"#)
        #expect(model.boards["b1"]?.alert?["lan"] == "Bf1-f4", "putting the piece back does not acknowledge")
        #expect(model.acknowledge(board: "b1") == [.board("b1")])
        #expect(model.boards["b1"]?.alert == nil)
        #expect(model.acknowledge(board: "b1") == [])
        _ = apply(&model, "b1/event", #"{"event_type":"illegal_move","uci":null,"squares":[]}"#)
        _ = apply(
            &model, "b1/move",
            #"{"uci":"e7e5","san":"e5","ply":2,"move_number":1,"color":"black","fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2","clock":{"white":300,"black":280},"timestamp":"2026-05-01T14:03:11.900Z"}"#
        )
        let board = model.boards["b1"]!
        #expect(board.alert == nil)
        #expect(board.state?["turn"] == "white")
        #expect(board.state?["clock"]?["black"] == 280)
        #expect(board.state?["clock"]?["running"] == "white")
        #expect(board.state?["last_move"]?["san"] == "e5")
        #expect(board.events.count == 5)
    }

    @Test("out of sync, reconnecting, battery low and game over are read from their topics")
    func states() {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        _ = apply(&model, "b1/event", #"{"event_type":"out_of_sync","squares":["e2","e4"],"reason":null}"#)
        #expect(model.boards["b1"]?.syncState == "out_of_sync")
        #expect(model.boards["b1"]?.state?["sync"]?["squares"] == ["e2", "e4"])
        _ = apply(&model, "b1/connection", #"{"state":"reconnecting","attempt":3,"max_attempts":10}"#)
        #expect(model.boards["b1"]?.connectionState == "reconnecting")
        _ = apply(&model, "b1", Self.state.replacingOccurrences(of: #""percent":81"#, with: #""percent":9"#))
        #expect(model.boards["b1"]?.batteryLow == true)
        _ = apply(&model, "b1/event", #"{"event_type":"game_end","result":"1-0","termination":"checkmate"}"#)
        #expect(model.boards["b1"]?.state?["result"] == "1-0")
        _ = apply(
            &model, "b1/clock", #"{"action":"pause","color":"white","white":250,"black":200,"reason":"game_end"}"#)
        #expect(model.boards["b1"]?.state?["clock"]?["paused"] == true)
        #expect(model.boards["b1"]?.state?["clock"]?["white"] == 250)
    }

    @Test("hostile messages are refused and change nothing")
    func hostile() {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        let before = model.boards
        let refused: [(String, String)] = [
            ("b1", "{not json"),
            ("b1", "[1,2,3]"),
            ("<script>alert(1)</script>", Self.state),
            ("b1\"onmouseover=x", Self.state),
            ("b1/unknown", "{}"),
            ("b1/move/extra", "{}"),
            ("b1", String(repeating: "[", count: 20) + String(repeating: "]", count: 20)),
            ("b1/event", #"{"no_type":1}"#),
            ("b1", "{\"fen\":\"" + String(repeating: "x", count: HallModel.payloadLimit) + "\"}"),
        ]
        for (topic, payload) in refused {
            guard case .failure = apply(&model, topic, payload) else {
                Issue.record("accepted \(topic)")
                continue
            }
        }
        #expect(model.boards == before)
        #expect(model.rejectedCount == refused.count)
        // A board's corrections (the audit log's), also cleared or of a board not shown: no board.
        for (topic, payload) in [("b1/corrections", #"{"board":"b1","corrections":[]}"#), ("b7/corrections", "")] {
            guard case .success(let changes) = apply(&model, topic, payload) else {
                Issue.record("refused \(topic)")
                continue
            }
            #expect(changes.isEmpty)
        }
        #expect(model.boards == before)
        // Long strings inside an accepted payload are cut.
        let long = Self.state.replacingOccurrences(of: "Doe, J", with: String(repeating: "<b>", count: 1000))
        _ = apply(&model, "b1", long)
        #expect((model.boards["b1"]?.state?["game"]?["white"]?.stringValue?.count ?? 0) <= HallModel.stringLimit)
    }

    /// Issue #29: every bridge probes its command topics at each connection; the hall, which
    /// reads the whole base topic, takes the probes for commands (no warning, no change).
    @Test("the bridges' subscription probes are inputs, not rejected messages")
    func probes() {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        let before = model.boards
        for topic in ["bridge/set", "bridge/set/probe", "bridge/node-a/request/probe"] {
            guard case .success(let changes) = apply(&model, topic, #"{"probe":"node-a/1"}"#) else {
                Issue.record("refused \(topic)")
                continue
            }
            #expect(changes.isEmpty)
        }
        #expect(model.boards == before)
        #expect(model.rejectedCount == 0)
    }

    @Test("an empty retained state removes the board")
    func removal() throws {
        var model = HallModel(base: "boardbridge")
        _ = apply(&model, "b1", Self.state)
        #expect(try apply(&model, "b1", "").get() == [.removed("b1")])
        #expect(model.boards["b1"] == nil)
    }

    @Test("random topics and payloads never crash the model and it stays bounded", arguments: [1, 2, 3])
    func fuzz(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var model = HallModel(base: "boardbridge")
        let levels = [
            "b1", "b2", "bridge", "hall-a", "state", "info", "event", "move", "clock", "pgn", "<x>", "", "set",
        ]
        let payloads = [
            Self.state, "{}", "", "null", #"{"event_type":"illegal_move"}"#, #"{"state":"offline"}"#,
            #"{"boards":[{"id":"b9"},{"id":"<x>"},1]}"#, #"{"uci":"e2e4","fen":5}"#, "\u{FF}\u{FE}",
        ]
        for _ in 0..<3000 {
            let count = Int.random(in: 1...4, using: &random)
            let topic = (0..<count).map { _ in levels.randomElement(using: &random)! }.joined(separator: "/")
            var payload = Array(payloads.randomElement(using: &random)!.utf8)
            if !payload.isEmpty, Bool.random(using: &random) {
                payload[Int.random(in: 0..<payload.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = model.apply(topic: "boardbridge/" + topic, payload: payload, now: 0)
        }
        // Valid levels, and the one id an info payload names.
        let validIDs = Set(levels.filter { (try? Topics.validateBoardID($0)) != nil } + ["b9"])
        #expect(Set(model.boards.keys).isSubset(of: validIDs))
        #expect(model.boards.keys.allSatisfy { (try? Topics.validateBoardID($0)) != nil })
        #expect(model.boards.values.allSatisfy { $0.events.count <= HallModel.eventLimit })
    }
}
