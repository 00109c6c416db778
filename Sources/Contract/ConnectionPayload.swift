public import BoardKit
public import FoundationEssentials
public import JSON

/// The retained transport state of a board (`<base>/<board>/connection`):
/// `{"state":"reconnecting","attempt":2,"max_attempts":10,"next_delay":4,"last_error":"…","timestamp":"…"}`.
public struct ConnectionPayload: Equatable, Sendable {
    /// The state name: ``stateName(_:)`` of the transport state, or ``readyState``.
    public var state: String
    /// The reconnect attempt, while reconnecting.
    public var attempt: Int?
    /// The most reconnect attempts before giving up, when limited.
    public var maxAttempts: Int?
    /// Seconds until the next attempt, while waiting for one.
    public var nextDelay: Double?
    /// The last connection error, if any.
    public var lastError: String?
    /// Why the bridge itself recycled the link (`stalled`), else `nil`.
    public var reason: String?
    /// When this state began.
    public var timestamp: Date

    /// Creates a payload.
    public init(
        state: String, attempt: Int? = nil, maxAttempts: Int? = nil, nextDelay: Double? = nil,
        lastError: String? = nil, timestamp: Date
    ) {
        self.state = state
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.nextDelay = nextDelay
        self.lastError = lastError
        self.timestamp = timestamp
    }

    /// A payload for a transport state; `attempt` comes from `.reconnecting(attempt:)`.
    /// `isReady` (the board answered its handshake) turns ``BoardTransportState/connected``
    /// into ``readyState``.
    public init(
        transportState: BoardTransportState, isReady: Bool = false, maxAttempts: Int? = nil,
        nextDelay: Double? = nil, lastError: String? = nil, timestamp: Date
    ) {
        var attempt: Int?
        if case .reconnecting(let value) = transportState { attempt = value }
        let name = isReady && transportState == .connected ? Self.readyState : Self.stateName(transportState)
        self.init(
            state: name, attempt: attempt, maxAttempts: maxAttempts, nextDelay: nextDelay,
            lastError: lastError, timestamp: timestamp)
    }

    /// The state after `connected` once the board answered its handshake
    /// (``BoardEvent/ready``): its sensor stream can be trusted, moves are tracked.
    public static let readyState = "ready"

    /// The state after `connected` when the board refused its protocol unlock
    /// (``BoardEvent/handshakeFailed(reason:)``, e.g. a Pegasus that rejects the developer
    /// key): the link is up, but no move is tracked; `last_error` says why.
    public static let handshakeFailedState = "handshake_failed"

    /// Every published state name, in the order of a connection's life.
    public static let stateNames = [
        "powered_off", "unauthorized", "idle", "scanning", "connecting", "connected", readyState,
        handshakeFailedState, "disconnected", "reconnecting",
    ]

    /// The published name of a transport state: `powered_off`, `unauthorized`, `idle`,
    /// `scanning`, `connecting`, `connected`, `disconnected`, `reconnecting` (``readyState``
    /// is the session's, not the transport's).
    public static func stateName(_ state: BoardTransportState) -> String {
        switch state {
        case .poweredOff: "powered_off"
        case .unauthorized: "unauthorized"
        case .idle: "idle"
        case .scanning: "scanning"
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .reconnecting: "reconnecting"
        }
    }

    /// The JSON object.
    public var json: JSONValue {
        [
            "state": .string(state),
            "attempt": JSONValue(attempt),
            "max_attempts": JSONValue(maxAttempts),
            "next_delay": .seconds(nextDelay),
            "last_error": JSONValue(lastError),
            "reason": JSONValue(reason),
            "timestamp": .string(ISO8601Timestamp.string(from: timestamp)),
        ]
    }
}
