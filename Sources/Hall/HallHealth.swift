import Contract
import JSON

/// A bridge host's last health report (``HealthPayload``, `<base>/bridge/<node>/health`), as
/// the hall keeps it: the figures the view and `/metrics` show, nothing else.
public struct HallNodeHealth: Equatable, Sendable {
    /// When the hall received it (ms since 1970, hall clock).
    public var received: Double
    /// The report's own `timestamp` (ms since 1970, the bridge's clock), when readable.
    public var reported: Double?
    /// Seconds since the bridge started.
    public var uptime: Double?
    /// Share of one core, in percent.
    public var cpuPercent: Double?
    /// Resident memory in bytes.
    public var rssBytes: Double?
    /// The bridge's own time per move over its latest moves, median, in seconds
    /// (``HealthPayload/MoveHandling``).
    public var moveHandlingMedian: Double?
    /// The same, 99th percentile.
    public var moveHandlingP99: Double?
    /// Whether the bridge's broker connection was up.
    public var mqttConnected: Bool?
    /// Messages waiting to be sent or confirmed.
    public var mqttQueued: Double?
    /// Messages dropped since the start (a full queue).
    public var mqttDropped: Double?
    /// Whether the state directory needs attention.
    public var stateDirectoryProblem: Bool?
    /// Every board of the report, by id (valid ids only, at most ``HallModel/boardLimit``).
    public var boards: [String: HallBoardHealth]

    /// Reads a report; `nil` when it is not a JSON object.
    init?(_ json: JSONValue?, received: Double) {
        guard let object = json?.objectValue else { return nil }
        self.received = received
        reported = ISO8601Timestamp.milliseconds(object[HealthPayload.Key.timestamp]?.stringValue)
        uptime = object[HealthPayload.Key.process]?[HealthPayload.Key.uptime]?.doubleValue
        cpuPercent = object[HealthPayload.Key.process]?[HealthPayload.Key.cpuPercent]?.doubleValue
        rssBytes = object[HealthPayload.Key.process]?[HealthPayload.Key.rssBytes]?.doubleValue
        let handling = object[HealthPayload.Key.process]?[HealthPayload.Key.moveHandling]
        moveHandlingMedian = handling?[HealthPayload.Key.medianMicroseconds]?.doubleValue.map { $0 / 1e6 }
        moveHandlingP99 = handling?[HealthPayload.Key.p99Microseconds]?.doubleValue.map { $0 / 1e6 }
        mqttConnected = object[HealthPayload.Key.mqtt]?[HealthPayload.Key.connected]?.boolValue
        mqttQueued = object[HealthPayload.Key.mqtt]?[HealthPayload.Key.queued]?.doubleValue
        mqttDropped = object[HealthPayload.Key.mqtt]?[HealthPayload.Key.dropped]?.doubleValue
        stateDirectoryProblem = object[HealthPayload.Key.stateDirectory]?[HealthPayload.Key.problem]?.boolValue
        var boards: [String: HallBoardHealth] = [:]
        for member in object[HealthPayload.Key.boards]?.objectValue ?? [:] where boards.count < HallModel.boardLimit {
            guard (try? Topics.validateBoardID(member.key)) != nil, let board = HallBoardHealth(member.value) else {
                continue
            }
            boards[member.key] = board
        }
        self.boards = boards
    }

    /// How old the report is at `now`: from the earlier of its timestamp and its arrival (a
    /// retained report of a host long gone is old at once; a clock ahead does not make it new).
    public func age(now: Double) -> Double {
        max(0, now - min(reported ?? received, received)) / 1000
    }

    /// The JSON the hall serves for the node.
    var json: JSONValue {
        [
            "received": .number(received), "uptime": JSONValue(uptime), "cpu_percent": JSONValue(cpuPercent),
            "rss_bytes": JSONValue(rssBytes), "mqtt_connected": JSONValue(mqttConnected),
            "mqtt_queued": JSONValue(mqttQueued), "mqtt_dropped": JSONValue(mqttDropped),
            "state_directory_problem": JSONValue(stateDirectoryProblem),
        ]
    }
}

