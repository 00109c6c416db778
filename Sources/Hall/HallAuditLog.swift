import Contract
import HTTP
import JSON
import Logging
import MQTT

/// The hall's audit log at work: ``HallAudit`` fed with every message of the base topic and
/// every arbiter action, each new line written to the ``HallAuditJournal`` before the
/// action is answered; downloads per round and board (`/api/audit.jsonl`, `/api/audit.txt`).
@MainActor
final class HallAuditLog {
    /// The entries shown with a board in its detail view, at most.
    static let boardEntries = 50

    private(set) var audit = HallAudit()
    private let journal: HallAuditJournal
    private let logger: Logger

    /// The log kept in `path`: its entries are read back now.
    init(path: String, logger: Logger) {
        self.logger = logger
        journal = HallAuditJournal(path: path)
        let lines = journal.open()
        for line in lines { audit.replay(line) }
        if let problem = journal.problem {
            logger.error("audit log not durable", [("file", path), ("error", problem)])
        } else {
            logger.info(
                "audit log", [("file", path), ("entries", "\(audit.records.count)"), ("lines", "\(lines.count)")])
        }
        if journal.skippedLines > 0 {
            logger.warning("audit log lines skipped", [("file", path), ("lines", "\(journal.skippedLines)")])
        }
    }

    /// Why the journal cannot be written, or `nil`.
    var problem: String? { journal.problem }

    /// Reads one message (before the hall model applies it: `board` as it stood).
    func observe(_ message: MQTTMessage, board: (String) -> HallBoard?, base: String) {
        guard let kind = try? Topics.parsePublished(message.topic, base: base) else { return }
        let id: String
        switch kind {
        case .boardCommand(let board): id = board
        // Only what the audit reads is parsed (a board's state, the most frequent message, is not).
        case .board(let board, .corrections), .board(let board, .response): id = board
        default: return
        }
        guard message.payload.count <= HallModel.payloadLimit else { return }
        var name: String?
        var json = try? JSONValue(parsing: message.payload, maximumDepth: 10)
        if case .boardCommand = kind {
            let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
            if levels.last != "set" {
                name = levels.last.map(String.init)
                if json == nil { json = .string(String(decoding: message.payload.prefix(512), as: UTF8.self)) }
            }
        }
        let lines = audit.observe(kind, commandName: name, json: json, board: board(id), now: HallService.now())
        write(lines)
    }

    /// Records an arbiter's action on board `id`.
    func record(
        _ action: String, detail: JSONValue, id: String, board: HallBoard?, by arbiter: String, transaction: String?
    ) {
        let line = audit.recordAction(
            action, detail: detail, board: board, id: id, by: arbiter, transaction: transaction,
            now: HallService.now())
        write([line])
    }

    /// The board's newest entries, newest last.
    func entries(board id: String) -> JSONValue {
        .array(audit.entries(board: id).suffix(Self.boardEntries).map(\.json))
    }

    /// A download of the entries of `round` and `board` (all when `nil`).
    func download(_ format: HallAuditFormat, round: String?, board: String?) -> HTTPResponse {
        let records = audit.entries(round: round, board: board)
        let name = "audit" + (round.map { "-round-\($0)" } ?? "") + (board.map { "-\($0)" } ?? "")
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        switch format {
        case .jsonLines:
            let bytes = records.flatMap { $0.json.encoded() + [UInt8(ascii: "\n")] }
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/x-ndjson"),
                    ("Content-Disposition", "attachment; filename=\"\(safe).jsonl\""), ("Cache-Control", "no-store"),
                ], body: bytes)
        case .text:
            let text = HallAuditReport.render(records, round: round, board: board, problem: journal.problem)
            return HTTPResponse(
                status: 200, contentType: "text/plain; charset=utf-8", text: text,
                headers: [("Content-Disposition", "inline; filename=\"\(safe).txt\""), ("Cache-Control", "no-store")])
        }
    }

    private func write(_ lines: [HallAudit.Line]) {
        for line in lines where !journal.append(line) {
            logger.error("audit entry not written", [("file", journal.path), ("error", journal.problem ?? "")])
        }
    }
}
