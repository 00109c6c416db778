import Contract
import JSON

/// The JSON the hall serves: the grid view of a board, its detail, a node, the snapshot.
enum HallJSON {
    /// A board as the grid shows it (no PGN, no history: see ``detail(_:model:)``).
    static func board(_ board: HallBoard, model: HallModel) -> JSONValue {
        let host = board.node.flatMap { model.nodes[$0]?.state }
        let health = model.health(of: board.id)
        return [
            "id": .string(board.id),
            "seq": .number(Double(board.sequence)),
            "node": JSONValue(board.node),
            "host": JSONValue(host),
            // A host that is offline cannot vouch for its boards' retained availability.
            "availability": JSONValue(host == "offline" ? "offline" : board.availability),
            "connection": board.connection ?? .null,
            "state": board.state.map { .object($0) } ?? .null,
            "clock_reference": JSONValue(board.clockReference),
            "alert": board.alert ?? .null,
            "health": health?.json ?? .null,
            "attention": .bool(board.needsAttention(hostOffline: host == "offline") || health?.stalled == true),
        ]
    }

    /// A board with its PGN and event history.
    static func detail(_ board: HallBoard, model: HallModel) -> JSONValue {
        guard case .object(var object) = Self.board(board, model: model) else { return .null }
        object["pgn"] = JSONValue(board.pgn)
        object["events"] = .array(board.events)
        return .object(object)
    }

    /// A bridge host.
    static func node(_ node: HallNode) -> JSONValue {
        [
            "name": .string(node.name), "seq": .number(Double(node.sequence)), "state": JSONValue(node.state),
            "version": JSONValue(node.version), "boards": .array(node.boards.map { .string($0) }),
            "up": .bool(node.up), "health": node.health?.json ?? .null,
        ]
    }

    /// The whole model.
    static func snapshot(
        _ model: HallModel, now: Double, broker: String, actions: Bool, namedArbiters: Bool = false
    ) -> JSONValue {
        [
            "arbiters": .string(namedArbiters ? "named" : "shared"),
            "seq": .number(Double(model.sequence)),
            "server_time": .number(now),
            "broker": .string(broker),
            "actions": .bool(actions),
            "nodes": .array(model.nodes.keys.sorted().map { node(model.nodes[$0]!) }),
            "boards": .array(model.boards.keys.sorted().map { board(model.boards[$0]!, model: model) }),
        ]
    }
}
