import Contract
public import JSON

/// The live model of every board of every bridge node, fed with the messages of the whole
/// base topic. Pure: no I/O, time is passed in, so it is tested without a broker.
///
/// Bounded and defensive: at most ``boardLimit`` boards and ``nodeLimit`` nodes, payloads
/// over ``payloadLimit`` bytes are refused, JSON is parsed at most 8 levels deep, strings and
/// arrays are cut (``bound(_:)``), ids must be valid board ids. A refused message changes
/// nothing and is reported as a ``HallRejection`` for the log.
public struct HallModel: Sendable {
    /// The most boards kept.
    public static let boardLimit = 4096
    /// The most bridge nodes kept.
    public static let nodeLimit = 256
    /// The largest payload read (PGN included).
    public static let payloadLimit = 256 * 1024
    /// The longest PGN kept.
    public static let pgnLimit = 64 * 1024
    /// Events kept per board.
    public static let eventLimit = 50
    /// Battery percentages below this (and not charging) are "battery low".
    public static let batteryLowPercent = 20.0
    /// Longest string kept in a payload.
    public static let stringLimit = 512
    /// Longest array kept in a payload.
    public static let arrayLimit = 128

    /// The base topic read.
    public let base: String
    /// The boards by id.
    public internal(set) var boards: [String: HallBoard] = [:]
    /// The bridge hosts by name.
    public internal(set) var nodes: [String: HallNode] = [:]
    /// The sequence number of the last change (0: nothing yet).
    public internal(set) var sequence: UInt64 = 0
    /// Messages refused so far.
    public private(set) var rejectedCount = 0

    /// An empty model for `base`.
    public init(base: String) {
        self.base = base
    }

    /// Applies one message received at `now` (ms since 1970). Returns what changed.
    public mutating func apply(topic: String, payload: [UInt8], now: Double) -> Result<[HallChange], HallRejection> {
        let kind: PublishedTopic
        do {
            kind = try Topics.parsePublished(topic, base: base)
        } catch {
            return reject(topic, error.description)
        }
        guard payload.count <= Self.payloadLimit else {
            return reject(topic, "payload of \(payload.count) bytes is over the limit of \(Self.payloadLimit)")
        }
        // A board's corrections are the audit log's (`HallAudit`, which parses them), and
        // make no board: not parsed here.
        if case .board(_, .corrections) = kind { return .success([]) }
        if case .board(let id, .pgn) = kind {
            guard let text = String(validating: payload, as: UTF8.self) else {
                return reject(topic, "PGN is not UTF-8")
            }
            return updateBoard(id, topic) { board in
                board.pgn = text.isEmpty ? nil : String(decoding: text.utf8.prefix(Self.pgnLimit), as: UTF8.self)
            }
        }
        var json: JSONValue?
        if !payload.isEmpty {
            do {
                json = try JSONValue(parsing: payload, maximumDepth: 8)
            } catch {
                return reject(topic, "invalid JSON: \(error)")
            }
        }
        let changes: [HallChange]?
        switch kind {
        case .input, .bridgeResponse, .boardCommand: changes = []
        case .bridgeState(let node):
            changes = updateNode(node) { $0.state = json?["state"]?.stringValue }.map { $0 + refreshUp(node, now: now) }
        case .bridgeInfo(let node): changes = applyInfo(node: node, json).map { $0 + refreshUp(node, now: now) }
        case .bridgeHealth(let node): changes = applyHealth(node: node, json, now: now)
        case .board(let id, let kind): changes = applyBoard(id, kind, json, now: now)
        }
        guard let changes else { return reject(topic, "not the contract's payload, or too many boards") }
        // A node change may name the node and its boards twice (its state, then whether it is up).
        var seen = Set<HallChange>()
        return .success(changes.filter { seen.insert($0).inserted })
    }

    /// The arbiter acknowledged the board's alert.
    public mutating func acknowledge(board id: String) -> [HallChange] {
        guard boards[id]?.alert != nil else { return [] }
        sequence += 1
        boards[id]?.alert = nil
        boards[id]?.sequence = sequence
        return [.board(id)]
    }

    /// Records a note (an arbiter action and its answer) in the board's event history.
    public mutating func note(board id: String, _ event: JSONValue) -> [HallChange] {
        guard boards[id] != nil else { return [] }
        sequence += 1
        appendEvent(id, event)
        boards[id]?.sequence = sequence
        return [.board(id)]
    }

    // MARK: Applying

