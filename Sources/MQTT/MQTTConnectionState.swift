/// Where the client's connection stands. Observe it with ``MQTTClient/onStateChange`` or
/// ``MQTTClient/stateChanges()``.
public enum MQTTConnectionState: Hashable, Sendable, CustomStringConvertible {
    /// Not started, or stopped.
    case stopped
    /// Attempt number `attempt` (counting from 1 since ``MQTTClient/start()``) is under way.
    case connecting(attempt: Int)
    /// The broker accepted the connection.
    case connected(MQTTConnectionInfo)
    /// The last attempt failed or the connection was lost; the next attempt starts after
    /// `retryIn`.
    case disconnected(MQTTDisconnectReason, retryIn: Duration)

    /// Whether the broker accepted the connection.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// "connected (MQTT 5)", "disconnected: not authorised …; retrying in 2.1 s", ….
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .connecting(let attempt): "connecting (attempt \(attempt))"
        case .connected(let info): "connected (MQTT \(info.protocolVersion))"
        case .disconnected(let reason, let delay): "disconnected: \(reason); retrying in \(delay.secondsText) s"
        }
    }
}

/// Facts about an accepted connection.
public struct MQTTConnectionInfo: Hashable, Sendable {
    /// The protocol version in use (MQTT 3.1.1 after a fallback).
    public var protocolVersion: MQTTProtocolVersion
    /// Whether the broker resumed a stored session (only with `cleanSession == false`).
    public var sessionPresent: Bool
    /// How many connections this client has had since ``MQTTClient/start()`` (1 for the first).
    public var connectionCount: Int

    /// Connection facts.
    public init(protocolVersion: MQTTProtocolVersion, sessionPresent: Bool, connectionCount: Int) {
        self.protocolVersion = protocolVersion
        self.sessionPresent = sessionPresent
        self.connectionCount = connectionCount
    }
}

/// Why the client is not connected, in words a user can act on.
public enum MQTTDisconnectReason: Hashable, Sendable, CustomStringConvertible {
    /// The broker answered the CONNECT with a refusal.
    case refused(MQTTConnectRefusal)
    /// The TCP connection could not be made ("connection refused", "host not found").
    case connectFailed(String)
    /// The TLS handshake failed (for example "certificate verify failed").
    case tlsFailed(String)
    /// No CONNACK arrived within the connect timeout.
    case timedOut
    /// An established connection broke (network error, keep-alive timeout).
    case connectionLost(String)
    /// The broker closed the connection with an MQTT 5 DISCONNECT.
    case closedByBroker(code: UInt8, String)
    /// The connection could not even be attempted (unreadable TLS file, rejected option).
    case setupFailed(String)

    /// A sentence for logs and the bridge's status topics.
    public var description: String {
        switch self {
        case .refused(let refusal): "connection refused by the broker: \(refusal)"
        case .connectFailed(let text): "cannot connect: \(text)"
        case .tlsFailed(let text): "TLS handshake failed: \(text)"
        case .timedOut: "no answer from the broker (connect timeout)"
        case .connectionLost(let text): "connection lost: \(text)"
        case .closedByBroker(let code, let text): "disconnected by the broker: \(text) (reason code \(code))"
        case .setupFailed(let text): "cannot set up the connection: \(text)"
        }
    }
}

/// The broker's reason for refusing a CONNECT (MQTT 3.1.1 CONNACK codes 1-5, MQTT 5
/// CONNACK reason codes ≥ 0x80).
public enum MQTTConnectRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The broker does not speak the requested protocol version.
    case unsupportedProtocolVersion
    /// The client identifier was rejected.
    case identifierRejected
    /// The broker is unavailable or busy.
    case serverUnavailable
    /// The user name or password is malformed or wrong.
    case badUserNameOrPassword
    /// Not authorised (Mosquitto's answer to a wrong password).
    case notAuthorized
    /// The client is banned.
    case banned
    /// Any other reason: its code and the library's text.
    case other(code: Int, String)

    /// Whether the refusal is about credentials.
    public var isAuthenticationFailure: Bool {
        self == .badUserNameOrPassword || self == .notAuthorized
    }

    /// "not authorised (check the user name and password)", ….
    public var description: String {
        switch self {
        case .unsupportedProtocolVersion: "unsupported protocol version"
        case .identifierRejected: "client identifier rejected"
        case .serverUnavailable: "server unavailable"
        case .badUserNameOrPassword: "bad user name or password"
        case .notAuthorized: "not authorised (check the user name and password)"
        case .banned: "banned"
        case .other(let code, let text): "\(text) (code \(code))"
        }
    }

    /// The refusal for a CONNACK code as libmosquitto reports it to `on_connect`: the
    /// MQTT 3.1.1 return code (1-5) on a 3.1.1 connection, the MQTT 5 reason code on a
    /// v5 one (libmosquitto turns a 3.1.1 "unacceptable protocol version" answer to a v5
    /// CONNECT into reason code 0x84).
    static func from(connackCode code: Int, protocolVersion: MQTTProtocolVersion, text: String) -> MQTTConnectRefusal {
        switch (protocolVersion, code) {
        case (.v311, 1), (.v5, 0x84): .unsupportedProtocolVersion
        case (.v311, 2), (.v5, 0x85): .identifierRejected
        case (.v311, 3), (.v5, 0x88), (.v5, 0x89): .serverUnavailable
        case (.v311, 4), (.v5, 0x86): .badUserNameOrPassword
        case (.v311, 5), (.v5, 0x87): .notAuthorized
        case (.v5, 0x8A): .banned
        default: .other(code: code, text)
        }
    }
}

/// The protocol decision after a refused CONNECT.
enum MQTTProtocolNegotiation {
    /// The version to try next, or `nil` to keep the current one (and back off as usual):
    /// only an MQTT 5 attempt refused for its protocol version falls back, to 3.1.1, and
    /// only when fallback is allowed.
    static func fallback(
        after refusal: MQTTConnectRefusal, current: MQTTProtocolVersion, allowsFallback: Bool
    ) -> MQTTProtocolVersion? {
        guard allowsFallback, current == .v5, refusal == .unsupportedProtocolVersion else { return nil }
        return .v311
    }
}

extension Duration {
    /// Seconds with one decimal, for messages.
    var secondsText: String {
        let tenths = (components.seconds * 10) + components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
