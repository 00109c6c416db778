/// MQTT 5 subscription options (libmosquitto `MQTT_SUB_OPT_*`); ignored on MQTT 3.1.1.
public struct MQTTSubscriptionOptions: Hashable, Sendable {
    /// When retained messages are sent for a new subscription.
    public enum RetainHandling: Hashable, Sendable {
        /// On every subscribe (`MQTT_SUB_OPT_SEND_RETAIN_ALWAYS`, the MQTT default).
        case always
        /// Only if the subscription did not exist (`MQTT_SUB_OPT_SEND_RETAIN_NEW`).
        case ifNew
        /// Never (`MQTT_SUB_OPT_SEND_RETAIN_NEVER`): useful for command topics, so a stale
        /// retained command is not replayed after every reconnect.
        case never
    }

    /// Do not receive this client's own publications (`MQTT_SUB_OPT_NO_LOCAL`).
    public var noLocal: Bool
    /// Keep the retain flag as published (`MQTT_SUB_OPT_RETAIN_AS_PUBLISHED`).
    public var retainAsPublished: Bool
    /// Retained message handling.
    public var retainHandling: RetainHandling

    /// Options; MQTT defaults unless given.
    public init(noLocal: Bool = false, retainAsPublished: Bool = false, retainHandling: RetainHandling = .always) {
        self.noLocal = noLocal
        self.retainAsPublished = retainAsPublished
        self.retainHandling = retainHandling
    }

    /// The option bits for `mosquitto_subscribe_v5`.
    var bits: Int32 {
        var value: Int32 = 0
        if noLocal { value |= 0x04 }
        if retainAsPublished { value |= 0x08 }
        switch retainHandling {
        case .always: break
        case .ifNew: value |= 0x10
        case .never: value |= 0x20
        }
        return value
    }
}

/// A subscription the client keeps: sent when it is made (if connected) and again after
/// every (re)connect.
public struct MQTTSubscription: Hashable, Sendable {
    /// The topic filter (wildcards allowed).
    public var filter: String
    /// The maximum QoS requested.
    public var qos: MQTTQoS
    /// MQTT 5 options.
    public var options: MQTTSubscriptionOptions

    /// A subscription.
    public init(filter: String, qos: MQTTQoS = .atLeastOnce, options: MQTTSubscriptionOptions = .init()) {
        self.filter = filter
        self.qos = qos
        self.options = options
    }
}

/// Counters since the client was created.
public struct MQTTClientStatistics: Hashable, Sendable {
    /// Connection attempts started.
    public var connectAttempts = 0
    /// Connections the broker accepted.
    public var connections = 0
    /// Messages confirmed: QoS 0 written, QoS 1 PUBACKed, QoS 2 PUBCOMPed.
    public var messagesPublished = 0
    /// Messages received.
    public var messagesReceived = 0
    /// Messages dropped because the outgoing queue was full.
    public var messagesDropped = 0
    /// Messages whose MQTT 5 expiry passed while they were queued (not sent).
    public var messagesExpired = 0
    /// Messages refused by libmosquitto or by the broker (MQTT 5 reason code ≥ 0x80).
    public var messagesRejected = 0
    /// Incoming messages discarded for being larger than
    /// ``MQTTConfiguration/maximumIncomingPacketSize`` (possible on MQTT 3.1.1 only).
    public var messagesOversized = 0

    /// All zero.
    public init() {}
}
