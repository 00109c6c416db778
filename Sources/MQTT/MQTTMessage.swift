/// The MQTT quality-of-service levels.
public enum MQTTQoS: UInt8, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// QoS 0: sent once, never acknowledged.
    case atMostOnce = 0
    /// QoS 1: acknowledged with PUBACK; may arrive more than once.
    case atLeastOnce = 1
    /// QoS 2: the four-step handshake; arrives exactly once.
    case exactlyOnce = 2

    /// `QoS 0`, `QoS 1` or `QoS 2`.
    public var description: String { "QoS \(rawValue)" }

    /// Orders by level.
    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One MQTT 5 user property: a name/value pair of UTF-8 strings. Order and repetition
/// are significant, so properties are kept in an array, not a dictionary.
public struct MQTTUserProperty: Hashable, Sendable {
    /// The property name.
    public var name: String
    /// The property value.
    public var value: String

    /// A user property.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The MQTT 5 publish properties the client sends and reports.
///
/// They travel only on MQTT 5 connections; when the client had to fall back to MQTT 3.1.1
/// they are left off outgoing messages and incoming messages carry none.
/// (libmosquitto: `MQTT_PROP_RESPONSE_TOPIC`, `MQTT_PROP_CORRELATION_DATA`,
/// `MQTT_PROP_MESSAGE_EXPIRY_INTERVAL`, `MQTT_PROP_CONTENT_TYPE`,
/// `MQTT_PROP_PAYLOAD_FORMAT_INDICATOR`, `MQTT_PROP_USER_PROPERTY`.)
public struct MQTTProperties: Hashable, Sendable {
    /// Where the receiver should send its answer (request/response).
    public var responseTopic: String?
    /// Opaque bytes that tie a response to its request (at most 65 535 bytes).
    public var correlationData: [UInt8]?
    /// Seconds after which the broker discards the message if not yet delivered. On an
    /// outgoing message the time it waited in the client's queue is subtracted before it
    /// is sent, and a message that expired while queued is not sent at all.
    public var messageExpiryInterval: UInt32?
    /// A MIME type such as `application/json`.
    public var contentType: String?
    /// `true` when the payload is declared UTF-8 text, `false` when declared bytes.
    public var payloadIsUTF8: Bool?
    /// User properties, in order.
    public var userProperties: [MQTTUserProperty]

    /// Properties; all absent by default.
    public init(
        responseTopic: String? = nil,
        correlationData: [UInt8]? = nil,
        messageExpiryInterval: UInt32? = nil,
        contentType: String? = nil,
        payloadIsUTF8: Bool? = nil,
        userProperties: [MQTTUserProperty] = []
    ) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.messageExpiryInterval = messageExpiryInterval
        self.contentType = contentType
        self.payloadIsUTF8 = payloadIsUTF8
        self.userProperties = userProperties
    }

    /// No properties at all.
    public static let none = MQTTProperties()

    /// Whether no property is set.
    public var isEmpty: Bool { self == .none }
}

/// An MQTT application message, outgoing or incoming.
public struct MQTTMessage: Hashable, Sendable {
    /// The topic (no wildcards).
    public var topic: String
    /// The payload bytes.
    public var payload: [UInt8]
    /// The quality of service it is (or was) published with.
    public var qos: MQTTQoS
    /// Outgoing: ask the broker to retain it. Incoming: the broker delivered a retained
    /// message (sent because of a new subscription), not a live one.
    public var retain: Bool
    /// MQTT 5 properties.
    public var properties: MQTTProperties

    /// A message with a byte payload.
    public init(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        properties: MQTTProperties = .none
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// A message whose payload is the UTF-8 encoding of `string`.
    public init(
        topic: String, string: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        properties: MQTTProperties = .none
    ) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// The payload decoded as UTF-8, or `nil` when it is not valid UTF-8.
    public var payloadString: String? {
        String(validating: payload, as: UTF8.self)
    }
}
