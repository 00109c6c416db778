import BoardKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The retained transport state of a board (`<base>/<board>/connection`):
/// `{"state":"reconnecting","attempt":2,"max_attempts":10,"next_delay":4,"last_error":"…","timestamp":"…"}`.
public struct ConnectionPayload: Equatable, Sendable {
    /// The state name (`stateName(_:)` for transport states; the session may add `ready`).
    public var state: String
    /// The reconnect attempt, while reconnecting.
    public var attempt: Int?
    /// The most reconnect attempts before giving up, when limited.
    public var maxAttempts: Int?
    /// Seconds until the next attempt, while waiting for one.
    public var nextDelay: Double?
    /// The last connection error, if any.
    public var lastError: String?
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
    public init(
        transportState: BoardTransportState, maxAttempts: Int? = nil, nextDelay: Double? = nil,
        lastError: String? = nil, timestamp: Date
    ) {
        var attempt: Int?
        if case .reconnecting(let value) = transportState { attempt = value }
        self.init(
            state: Self.stateName(transportState), attempt: attempt, maxAttempts: maxAttempts, nextDelay: nextDelay,
            lastError: lastError, timestamp: timestamp)
    }

    /// The published name of a transport state: `powered_off`, `unauthorized`, `idle`,
    /// `scanning`, `connecting`, `connected`, `disconnected`, `reconnecting`.
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
            "timestamp": .string(ISO8601Timestamp.string(from: timestamp)),
        ]
    }
}
