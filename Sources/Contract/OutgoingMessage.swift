public import JSON

/// One message for the MQTT client to publish: what the publisher hands over.
public struct OutgoingMessage: Equatable, Sendable {
    /// The topic (never holds wildcards).
    public var topic: String
    /// The payload bytes (UTF-8 JSON, PGN text, or empty to clear a retained topic).
    public var payload: [UInt8]
    /// Whether the broker keeps it for late subscribers. Event-like messages never are.
    public var retain: Bool
    /// The MQTT QoS, 0…2. The contract uses 1 throughout.
    public var qos: Int
    /// MQTT 5 Correlation Data to attach (responses to MQTT 5 requests), else `nil`.
    public var correlationData: [UInt8]?
    /// An answer to a command or request: when the outgoing queue is full it is dropped
    /// before anything else and never displaces a move, state or availability message,
    /// and it is sent after those that are pending.
    public var isAnswer = false

    /// Creates a message.
    public init(topic: String, payload: [UInt8], retain: Bool, qos: Int = 1, correlationData: [UInt8]? = nil) {
        precondition((0...2).contains(qos), "QoS must be 0, 1 or 2")
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
        self.correlationData = correlationData
    }

    /// A message whose payload is `json` encoded compactly.
    public init(topic: String, json: JSONValue, retain: Bool, qos: Int = 1, correlationData: [UInt8]? = nil) {
        self.init(topic: topic, payload: json.encoded(), retain: retain, qos: qos, correlationData: correlationData)
    }

    /// An empty retained payload on `topic`: the broker drops its retained copy (and Home
    /// Assistant removes a discovered entity).
    public static func clearRetained(_ topic: String) -> OutgoingMessage {
        OutgoingMessage(topic: topic, payload: [], retain: true)
    }

    /// The payload as text, for logs and tests.
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}

/// Where to answer a request or command.
///
/// By default answers go to the contract's response topic (`<base>/<board>/response`,
/// `<base>/bridge/<node>/response/<op>`). An MQTT 5 request may name its own Response
/// Topic and carry Correlation Data; the caller copies both from the incoming message
/// here and the answer follows them.
public struct ResponseTarget: Equatable, Sendable {
    /// The MQTT 5 Response Topic of the request, if it had one.
    public var responseTopic: String?
    /// The MQTT 5 Correlation Data of the request, echoed on the answer.
    public var correlationData: [UInt8]?

    /// Creates a target; both properties come from the request's MQTT 5 properties.
    public init(responseTopic: String? = nil, correlationData: [UInt8]? = nil) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// The topic to answer on: the request's Response Topic when it is usable (non-empty,
    /// no wildcards, no NUL), else `defaultTopic`.
    public func topic(default defaultTopic: String) -> String {
        guard let responseTopic, !responseTopic.isEmpty,
            !responseTopic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\u{0}" })
        else { return defaultTopic }
        return responseTopic
    }
}

/// The answer to a request or command, in zigbee2mqtt's shape:
/// `{"status":"ok","data":{…},"transaction":7}` or
/// `{"status":"error","data":{},"error":"…","transaction":7}`; `transaction` appears only
/// when the request carried one.
public struct ResponsePayload: Equatable, Sendable {
    /// Success or failure.
    public enum Status: String, Equatable, Sendable {
        /// The request was carried out.
        case ok
        /// The request was refused; `error` says why.
        case error
    }

    /// Success or failure.
    public var status: Status
    /// The result (an empty object on error).
    public var data: JSONValue
    /// The error message, on error.
    public var error: String?
    /// The request's `transaction`, echoed.
    public var transaction: JSONValue?

    /// A success carrying `data`.
    public static func ok(data: JSONValue = .object([:]), transaction: JSONValue? = nil) -> ResponsePayload {
        ResponsePayload(status: .ok, data: data, error: nil, transaction: transaction)
    }

    /// A failure with `message`.
    public static func error(message: String, transaction: JSONValue? = nil) -> ResponsePayload {
        ResponsePayload(status: .error, data: .object([:]), error: message, transaction: transaction)
    }

    /// A failure for a refused command.
    public static func error(_ error: CommandError, transaction: JSONValue? = nil) -> ResponsePayload {
        .error(message: error.description, transaction: transaction)
    }

    /// The JSON object.
    public var json: JSONValue {
        var object: JSONObject = ["status": .string(status.rawValue), "data": data]
        if let error { object["error"] = .string(error) }
        if let transaction { object["transaction"] = transaction }
        return .object(object)
    }
}
