/// The MQTT protocol versions the client speaks.
public enum MQTTProtocolVersion: Hashable, Sendable, CustomStringConvertible {
    /// MQTT 3.1.1 (protocol level 4).
    case v311
    /// MQTT 5 (protocol level 5).
    case v5

    /// `3.1.1` or `5`.
    public var description: String { self == .v5 ? "5" : "3.1.1" }
}

/// TLS settings for an `mqtts://` connection (libmosquitto: `mosquitto_tls_set`,
/// `mosquitto_tls_insecure_set`, `mosquitto_tls_opts_set`, `MOSQ_OPT_TLS_USE_OS_CERTS`).
///
/// Unless ``insecure``, the broker's certificate chain is verified: against ``caFile`` /
/// ``caPath`` when one is given, else against the system's CA store. To trust a
/// self-signed broker, give its certificate as ``caFile``. A client private key must not
/// be encrypted.
public struct MQTTTLSConfiguration: Hashable, Sendable {
    /// A PEM file of trusted CA certificates.
    public var caFile: String?
    /// A directory of trusted CA certificates (hashed names, as `c_rehash` makes them).
    public var caPath: String?
    /// The client certificate (PEM), for brokers that require one; needs ``keyFile``.
    public var certificateFile: String?
    /// The client private key (PEM, unencrypted); needs ``certificateFile``.
    public var keyFile: String?
    /// Accept any broker certificate and host name: neither the chain nor the name is
    /// checked (the connection is encrypted but not authenticated, so anyone in the
    /// middle can read and change it). For tests only.
    public var insecure: Bool

    /// TLS settings; all optional (system CAs, no client certificate, hostname checked).
    public init(
        caFile: String? = nil, caPath: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
        insecure: Bool = false
    ) {
        self.caFile = caFile
        self.caPath = caPath
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.insecure = insecure
    }
}

/// The last will: published by the broker when the client vanishes without a clean
/// disconnect (libmosquitto: `mosquitto_will_set_v5`).
public struct MQTTLastWill: Hashable, Sendable {
    /// The message the broker publishes.
    public var message: MQTTMessage
    /// MQTT 5 Will Delay Interval in seconds: the broker waits this long (and skips the
    /// will if the client reconnects in time). Ignored on MQTT 3.1.1.
    public var delayInterval: UInt32?

    /// A last will.
    public init(message: MQTTMessage, delayInterval: UInt32? = nil) {
        self.message = message
        self.delayInterval = delayInterval
    }

    /// A last will on `topic` with a UTF-8 `payload`.
    public init(topic: String, payload: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.init(message: MQTTMessage(topic: topic, string: payload, qos: qos, retain: retain))
    }
}

/// Everything ``MQTTClient`` needs to reach and talk to a broker.
///
/// Build it from a server URL with ``init(url:clientID:)`` (`mqtt://host[:port]` or
/// `mqtts://host[:port]`), then set the other fields. ``description`` never shows the
/// password.
public struct MQTTConfiguration: Hashable, Sendable, CustomStringConvertible {
    /// The broker's host name or IP address.
    public var host: String
    /// The broker's TCP port (1883 for `mqtt://`, 8883 for `mqtts://` by default).
    public var port: UInt16
    /// TLS settings; `nil` for a plain TCP connection.
    public var tls: MQTTTLSConfiguration?
    /// The client identifier. Must not be empty.
    public var clientID: String
    /// Keep-alive interval in seconds: 0 (off) or 5...65535 (default 60).
    public var keepAlive: UInt16
    /// The protocol spoken first (default MQTT 5).
    public var protocolVersion: MQTTProtocolVersion
    /// Whether an MQTT 5 client that the broker refuses with "unsupported protocol
    /// version" retries with MQTT 3.1.1 (default `true`).
    public var allowsProtocolFallback: Bool
    /// Start every connection with a fresh session (default `true`). With `false` the
    /// broker keeps this client's subscriptions and queues its QoS ≥ 1 messages while it
    /// is away (needs a stable ``clientID``).
    public var cleanSession: Bool
    /// MQTT 5 Session Expiry Interval in seconds, sent when ``cleanSession`` is `false`
    /// (default `UInt32.max`: the session never expires, as in MQTT 3.1.1).
    public var sessionExpiryInterval: UInt32
    /// The user name, if the broker wants one.
    public var username: String?
    /// The password (never logged).
    public var password: MQTTPassword?
    /// The last will, if any.
    public var lastWill: MQTTLastWill?
    /// Reconnect backoff.
    public var reconnect: MQTTReconnectPolicy
    /// How long an attempt may take from its start to the broker's CONNACK (default 10 s).
    public var connectTimeout: Duration
    /// The most messages the outgoing queue holds (default 10 000); see ``MQTTClient``.
    public var outgoingQueueLimit: Int
    /// The most bytes (topics, payloads and properties) the outgoing queue holds
    /// (default 16 MiB); see ``MQTTClient``.
    public var outgoingQueueByteLimit: Int
    /// The largest MQTT packet this client accepts, or `nil` for no limit (the default).
    ///
    /// On MQTT 5 it is announced to the broker (CONNECT property Maximum Packet Size), and
    /// a compliant broker never sends a larger packet: it drops the message for this
    /// client instead. On MQTT 3.1.1 there is no way to tell the broker, and libmosquitto
    /// 2.0 reads every incoming packet whole into memory before any callback (its packet
    /// reader has no client-side limit); a PUBLISH whose payload is larger than this is then
    /// discarded without being copied or delivered (counted in
    /// ``MQTTClientStatistics/messagesOversized``), which bounds the client's own copies
    /// but not libmosquitto's. Bound it on such brokers with their own message size limit.
    public var maximumIncomingPacketSize: Int?
    /// The most messages handed to the broker and not yet acknowledged (default 10; also
    /// capped by the broker's Receive Maximum).
    public var maximumInFlight: Int

