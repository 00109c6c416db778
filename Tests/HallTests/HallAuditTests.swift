import Bridge
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

    @Test("the bridge's corrections: missed moves, an illegal move, a recovered move, a result claim")
    func corrections() {
        let model = model()
        var audit = HallAudit()
        let missed = #"""
            {"event_type":"out_of_sync","squares":["d2","e2"],"reason":"missed_moves","candidates":[["e2e4","e7e5","d2d4"]]}
            """#
        #expect(observe(&audit, model, "b1/event", missed).count == 1)
        #expect(
            observe(&audit, model, "b1/event", #"{"event_type":"out_of_sync","squares":["e2"],"reason":null}"#).isEmpty)
        #expect(
            observe(&audit, model, "b1/event", #"{"event_type":"illegal_move","uci":"d7d4","reason":"not_a_move"}"#)
                .count == 1)
        #expect(
            observe(&audit, model, "b1/move", #"{"uci":"e7e5","san":"e5","ply":2,"fen":"x","recovered":true}"#).count
                == 1)
        #expect(observe(&audit, model, "b1/move", #"{"uci":"e7e5","san":"e5","ply":2,"fen":"x"}"#).isEmpty)
        #expect(observe(&audit, model, "b1/event", #"{"event_type":"result_claim","result":"1-0"}"#).count == 1)
        #expect(audit.records.map(\.action) == ["missed_moves", "illegal_move", "recovered_move", "result_claim"])
        let first = audit.records[0]
        #expect(first.source == .bridge && first.who == "hall-a")
        #expect(first.round == "3" && first.white == "Doe, J" && first.black == "Roe, R" && first.ply == 1)
        #expect(first.fenBefore == Self.fen)
        #expect(first.detail["candidates"] == [["e2e4", "e7e5", "d2d4"]])
        #expect(audit.records[2].fenAfter == "x")
        // A board the hall does not know is not recorded (the model bounds the boards).
        #expect(observe(&audit, model, "zz/event", #"{"event_type":"result_claim","result":"1-0"}"#).isEmpty)
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
        for index in 0..<5_000 {
            _ = observe(
                &audit, model, "b1/event", #"{"event_type":"illegal_move","uci":"d7d4"}"#, at: Double(index) * 100)
        }
        // 500 s of 10 a second: the burst, then one a second.
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
        for line in observe(&audit, model, "b1/event", #"{"event_type":"result_claim","result":"1-0"}"#) {
            first.append(line)
        }
        // A restart before the answer: the entry waits for it still.
        var restarted = HallAudit()
        let second = HallAuditJournal(path: path)
        for line in second.open() { restarted.replay(line) }
        #expect(restarted.records == audit.records)
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
