import Contract
import Logging
import MQTT

/// Board commands (`<base>/<board>/set`, `<base>/<board>/set/<name>`): each is parsed, run by
/// the board's ``BoardSession`` and answered on `<base>/<board>/response` (successes only to
/// those who asked for an answer: a transaction or an MQTT 5 response topic). Refusals are
/// rate-limited per board (``RefusalReporter``); a command for a board another bridge on the
/// broker serves is left to that bridge.
@MainActor
final class CommandHandler: BridgeHandler {
    private let inbox: Inbox
    private let logger: Logger
    /// The node that bridges board `id` when another bridge does (``BridgePeerWatch/owner(of:)``).
    private let otherNode: (String) -> String?

    init(
        inbox: Inbox, logger: Logger, otherNode: @escaping (String) -> String?
    ) {
        self.inbox = inbox
        self.logger = logger
        self.otherNode = otherNode
    }

    var subscriptions: [BridgeSubscription] {
        inbox.topics.commandFilters.map { BridgeSubscription(filter: $0, connection: .commands) }
    }

    func receive(_ message: MQTTMessage) -> Bool {
        guard case .boardCommand(let board, let name) = inbox.topics.parse(message.topic) else { return false }
        handle(board: board, name: name, payload: message.payload, target: ResponseTarget(message))
        return true
    }

    private func handle(board id: String, name: String?, payload: [UInt8], target: ResponseTarget) {
        guard let session = inbox.boards.session(id) else {
            if let owner = otherNode(id) {
                // Another host's board on a shared broker: its bridge (or, while that host
                // is offline, the hall) answers; an "unknown board" from here would be wrong.
                logger.debug("command for another node's board", [("board", id), ("node", owner)])
                return
            }
            let parsed = inbox.parser.parse(payload, name: name)
            let error = CommandError.unknownBoard(id)
            guard inbox.refusals.admit(RefusalReporter.unknownBoardKey, board: id, error: error.description) else {
                return
            }
            inbox.publisher.publish(
                inbox.builder.boardResponse(board: id, .error(error, transaction: parsed.transaction), target: target))
            return
        }
        let parsed = inbox.parser.parse(payload, name: name, rawAllowed: session.board.allowRawCommands)
        let response: ResponsePayload
        switch parsed.result {
        case .failure(let error):
            guard inbox.refusals.admit(id, board: id, error: error.description) else { return }
            response = .error(error, transaction: parsed.transaction)
        case .success(let command):
            switch session.execute(command) {
            case .success(let data):
                // Successes are answered only to those who asked for an answer.
                guard parsed.transaction != nil || target.responseTopic != nil else { return }
                response = .ok(data: data, transaction: parsed.transaction)
            case .failure(let failure):
                guard inbox.refusals.admit(id, board: id, error: failure.description) else { return }
                response = .error(message: failure.description, transaction: parsed.transaction)
            }
        }
        inbox.publisher.publish(inbox.builder.boardResponse(board: id, response, target: target))
    }
}
