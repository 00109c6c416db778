public import MQTT

extension MQTTProtocolVersion {
    /// The configuration's words for the versions (`mqtt.protocol`), in the order messages
    /// list them.
    static let spellings: [(String, MQTTProtocolVersion)] = [("3.1.1", .v311), ("5", .v5)]
}

/// TLS files for `mqtts://` (paths resolved against the configuration file's folder).
public struct BrokerTLSConfiguration: Sendable, Equatable, Hashable {
    /// The CA bundle that signs the broker's certificate; `nil` uses the system's.
    public var caFile: String?
    /// The client certificate, for brokers that require one (with ``keyFile``).
    public var certFile: String?
    /// The client certificate's private key (with ``certFile``).
    public var keyFile: String?
    /// Accept any broker certificate and host name. For testing only.
    public var insecure: Bool

    /// Creates TLS settings.
    public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.insecure = insecure
    }
}

/// The waits between attempts to reach the broker again (doubling from min to max).
public struct BrokerReconnectConfiguration: Sendable, Equatable, Hashable {
    /// The first wait, in seconds (default 1).
    public var minDelay: Double
    /// The longest wait, in seconds (default 60).
    public var maxDelay: Double

    /// Creates a reconnect schedule.
    public init(minDelay: Double = 1, maxDelay: Double = 60) {
        self.minDelay = minDelay
        self.maxDelay = maxDelay
    }
}

/// The `mqtt` section: how the bridge reaches its broker (turned into the MQTT module's
/// ``MQTTConfiguration`` by the bridge).
public struct BrokerConfiguration: Sendable, Equatable, Hashable {
    /// The `url` as written (default `mqtt://127.0.0.1:1883`).
    public var url: String
    /// The parsed ``url`` (parsed by the MQTT module's ``MQTTServerAddress``).
    public var endpoint: MQTTServerAddress
    /// The client id; `nil` lets the bridge use `boardbridge-<node>`.
    public var clientID: String?
    /// Keepalive interval in seconds (default 60, 5…65535).
    public var keepalive: Int
    /// Protocol version (default 5).
    public var protocolVersion: MQTTProtocolVersion
    /// User name, if the broker wants one.
    public var username: String?
    /// Password (from `password`, `password_file` or `password_env`).
    public var password: Secret?
    /// TLS files, used with `mqtts://`.
    public var tls: BrokerTLSConfiguration
    /// Messages kept while the broker is unreachable (default 10000).
    public var queueLimit: Int
    /// Bytes (topics, payloads, properties) kept while the broker is unreachable
    /// (default 16 MiB).
    public var queueBytes: Int
    /// The largest command payload accepted on a `set` topic, in bytes (default 65536).
    public var maxCommandBytes: Int
    /// Broker reconnect waits.
    public var reconnect: BrokerReconnectConfiguration

    /// The defaults, or the given values.
    public init(
        url: String = "mqtt://127.0.0.1:1883",
        endpoint: MQTTServerAddress = MQTTServerAddress(host: "127.0.0.1", port: 1883), clientID: String? = nil,
        keepalive: Int = 60, protocolVersion: MQTTProtocolVersion = .v5, username: String? = nil,
        password: Secret? = nil, tls: BrokerTLSConfiguration = BrokerTLSConfiguration(), queueLimit: Int = 10_000,
        queueBytes: Int = 16_777_216, maxCommandBytes: Int = 65_536,
        reconnect: BrokerReconnectConfiguration = BrokerReconnectConfiguration()
    ) {
        self.url = url
        self.endpoint = endpoint
        self.clientID = clientID
        self.keepalive = keepalive
        self.protocolVersion = protocolVersion
        self.username = username
        self.password = password
        self.tls = tls
        self.queueLimit = queueLimit
        self.queueBytes = queueBytes
        self.maxCommandBytes = maxCommandBytes
        self.reconnect = reconnect
    }
}
