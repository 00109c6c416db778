public import FoundationEssentials
public import JSON

/// The retained health report of one bridge host (`<base>/bridge/<node>/health`), in the
/// spirit of zigbee2mqtt's `bridge/health`: the process, the broker link, the state
/// directory, and every board's link.
public struct HealthPayload: Equatable, Sendable {
    /// The report's keys, spelled once for its writer (``json``) and its readers (the hall's
    /// view and `/metrics`, the Home Assistant templates).
    public enum Key {
        /// `process`.
        public static let process = "process"
        /// `uptime`.
        public static let uptime = "uptime"
        /// `cpu_percent`.
        public static let cpuPercent = "cpu_percent"
        /// `rss_bytes`.
        public static let rssBytes = "rss_bytes"
        /// `mqtt`.
        public static let mqtt = "mqtt"
        /// `connected`.
        public static let connected = "connected"
        /// `queued`.
        public static let queued = "queued"
        /// `published`.
        public static let published = "published"
        /// `dropped`.
        public static let dropped = "dropped"
        /// `state_directory`.
        public static let stateDirectory = "state_directory"
        /// `path`.
        public static let path = "path"
        /// `writable`.
        public static let writable = "writable"
        /// `free_bytes`.
        public static let freeBytes = "free_bytes"
        /// `errors`.
        public static let errors = "errors"
        /// `last_error`.
        public static let lastError = "last_error"
        /// `last_error_at`.
        public static let lastErrorAt = "last_error_at"
        /// `problem`.
        public static let problem = "problem"
        /// `boards`.
        public static let boards = "boards"
        /// `timestamp`.
        public static let timestamp = "timestamp"
        /// `connection`.
        public static let connection = "connection"
        /// `rssi`.
        public static let rssi = "rssi"
        /// `notifications_per_second`.
        public static let notificationsPerSecond = "notifications_per_second"
        /// `seconds_since_last_frame`.
        public static let secondsSinceLastFrame = "seconds_since_last_frame"
        /// `stalled`.
        public static let stalled = "stalled"
        /// `stalls`.
        public static let stalls = "stalls"
        /// `reconnects`.
        public static let reconnects = "reconnects"
        /// `adapter_resets`.
        public static let adapterResets = "adapter_resets"
        /// `protocol_violations`.
        public static let protocolViolations = "protocol_violations"
        /// `missing_acks`.
        public static let missingAcks = "missing_acks"
        /// `malformed_frames`.
        public static let malformedFrames = "malformed_frames"
        /// `battery`.
        public static let battery = "battery"
        /// `move_handling`.
        public static let moveHandling = "move_handling"
        /// `p50_us`.
        public static let medianMicroseconds = "p50_us"
        /// `p99_us`.
        public static let p99Microseconds = "p99_us"
        /// `max_us`.
        public static let maximumMicroseconds = "max_us"
        /// `moves`.
        public static let moves = "moves"
        /// `total`.
        public static let total = "total"
    }

    /// The bridge's own time over its latest moves: from the wake-up for the frame that
    /// completed a move to the move's PUBLISH handed over for sending.
    public struct MoveHandling: Equatable, Sendable {
        /// The median, in seconds.
        public var median: Double
        /// The 99th percentile, in seconds.
        public var p99: Double
        /// The longest, in seconds.
        public var maximum: Double
        /// How many moves the figures cover (the latest ones).
        public var moves: Int
        /// Moves timed since the start.
        public var total: Int

        /// The figures.
        public init(median: Double, p99: Double, maximum: Double, moves: Int, total: Int) {
            self.median = median
            self.p99 = p99
            self.maximum = maximum
            self.moves = moves
            self.total = total
        }

        /// `{"p50_us":…, "p99_us":…, "max_us":…, "moves":…, "total":…}`, whole microseconds.
        public var json: JSONValue {
            [
                Key.medianMicroseconds: .number((median * 1e6).rounded()),
                Key.p99Microseconds: .number((p99 * 1e6).rounded()),
                Key.maximumMicroseconds: .number((maximum * 1e6).rounded()),
                Key.moves: JSONValue(moves), Key.total: JSONValue(total),
            ]
        }
    }