    private mutating func applyBoard(
        _ id: String, _ kind: BoardTopicKind, _ json: JSONValue?, now: Double
    ) -> [HallChange]? {
        if json == nil, kind == .state {
            // An empty retained state: the board was removed from its bridge.
            guard boards.removeValue(forKey: id) != nil else { return [] }
            sequence += 1
            return [.removed(id)]
        }
        guard boards[id] != nil || boards.count < Self.boardLimit else { return nil }
        if boards[id] == nil { boards[id] = HallBoard(id: id) }
        var board = boards[id]!
        let object = json?.objectValue
        switch kind {
        case .state:
            guard let object else { return nil }
            board.state = Self.bound(.object(object)).objectValue
            board.clockReference = min(ISO8601Timestamp.milliseconds(object["updated"]?.stringValue) ?? now, now)
        case .availability:
            board.availability = object?["state"]?.stringValue
        case .connection:
            board.connection = json.map(Self.bound)
        case .move:
            guard let object else { return nil }
            applyMove(&board, object, now: now)
            board.alert = nil
            appendEvent(&board, .object(object), type: "move")
        case .event:
            guard let object, let type = object["event_type"]?.stringValue else { return nil }
            applyEvent(&board, type, object)
            // A move comes on `…/move` as well; the history keeps it once.
            if type != "move" { appendEvent(&board, .object(object), type: nil) }
        case .clock:
            guard let object else { return nil }
            applyClock(&board, object, now: now)
            var event = object
            event["event_type"] = "clock"
            appendEvent(&board, .object(event), type: nil)
        case .response:
            guard let object else { return nil }
            var event = object
            event["event_type"] = "response"
            appendEvent(&board, .object(event), type: nil)
        case .pgn, .corrections:
            // Both are taken care of before the payload is parsed (`apply(topic:payload:now:)`).
            return []
        }
        sequence += 1
        board.sequence = sequence
        boards[id] = board
        return [.board(id)]
    }

    private func applyMove(_ board: inout HallBoard, _ move: JSONObject, now: Double) {
        guard var state = board.state else { return }
        for key in ["fen", "ply", "move_number"] where move[key] != nil { state[key] = Self.bound(move[key]!) }
        if let fen = move["fen"]?.stringValue {
            let side = fen.split(separator: " ").dropFirst().first
            state["turn"] = side == "b" ? "black" : "white"
        }
        state["last_move"] = ["uci": move["uci"] ?? .null, "san": move["san"] ?? .null]
        if var clock = state["clock"]?.objectValue, let times = move["clock"]?.objectValue {
            for side in ["white", "black"] where times[side]?.doubleValue != nil { clock[side] = times[side]! }
            if clock["running"]?.stringValue != nil, let turn = state["turn"] { clock["running"] = turn }
            state["clock"] = .object(clock)
            board.clockReference = min(ISO8601Timestamp.milliseconds(move["timestamp"]?.stringValue) ?? now, now)
        }
        board.state = state
    }

    private func applyEvent(_ board: inout HallBoard, _ type: String, _ event: JSONObject) {
        switch type {
        case "illegal_move":
            board.alert = Self.bound(.object(event))
        case "alert":
            // An illegal move waiting for the arbiter is not replaced by the alert that follows it.
            if board.alert?["event_type"]?.stringValue != "illegal_move" { board.alert = Self.bound(.object(event)) }
        case "game_start", "takeback":
            board.alert = nil
        case "out_of_sync":
            if var state = board.state {
                state["sync"] = [
                    "state": "out_of_sync", "squares": Self.bound(event["squares"] ?? []),
                    "reason": Self.bound(event["reason"] ?? .null),
                ]
                board.state = state
            }
        case "in_sync":
            if var state = board.state {
                state["sync"] = ["state": "in_sync", "squares": [], "reason": .null]
                board.state = state
            }
            if board.alert?["event_type"]?.stringValue == "alert" { board.alert = nil }
        case "game_end":
            if var state = board.state, let result = event["result"]?.stringValue {
                state["result"] = .string(String(result.prefix(16)))
                board.state = state
            }
        default:
            break
        }
    }

    private func applyClock(_ board: inout HallBoard, _ action: JSONObject, now: Double) {
        guard var state = board.state else { return }
        var clock = state["clock"]?.objectValue ?? JSONObject()
        for side in ["white", "black"] where action[side]?.doubleValue != nil { clock[side] = action[side]! }
        let paused = action["action"]?.stringValue == "pause"
        clock["paused"] = .bool(paused)
        if !paused { clock["running"] = Self.bound(action["color"] ?? .null) }
        state["clock"] = .object(clock)
        board.state = state
        board.clockReference = min(ISO8601Timestamp.milliseconds(action["timestamp"]?.stringValue) ?? now, now)
    }

