import Contract
import Foundation
import JSON
import TestSupport
import Testing

@testable import Hall

/// Issue #30 (2): the audit log records every arbiter action (signed), the bridge's answer
/// to it, commands of other clients, and the corrections the bridges made; it survives a
/// restart through its journal, a torn line included, and stays bounded under a flood.
@Suite("HallAudit: the arbiter's record of every correction")
struct HallAuditTests {
    static let now = HallModelTests.now
    static let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"

    /// A model with board b1 (round 3, Doe – Roe, ply 1) on node hall-a.
    func model() -> HallModel {
        var model = HallModel(base: "boardbridge")
        _ = model.apply(topic: "boardbridge/b1", payload: Array(HallModelTests.state.utf8), now: Self.now)
        _ = model.apply(
            topic: "boardbridge/bridge/hall-a/info", payload: Array(#"{"boards":[{"id":"b1"}]}"#.utf8), now: Self.now)
        return model
    }

    func observe(
        _ audit: inout HallAudit, _ model: HallModel, _ topic: String, _ payload: String, at offset: Double = 0  // ms
    ) -> [HallAudit.Line] {
        let full = "boardbridge/" + topic
        guard let kind = try? Topics.parsePublished(full, base: "boardbridge") else { return [] }
        let levels = full.split(separator: "/")
        let name = levels.count == 4 && levels[2] == "set" ? String(levels[3]) : nil
        let json = (try? JSONValue(parsing: Array(payload.utf8))) ?? (name != nil ? .string(payload) : nil)
        let id = String(levels[1])
        return audit.observe(kind, commandName: name, json: json, board: model.boards[id], now: Self.now + offset)
    }

    /// A bridge's retained list of board `board` with `entries` (action, detail), numbered
    /// from `first`, made at `time`.
    static func corrections(
        _ entries: [(String, JSONValue)], board: String = "b1", first: Int = 1,
        time: String = "2026-05-01T14:03:11.204Z"
    ) -> String {
        var list = BoardCorrections(board: board)
        for _ in 1..<first { list.append(.init(time: time, action: "result_claim", detail: [:])) }
        for (action, detail) in entries {
            list.append(
                .init(
                    time: time, action: action, detail: detail, ply: 7, round: "4", white: "Poe, A", black: "Moe, B",
                    fenBefore: "before", fenAfter: "after"))
        }
        var json = list.json.objectValue!
        json["corrections"] = .array(Array(list.json["corrections"]!.arrayValue!.suffix(entries.count)))
        json["node"] = "hall-b"
        return JSONValue.object(json).encodedString()
    }

    @Test("the bridge's corrections come from its retained list: each recorded once, as the bridge saw the game")
    func corrections() {
        let model = model()
        var audit = HallAudit()
        let missed: (String, JSONValue) = (
            "missed_moves", ["squares": ["d2", "e2"], "candidates": [["e2e4", "e7e5", "d2d4"]]]
        )
        let illegal: (String, JSONValue) = ("illegal_move", ["uci": "d7d4", "reason": "not_a_move"])
        let recovered: (String, JSONValue) = ("recovered_move", ["uci": "e7e5", "san": "e5", "ply": 2])
        let claim: (String, JSONValue) = ("result_claim", ["result": "1-0"])
        #expect(observe(&audit, model, "b1/corrections", Self.corrections([missed, illegal])).count == 2)
        // The list again, and with two more: only the new ones.
        #expect(observe(&audit, model, "b1/corrections", Self.corrections([missed, illegal])).isEmpty)
        #expect(
            observe(&audit, model, "b1/corrections", Self.corrections([missed, illegal, recovered, claim])).count == 2)
        #expect(audit.records.map(\.action) == ["missed_moves", "illegal_move", "recovered_move", "result_claim"])
        let first = audit.records[0]
        #expect(first.source == .bridge && first.who == "hall-b" && first.node == "hall-b")
        // The game as the bridge saw it when it made the correction, not as the hall sees it now.
        #expect(first.round == "4" && first.white == "Poe, A" && first.black == "Moe, B" && first.ply == 7)
        #expect(first.fenBefore == "before" && first.fenAfter == "after")
        #expect(first.time == ISO8601Timestamp.milliseconds("2026-05-01T14:03:11.204Z"))
        #expect(first.detail["candidates"] == [["e2e4", "e7e5", "d2d4"]])
        #expect(first.correction == "1@2026-05-01T14:03:11.204Z")
        // The live events are not recorded a second time.
        let event = #"{"event_type":"illegal_move","uci":"d7d4","reason":"not_a_move"}"#
        #expect(observe(&audit, model, "b1/event", event).isEmpty)
        #expect(observe(&audit, model, "b1/move", #"{"uci":"e7e5","san":"e5","ply":2,"recovered":true}"#).isEmpty)
        // A bridge whose state directory was lost numbers from 1 again, at other times: recorded.
        let later = Self.corrections([claim], time: "2026-05-02T09:00:00.000Z")
        #expect(observe(&audit, model, "b1/corrections", later).count == 1)
        // A board the hall does not show yet (its corrections come first) is recorded; a list
        // that names another board than its topic, an empty (cleared) list, or not a list, not.
        #expect(observe(&audit, model, "b9/corrections", Self.corrections([claim], board: "b9")).count == 1)
        #expect(observe(&audit, model, "b2/corrections", Self.corrections([claim], board: "b3")).isEmpty)
        #expect(observe(&audit, model, "b1/corrections", "").isEmpty)
        #expect(observe(&audit, model, "b1/corrections", #"{"board":"b1","corrections":[{"seq":"x"}]}"#).isEmpty)
    }

    @Test("an arbiter's action waits for the bridge's answer: done, or refused with the reason")
    func actionsAndAnswers() {
        let model = model()
        var audit = HallAudit()
        let sent = audit.recordAction(
            "resolve", detail: ["moves": ["e7e5"], "ply": 1], board: model.boards["b1"], id: "b1", by: "Jane Doe",
            transaction: "hall-1", now: Self.now)
        guard case .record(let record) = sent else {
            Issue.record("\(sent)")
            return
        }
        #expect(record.outcome == "sent" && record.who == "Jane Doe" && record.source == .arbiter)
        #expect(
            observe(&audit, model, "b1/response", #"{"status":"ok","data":{},"transaction":"hall-9"}"#).isEmpty)
        let answer = observe(
            &audit, model, "b1/response",
            #"{"status":"error","data":{},"error":"cannot resolve: stale","transaction":"hall-1"}"#)
        #expect(answer.count == 1)
        #expect(audit.records[0].outcome == "refused" && audit.records[0].error == "cannot resolve: stale")
        _ = audit.recordAction(
            "takeback", detail: 1, board: model.boards["b1"], id: "b1", by: "Max", transaction: "hall-2",
            now: Self.now)
        _ = observe(
            &audit, model, "b1/response", #"{"status":"ok","data":{"fen":"after","ply":0},"transaction":"hall-2"}"#)
        #expect(audit.records[1].outcome == "ok" && audit.records[1].fenAfter == "after")
        // An answer counts once.
        #expect(observe(&audit, model, "b1/response", #"{"status":"ok","data":{},"transaction":"hall-2"}"#).isEmpty)
    }

    @Test("another client's game commands are recorded as mqtt; the hall's own once; board commands not")
    func otherClients() {
        let model = model()
        var audit = HallAudit()
        #expect(observe(&audit, model, "b1/set", #"{"takeback":1,"transaction":"ha-7"}"#).count == 1)
        #expect(observe(&audit, model, "b1/set/resolve", "e4 e5 d4").count == 1)
        #expect(observe(&audit, model, "b1/set", #"{"takeback":1,"transaction":"hall-3"}"#).isEmpty)
        #expect(observe(&audit, model, "b1/set", #"{"leds":"clear"}"#).isEmpty)
        #expect(observe(&audit, model, "b1/set", "not json").isEmpty)
        #expect(audit.records.map(\.source) == [.mqtt, .mqtt])
        #expect(audit.records[1].detail == "e4 e5 d4")
        _ = observe(&audit, model, "b1/response", #"{"status":"ok","data":{"fen":"f"},"transaction":"ha-7"}"#)
        #expect(audit.records[0].outcome == "ok")
    }

    @Test("a flood of corrections costs a few entries, the rest counted")
    func flood() {
        let model = model()
        var audit = HallAudit()
        // A hostile publisher's lists, each of one invented entry, 10 a second for 500 s.
        for index in 0..<5_000 {
            let list = Self.corrections([("illegal_move", ["uci": "d7d4"])], first: index + 1)
            _ = observe(&audit, model, "b1/corrections", list, at: Double(index) * 100)
        }
        // The burst, then one a second.
        #expect(audit.records.count <= HallAudit.correctionBurst + 501)
        #expect(audit.suppressedCorrections == 5_000 - audit.records.count)
        #expect(audit.records.last?.detail["suppressed_before"] != nil)
        // Another client's flood of commands likewise: a few entries, not a disk write each.
        var commands = HallAudit()
        for index in 0..<2_000 {
            _ = observe(&commands, model, "b1/set", #"{"takeback":1}"#, at: Double(index))
        }
        #expect(commands.records.count <= HallAudit.correctionBurst + 3)
        #expect(commands.suppressedCommands == 2_000 - commands.records.count)
    }

    @Test("the journal gives back every entry after a restart; a torn or foreign line is skipped")
    func journal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hall-audit.jsonl").path
        let model = model()
        var audit = HallAudit()
        let first = HallAuditJournal(path: path)
        #expect(first.open().isEmpty)
        first.append(
            audit.recordAction(
                "resolve", detail: ["moves": ["e7e5"]], board: model.boards["b1"], id: "b1", by: "Jane Doe",
                transaction: "hall-1", now: Self.now))
        let claim = Self.corrections([("result_claim", ["result": "1-0"])])
        for line in observe(&audit, model, "b1/corrections", claim) { first.append(line) }
        // A restart before the answer: the entry waits for it still.
        var restarted = HallAudit()
        let second = HallAuditJournal(path: path)
        for line in second.open() { restarted.replay(line) }
        #expect(restarted.records == audit.records)
        // The retained list again after the restart: recorded already.
        #expect(observe(&restarted, model, "b1/corrections", claim).isEmpty)
        for line in observe(
            &restarted, model, "b1/response", #"{"status":"ok","data":{"fen":"f"},"transaction":"hall-1"}"#)
        {
            second.append(line)
        }
        #expect(restarted.records[0].outcome == "ok")
        // A crash mid-line, and a line of something else.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"not\":\"an entry\"}\n{\"seq\":99,\"time\":\"2026-05".utf8))
        try handle.close()
        var third = HallAudit()
        let journal = HallAuditJournal(path: path)
        for line in journal.open() { third.replay(line) }
        #expect(journal.skippedLines == 2)
        #expect(third.records == restarted.records)
        #expect(third.nextSequence == 3)
        journal.append(
            third.recordAction(
                "acknowledge", detail: .null, board: model.boards["b1"], id: "b1", by: "Max", transaction: nil,
                now: Self.now))
        var fourth = HallAudit()
        let reopened = HallAuditJournal(path: path)
        for line in reopened.open() { fourth.replay(line) }
        #expect(reopened.skippedLines == 1)
        #expect(fourth.records.map(\.action) == ["resolve", "result_claim", "acknowledge"])
    }

    @Test("the report names the board, the game, who, what, the outcome and the positions")
    func report() {
        let model = model()
        var audit = HallAudit()
        _ = audit.recordAction(
            "resolve", detail: ["moves": ["e7e5", "g1f3"], "ply": 1], board: model.boards["b1"], id: "b1",
            by: "Jane Doe", transaction: "hall-1", now: Self.now)
        _ = observe(
            &audit, model, "b1/response", #"{"status":"ok","data":{"fen":"after-fen","ply":3},"transaction":"hall-1"}"#)
        let text = HallAuditReport.render(audit.entries(round: "3"), round: "3", board: nil, problem: nil)
        #expect(text.contains("BoardBridge audit log · round 3 · 1 entries"))
        #expect(text.contains("Board b1 · round 3 · Doe, J – Roe, R · host hall-a"))
        #expect(text.contains("Jane Doe (arbiter)  resolve e7e5 g1f3  at ply 1  → ok"))
        #expect(text.contains("before: \(Self.fen)") && text.contains("after:  after-fen"))
        #expect(audit.entries(round: "4").isEmpty)
    }
}
