public import FoundationEssentials
public import JSON

/// The retained health report of one bridge host (`<base>/bridge/<node>/health`), in the
/// spirit of zigbee2mqtt's `bridge/health`: the process, the broker link, the state
/// directory, and every board's link.
public struct HealthPayload: Equatable, Sendable {
    /// The process (from `/proc/self`).
    public struct Process: Equatable, Sendable {
        /// Seconds since the bridge started.
        public var uptime: Double
        /// Share of one core used since the previous report, in percent.
        public var cpuPercent: Double?
        /// Resident memory in bytes.
        public var rssBytes: Int?

        /// The figures.
        public init(uptime: Double, cpuPercent: Double?, rssBytes: Int?) {
            self.uptime = uptime
            self.cpuPercent = cpuPercent
            self.rssBytes = rssBytes
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
                "connection": .string(connection),
                "rssi": JSONValue(rssi),
                "notifications_per_second": .number((notificationsPerSecond * 100).rounded() / 100),
                "seconds_since_last_frame": .seconds(secondsSinceLastFrame),
                "stalled": .bool(stalled),
                "stalls": JSONValue(stalls),
                "reconnects": JSONValue(reconnects),
                "adapter_resets": JSONValue(adapterResets),
                "protocol_violations": [
                    "missing_acks": JSONValue(missingAcks), "malformed_frames": JSONValue(malformedFrames),
                ],
                "battery": JSONValue(batteryPercent),
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
            "process": [
                "uptime": .number(process.uptime.rounded()),
                "cpu_percent": JSONValue(process.cpuPercent.map { ($0 * 10).rounded() / 10 }),
                "rss_bytes": JSONValue(process.rssBytes),
            ],
            "mqtt": [
                "connected": .bool(broker.connected), "queued": JSONValue(broker.queued),
                "published": JSONValue(broker.published), "dropped": JSONValue(broker.dropped),
            ],
            "state_directory": [
                "path": .string(directory.path), "writable": .bool(directory.writable),
                "free_bytes": JSONValue(directory.freeBytes), "errors": JSONValue(directory.errors),
                "last_error": JSONValue(directory.lastError),
                "last_error_at": JSONValue(directory.lastErrorAt.map(ISO8601Timestamp.string(from:))),
                "problem": .bool(directory.problem),
            ],
            "boards": .object(JSONObject(uniqueKeysWithValues: boards.map { ($0.id, $0.json) })),
            "timestamp": .string(ISO8601Timestamp.string(from: timestamp)),
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