    /// The process (from `/proc/self`).
    public struct Process: Equatable, Sendable {
        /// Seconds since the bridge started.
        public var uptime: Double
        /// Share of one core used since the previous report, in percent.
        public var cpuPercent: Double?
        /// Resident memory in bytes.
        public var rssBytes: Int?
        /// The bridge's own time over its latest moves, `nil` before the first.
        public var moveHandling: MoveHandling?

        /// The figures.
        public init(uptime: Double, cpuPercent: Double?, rssBytes: Int?, moveHandling: MoveHandling? = nil) {
            self.uptime = uptime
            self.cpuPercent = cpuPercent
            self.rssBytes = rssBytes
            self.moveHandling = moveHandling
        }
    }

    /// The broker link.
    public struct Broker: Equatable, Sendable {
        /// Whether the broker accepted the connection.
        public var connected: Bool
        /// Messages waiting to be sent or confirmed.
        public var queued: Int
        /// Messages the broker confirmed since the start.
        public var published: Int
        /// Messages dropped because the outgoing queue was full.
        public var dropped: Int

        /// The figures.
        public init(connected: Bool, queued: Int, published: Int, dropped: Int) {
            self.connected = connected
            self.queued = queued
            self.published = published
            self.dropped = dropped
        }
    }

    /// Where the games are saved.
    public struct StateDirectory: Equatable, Sendable {
        /// The directory.
        public var path: String
        /// Whether a file could be created in it just now.
        public var writable: Bool
        /// Bytes free for the bridge (`statvfs`), `nil` when unknown.
        public var freeBytes: Int?
        /// Saves that failed since the start.
        public var errors: Int
        /// The last failure: the probe's now, else the last failed save's (`No space left on
        /// device`, `Read-only file system`…).
        public var lastError: String?
        /// When it happened.
        public var lastErrorAt: Date?
        /// Whether the directory needs attention: not writable, or a save failed since the
        /// previous report.
        public var problem: Bool

        /// The figures.
        public init(
            path: String, writable: Bool, freeBytes: Int?, errors: Int, lastError: String?, lastErrorAt: Date?,
            problem: Bool
        ) {
            self.path = path
            self.writable = writable
            self.freeBytes = freeBytes
            self.errors = errors
            self.lastError = lastError
            self.lastErrorAt = lastErrorAt
            self.problem = problem
        }
    }

    /// One board's link.
    public struct Board: Equatable, Sendable {
        /// The board id.
        public var id: String
        /// The published connection state (`ready`, `reconnecting`…).
        public var connection: String
        /// The signal strength BlueZ reports (dBm), `nil` when it does not.
        public var rssi: Int?
        /// Frames per second since the previous report.
        public var notificationsPerSecond: Double
        /// Seconds since the last frame (or since the link came up), `nil` before either.
        public var secondsSinceLastFrame: Double?
        /// Whether the board is connected but silent past `health.stall_after`.
        public var stalled: Bool
        /// Stalls detected since the start.
        public var stalls: Int
        /// Links re-established since the start.
        public var reconnects: Int
        /// Times the board's adapter went away.
        public var adapterResets: Int
        /// Unacknowledged writes and unanswered handshakes.
        public var missingAcks: Int
        /// Frames the decoder could not read.
        public var malformedFrames: Int
        /// The battery level, `nil` when unknown.
        public var batteryPercent: Int?

        /// The figures.
        public init(
            id: String, connection: String, rssi: Int?, notificationsPerSecond: Double,
            secondsSinceLastFrame: Double?, stalled: Bool, stalls: Int, reconnects: Int, adapterResets: Int,
            missingAcks: Int, malformedFrames: Int, batteryPercent: Int?
        ) {
            self.id = id
            self.connection = connection
            self.rssi = rssi
            self.notificationsPerSecond = notificationsPerSecond
            self.secondsSinceLastFrame = secondsSinceLastFrame
            self.stalled = stalled
            self.stalls = stalls
            self.reconnects = reconnects
            self.adapterResets = adapterResets
            self.missingAcks = missingAcks
            self.malformedFrames = malformedFrames
            self.batteryPercent = batteryPercent
        }