    private mutating func applyInfo(node: String, _ json: JSONValue?) -> [HallChange]? {
        var changes = updateNode(node) {
            $0.version = json?["version"]?.stringValue.map { String($0.prefix(64)) }
            $0.healthInterval = json?["config"]?["health"]?["interval"]?.doubleValue.flatMap { $0 > 0 ? $0 : nil }
        }
        guard changes != nil else { return nil }
        let ids = (json?["boards"]?.arrayValue ?? []).prefix(Self.boardLimit).compactMap { entry -> String? in
            guard let id = entry["id"]?.stringValue, (try? Topics.validateBoardID(id)) != nil else { return nil }
            return id
        }
        nodes[node]?.boards = ids
        for id in ids where boards[id]?.node != node {
            guard boards[id] != nil || boards.count < Self.boardLimit else { continue }
            if boards[id] == nil { boards[id] = HallBoard(id: id) }
            sequence += 1
            boards[id]?.node = node
            boards[id]?.sequence = sequence
            changes?.append(.board(id))
        }
        return changes
    }

    mutating func updateNode(_ name: String, _ update: (inout HallNode) -> Void) -> [HallChange]? {
        guard nodes[name] != nil || nodes.count < Self.nodeLimit else { return nil }
        var node = nodes[name] ?? HallNode(name: name)
        update(&node)
        sequence += 1
        node.sequence = sequence
        nodes[name] = node
        // The boards of a node that goes offline or online change their look too.
        return [.node(name)] + boards.values.filter { $0.node == name }.map { .board($0.id) }
    }

    private mutating func updateBoard(
        _ id: String, _ topic: String, _ update: (inout HallBoard) -> Void
    ) -> Result<[HallChange], HallRejection> {
        guard boards[id] != nil || boards.count < Self.boardLimit else { return reject(topic, "too many boards") }
        var board = boards[id] ?? HallBoard(id: id)
        update(&board)
        sequence += 1
        board.sequence = sequence
        boards[id] = board
        return .success([.board(id)])
    }

    private mutating func appendEvent(_ id: String, _ event: JSONValue) {
        guard var board = boards[id] else { return }
        appendEvent(&board, event, type: nil)
        boards[id] = board
    }

    private func appendEvent(_ board: inout HallBoard, _ event: JSONValue, type: String?) {
        var object = Self.bound(event).objectValue ?? JSONObject()
        if let type { object["event_type"] = .string(type) }
        board.events.append(.object(object))
        if board.events.count > Self.eventLimit { board.events.removeFirst(board.events.count - Self.eventLimit) }
    }

    private mutating func reject(_ topic: String, _ reason: String) -> Result<[HallChange], HallRejection> {
        rejectedCount += 1
        return .failure(HallRejection(topic: String(topic.prefix(200)), reason: String(reason.prefix(300))))
    }

    // MARK: Helpers

    /// `value` with strings cut to ``stringLimit`` characters and arrays to ``arrayLimit``.
    public static func bound(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return text.count > stringLimit ? .string(String(text.prefix(stringLimit))) : value
        case .array(let items): return .array(items.prefix(arrayLimit).map(bound))
        case .object(let object):
            // Keys are unique already; long ones are dropped, not cut (cutting could collide).
            return .object(
                JSONObject(
                    uniqueKeysWithValues: object.filter { $0.key.count <= 64 }.prefix(64).map {
                        ($0.key, bound($0.value))
                    }))
        default: return value
        }
    }
}

/// A bridge host, from `<base>/bridge/<node>/state` and `…/info`.
public struct HallNode: Equatable, Sendable {
    /// The node name.
    public let name: String
    /// `online` / `offline` (the last will), or nil before it is seen.
    public var state: String?
    /// The bridge's version.
    public var version: String?
    /// The boards its `info` lists.
    public var boards: [String] = []
    /// Its last health report (`<base>/bridge/<node>/health`), when one came.
    public var health: HallNodeHealth?
    /// `health.interval` from its `info` (seconds), when given.
    public var healthInterval: Double?
    /// Whether it is up, as of the last ``HallModel/refreshHealth(now:)``: not offline, and
    /// its health report fresh (``HallModel/isUp(_:now:)``).
    public var up = false
    /// The sequence number of the last change.
    public var sequence: UInt64 = 0

    /// A node seen for the first time.
    public init(name: String) {
        self.name = name
    }
}

/// What a message changed.
public enum HallChange: Hashable, Sendable {
    /// A board's view changed.
    case board(String)
    /// A board was removed (an empty retained state).
    case removed(String)
    /// A node's state or info changed.
    case node(String)
}

/// A message the model refused, for the log.
public struct HallRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// The topic (cut to 200 characters).
    public let topic: String
    /// Why.
    public let reason: String

    /// `topic: reason`.
    public var description: String { "\(topic): \(reason)" }
}
