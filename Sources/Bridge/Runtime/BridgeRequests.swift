import Config
import Contract
import JSON

/// The answers to the bridge's requests (`<base>/bridge/<node>/request/<op>`): `info`,
/// `boards`, `health`, `reconnect` (one `"board"` or `"all":true`) and `restart` (the
/// bridge stops as on SIGTERM, games saved, and starts again as the same process). What it reads and
/// does is passed in as closures by the owner of the sessions (``BridgeApp``), so the
/// answers are tested without a broker, a bus or a board.
@MainActor
struct BridgeRequests {
    /// The node name the `info` answer carries.
    var node: String
    /// The ids of the bridged boards, sorted.
    var boardIDs: () -> [String]
    /// A board's full retained state (``BoardSession/statePayload``), `nil` for an unknown id.
    var boardState: (String) -> JSONValue?
    /// A fresh health report (published as well).
    var healthReport: () -> JSONValue
    /// Disconnects and restarts a board's link; `false` for an unknown id.
    var reconnect: (String) -> Bool
    /// Restarts the bridge once the answer is out.
    var restart: () -> Void = {}

    /// The request names, as the answer to an unknown one lists them.
    static let names = ["info", "boards", "health", "reconnect", "restart"]

    /// The answer to `op` with the `parsed` payload.
    func answer(op: String, _ parsed: ParsedRequest) -> ResponsePayload {
        let transaction = parsed.transaction
        switch (parsed.result, op) {
        case (.failure(let error), _):
            return .error(error, transaction: transaction)
        case (.success, "info"):
            return .ok(
                data: [
                    "version": .string(BoardBridgeVersion.current), "node": .string(node),
                    "boards": .array(boardIDs().map { .string($0) }),
                ], transaction: transaction)
        case (.success, "boards"):
            return .ok(data: .array(boardIDs().compactMap(boardState)), transaction: transaction)
        case (.success, "health"):
            return .ok(data: healthReport(), transaction: transaction)
        case (.success(let members), "reconnect") where members["all"] == .bool(true):
            let ids = boardIDs()
            for id in ids { _ = reconnect(id) }
            return .ok(data: ["boards": .array(ids.map { .string($0) })], transaction: transaction)
        case (.success(let members), "reconnect"):
            guard let id = members["board"]?.stringValue, reconnect(id) else {
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
