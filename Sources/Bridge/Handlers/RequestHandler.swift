import Config
import Contract
import JSON
import MQTT

/// The bridge's requests (`<base>/bridge/<node>/request/<op>`): `info`, `boards`, `health`,
/// `reconnect` (one `"board"` or `"all":true`) and `restart` (the bridge stops as on SIGTERM,
/// games saved, and starts again as the same process). Answers go to
/// `<base>/bridge/<node>/response/<op>`; refused requests are rate-limited (one key for all).
@MainActor
final class RequestHandler: BridgeHandler {
    /// The request names, as the answer to an unknown one lists them.
    static let names = ["info", "boards", "health", "reconnect", "restart"]

    private let inbox: Inbox
    /// A fresh health report (published as well).
    private let healthReport: () -> JSONValue
    /// Restarts the bridge once the answer is out.
    private let restart: () -> Void

    init(
        inbox: Inbox, healthReport: @escaping () -> JSONValue, restart: @escaping () -> Void
    ) {
        self.inbox = inbox
        self.healthReport = healthReport
        self.restart = restart
    }

    var subscriptions: [BridgeSubscription] {
        [BridgeSubscription(filter: inbox.topics.requestFilter, connection: .commands)]
    }

    func receive(_ message: MQTTMessage) -> Bool {
        guard case .bridgeRequest(let op) = inbox.topics.parse(message.topic) else { return false }
        let response = answer(op: op, inbox.parser.parseRequest(message.payload))
        if response.status == .error,
            !inbox.refusals.admit(RefusalReporter.bridgeRequestKey, board: nil, error: response.error ?? "")
        {
            return true
        }
        inbox.publisher.publish(inbox.builder.bridgeResponse(op: op, response, target: ResponseTarget(message)))
        return true
    }

    /// The answer to `op` with the `parsed` payload.
    func answer(op: String, _ parsed: ParsedRequest) -> ResponsePayload {
        let transaction = parsed.transaction
        switch (parsed.result, op) {
        case (.failure(let error), _):
            return .error(error, transaction: transaction)
        case (.success, "info"):
            return .ok(
                data: [
                    "version": .string(BoardBridgeVersion.current), "node": .string(inbox.topics.node),
                    "boards": .array(inbox.boards.ids.map { .string($0) }),
                ], transaction: transaction)
        case (.success, "boards"):
            return .ok(data: .array(inbox.boards.ids.compactMap(inbox.boards.state)), transaction: transaction)
        case (.success, "health"):
            return .ok(data: healthReport(), transaction: transaction)
        case (.success(let members), "reconnect") where members["all"] == .bool(true):
            let ids = inbox.boards.ids
            for id in ids { _ = inbox.boards.reconnect(id) }
            return .ok(data: ["boards": .array(ids.map { .string($0) })], transaction: transaction)
        case (.success(let members), "reconnect"):
            guard let id = members["board"]?.stringValue, inbox.boards.reconnect(id) else {
                return .error(
                    message: "reconnect needs an existing \"board\" (or \"all\":true)", transaction: transaction)
            }
            return .ok(data: ["board": .string(id)], transaction: transaction)
        case (.success, "restart"):
            restart()
            return .ok(data: ["restarting": true], transaction: transaction)
        case (.success, _):
            return .error(
                message: "unknown request \"\(op)\", expected one of \(Self.names.joined(separator: ", "))",
                transaction: transaction)
        }
    }
}