    /// A configuration with defaults for everything but the address and the client id.
    public init(host: String, port: UInt16 = 1883, tls: MQTTTLSConfiguration? = nil, clientID: String) {
        self.host = host
        self.port = port
        self.tls = tls
        self.clientID = clientID
        keepAlive = 60
        protocolVersion = .v5
        allowsProtocolFallback = true
        cleanSession = true
        sessionExpiryInterval = .max
        username = nil
        password = nil
        lastWill = nil
        reconnect = MQTTReconnectPolicy()
        connectTimeout = .seconds(10)
        outgoingQueueLimit = 10_000
        outgoingQueueByteLimit = 16 << 20
        maximumIncomingPacketSize = nil
        maximumInFlight = 10
    }

    /// The largest packet MQTT can carry: a 268 435 455-byte remaining length plus the
    /// five-byte fixed header.
    public static var largestPacket: Int { 268_435_460 }

    /// The server URL, `mqtt://host:port` or `mqtts://host:port` (IPv6 hosts in brackets).
    public var url: String { MQTTServerAddress(host: host, port: port, usesTLS: tls != nil).description }

    /// The URL, client id, user name and protocol; never the password.
    public var description: String {
        var text = "\(url) client_id=\(clientID) protocol=\(protocolVersion)"
        if let username { text += " user=\(username)" }
        if password != nil { text += " password=<redacted>" }
        if let tls, tls.insecure { text += " tls_insecure" }
        return text
    }

    /// Checks the values that would make every connection attempt fail.
    public func validate() throws(MQTTConfigurationError) {
        if host.isEmpty { throw .missingHost(url) }
        if port == 0 { throw .invalidPort("0") }
        if clientID.isEmpty { throw .emptyClientID }
        if clientID.utf8.count > 65_535 || clientID.utf8.contains(0) { throw .invalidClientID(clientID) }
        if keepAlive != 0 && keepAlive < 5 { throw .invalidKeepAlive(Int(keepAlive)) }
        if outgoingQueueLimit < 1 { throw .invalidQueueLimit(outgoingQueueLimit) }
        if outgoingQueueByteLimit < 1 { throw .invalidQueueByteLimit(outgoingQueueByteLimit) }
        if let size = maximumIncomingPacketSize, size < 1 || size > Self.largestPacket {
            throw .invalidMaximumPacketSize(size)
        }
        if maximumInFlight < 1 || maximumInFlight > 65_535 { throw .invalidMaximumInFlight(maximumInFlight) }
        if password != nil && username == nil { throw .passwordWithoutUsername }
        if let tls, (tls.certificateFile == nil) != (tls.keyFile == nil) { throw .incompleteClientCertificate }
        if let will = lastWill {
            do { try MQTTTopic.validate(will.message) } catch { throw .invalidWill(error.description) }
        }
    }
}