/// One board's figures in its host's health report.
public struct HallBoardHealth: Equatable, Sendable {
    /// The connection state the bridge reported (`ready`, `reconnecting`…), cut to 32 characters.
    public var connection: String?
    /// Signal strength (dBm).
    public var rssi: Double?
    /// Frames per second.
    public var notificationsPerSecond: Double?
    /// Seconds since the last frame, as of the report.
    public var secondsSinceLastFrame: Double?
    /// Connected but silent past `health.stall_after`.
    public var stalled: Bool
    /// Links re-established since the bridge started.
    public var reconnects: Double?
    /// Unacknowledged writes and unanswered handshakes since the bridge started.
    public var missingAcks: Double?

    init?(_ json: JSONValue) {
        guard json.objectValue != nil else { return nil }
        connection = json[HealthPayload.Key.connection]?.stringValue.map { String($0.prefix(32)) }
        rssi = json[HealthPayload.Key.rssi]?.doubleValue
        notificationsPerSecond = json[HealthPayload.Key.notificationsPerSecond]?.doubleValue
        secondsSinceLastFrame = json[HealthPayload.Key.secondsSinceLastFrame]?.doubleValue
        stalled = json[HealthPayload.Key.stalled]?.boolValue ?? false
        reconnects = json[HealthPayload.Key.reconnects]?.doubleValue
        missingAcks = json[HealthPayload.Key.protocolViolations]?[HealthPayload.Key.missingAcks]?.doubleValue
    }

    /// The JSON the hall serves in the board's `health`.
    var json: JSONValue {
        [
            "connection": JSONValue(connection), "rssi": JSONValue(rssi),
            "notifications_per_second": JSONValue(notificationsPerSecond),
            "seconds_since_last_frame": JSONValue(secondsSinceLastFrame), "stalled": .bool(stalled),
            "reconnects": JSONValue(reconnects), "missing_acks": JSONValue(missingAcks),
        ]
    }
}

extension HallModel {
    /// A health report counts as stale after this many report intervals.
    public static let staleIntervals = 3.0
    /// The report interval assumed when the node's `info` does not say (`health.interval`'s default).
    public static let defaultHealthInterval = 60.0

    /// Whether node `name` is up at `now`: not offline (its last will), and its health report
    /// younger than ``staleIntervals`` report intervals.
    public func isUp(_ name: String, now: Double) -> Bool {
        guard let node = nodes[name], node.state != "offline", let health = node.health else { return false }
        return health.age(now: now) <= Self.staleIntervals * (node.healthInterval ?? Self.defaultHealthInterval)
    }

    /// The node serving board `id` when that node is offline (its bridge's last will), else nil:
    /// a command for the board would go nowhere.
    public func offlineNode(of id: String) -> String? {
        guard let name = boards[id]?.node, nodes[name]?.state == "offline" else { return nil }
        return name
    }

    /// The health figures of board `id` from the report of the node serving it.
    public func health(of id: String) -> HallBoardHealth? {
        boards[id]?.node.flatMap { nodes[$0]?.health?.boards[id] }
    }

    /// Re-evaluates every node's ``HallNode/up`` at `now` (a report that went stale); returns
    /// the changes (the node and its boards).
    public mutating func refreshHealth(now: Double) -> [HallChange] {
        nodes.keys.sorted().flatMap { refreshUp($0, now: now) }
    }

    mutating func refreshUp(_ name: String, now: Double) -> [HallChange] {
        let up = isUp(name, now: now)
        guard let node = nodes[name], node.up != up else { return [] }
        return updateNode(name) { $0.up = up } ?? []
    }

    mutating func applyHealth(node name: String, _ json: JSONValue?, now: Double) -> [HallChange]? {
        guard let json else {
            // A cleared retained report: the host was removed.
            return updateNode(name) { $0.health = nil }.map { $0 + refreshUp(name, now: now) }
        }
        guard let health = HallNodeHealth(json, received: now) else { return nil }
        let previous = nodes[name]?.health
        guard var changes = updateNode(name, { $0.health = health }) else { return nil }
        // Only the boards whose figures changed are sent again.
        changes = changes.filter { change in
            guard case .board(let id) = change else { return true }
            return previous?.boards[id] != health.boards[id]
        }
        for change in changes {
            guard case .board(let id) = change else { continue }
            sequence += 1
            boards[id]?.sequence = sequence
        }
        return changes + refreshUp(name, now: now)
    }
}