        /// The JSON object (without the id, which keys it in ``HealthPayload/json``).
        public var json: JSONValue {
            [
                Key.connection: .string(connection),
                Key.rssi: JSONValue(rssi),
                Key.notificationsPerSecond: .number((notificationsPerSecond * 100).rounded() / 100),
                Key.secondsSinceLastFrame: .seconds(secondsSinceLastFrame),
                Key.stalled: .bool(stalled),
                Key.stalls: JSONValue(stalls),
                Key.reconnects: JSONValue(reconnects),
                Key.adapterResets: JSONValue(adapterResets),
                Key.protocolViolations: [
                    Key.missingAcks: JSONValue(missingAcks), Key.malformedFrames: JSONValue(malformedFrames),
                ],
                Key.battery: JSONValue(batteryPercent),
            ]
        }
    }

    /// The process.
    public var process: Process
    /// The broker link.
    public var broker: Broker
    /// The state directory.
    public var stateDirectory: StateDirectory
    /// Every board, in id order.
    public var boards: [Board]
    /// When the report was made.
    public var timestamp: Date

    /// A report.
    public init(process: Process, broker: Broker, stateDirectory: StateDirectory, boards: [Board], timestamp: Date) {
        self.process = process
        self.broker = broker
        self.stateDirectory = stateDirectory
        self.boards = boards
        self.timestamp = timestamp
    }

    /// The JSON object: `process`, `mqtt`, `state_directory`, `boards` (an object keyed by
    /// board id, so that templates can read `value_json.boards['b1'].rssi`), `timestamp`.
    public var json: JSONValue {
        let directory = stateDirectory
        return [
            Key.process: [
                Key.uptime: .number(process.uptime.rounded()),
                Key.cpuPercent: JSONValue(process.cpuPercent.map { ($0 * 10).rounded() / 10 }),
                Key.rssBytes: JSONValue(process.rssBytes),
                Key.moveHandling: process.moveHandling?.json ?? .null,
            ],
            Key.mqtt: [
                Key.connected: .bool(broker.connected), Key.queued: JSONValue(broker.queued),
                Key.published: JSONValue(broker.published), Key.dropped: JSONValue(broker.dropped),
            ],
            Key.stateDirectory: [
                Key.path: .string(directory.path), Key.writable: .bool(directory.writable),
                Key.freeBytes: JSONValue(directory.freeBytes), Key.errors: JSONValue(directory.errors),
                Key.lastError: JSONValue(directory.lastError),
                Key.lastErrorAt: JSONValue(directory.lastErrorAt.map(ISO8601Timestamp.string(from:))),
                Key.problem: .bool(directory.problem),
            ],
            Key.boards: .object(JSONObject(uniqueKeysWithValues: boards.map { ($0.id, $0.json) })),
            Key.timestamp: .string(ISO8601Timestamp.string(from: timestamp)),
        ]
    }

    /// The retained report on `<base>/bridge/<node>/health`.
    public func message(topics: Topics) -> OutgoingMessage {
        OutgoingMessage(topic: topics.bridgeHealth, json: json, retain: true)
    }

    /// The `stalled` event of a board (`<base>/<board>/event`, not retained).
    public static func stalledEvent(
        board: String, silentFor: Double, stallAfter: Double, timestamp: Date, topics: Topics
    ) -> OutgoingMessage {
        let event: JSONValue = [
            "event_type": "stalled", "silent_for": .seconds(silentFor), "stall_after": .seconds(stallAfter),
            "timestamp": .string(ISO8601Timestamp.string(from: timestamp)),
        ]
        return OutgoingMessage(topic: topics.event(board), json: event, retain: false)
    }
}

extension Topics {
    /// `<base>/bridge/<node>/health` (retained): the health report.
    public var bridgeHealth: String { base + "/" + Self.bridgeLevel + "/" + node + "/health" }
}
