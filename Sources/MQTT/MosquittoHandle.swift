internal import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// What libmosquitto's callbacks report, copied into Swift values at once.
enum MosquittoEvent {
    /// CONNACK: the `on_connect` code (0 = accepted) and what the broker announced.
    case connack(code: Int, sessionPresent: Bool, receiveMaximum: Int?, maximumQoS: Int?)
    /// `on_disconnect`: 0 after our own DISCONNECT, a `MOSQ_ERR_*` code, or an MQTT 5
    /// reason code (≥ 0x80) from the broker's DISCONNECT.
    case disconnected(code: Int)
    /// `on_publish`: QoS 0 written, QoS 1 PUBACK, QoS 2 PUBCOMP; MQTT 5 reason code.
    case published(mid: Int32, reasonCode: Int)
    /// `on_message`.
    case message(MQTTMessage)
    /// `on_message` for a message larger than the handle's limit: not copied.
    case oversized(topic: String, size: Int)
    /// `on_subscribe`: granted QoS per filter (≥ 0x80 means refused).
    case subscribed(mid: Int32, granted: [Int])
    /// `on_log`.
    case log(level: Int32, text: String)
}

/// Process-wide libmosquitto initialisation (`mosquitto_lib_init`, once).
enum MosquittoLibrary {
    static let initialized: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue

    /// `mosquitto_strerror` as a Swift string.
    static func errorText(_ code: Int32) -> String {
        guard let text = mosquitto_strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// `mosquitto_reason_string` (MQTT 5 reason codes) as a Swift string.
    static func reasonText(_ code: Int) -> String {
        guard let text = mosquitto_reason_string(Int32(code)) else { return "reason \(code)" }
        return String(cString: text)
    }

    /// `mosquitto_connack_string` (MQTT 3.1.1 CONNACK codes) as a Swift string.
    static func connackText(_ code: Int) -> String {
        guard let text = mosquitto_connack_string(Int32(code)) else { return "code \(code)" }
        return String(cString: text)
    }
}

/// Owns one `struct mosquitto` (one connection attempt and the connection that follows)
/// and frees it with `mosquitto_destroy` in `deinit`, which also closes its socket.
///
/// The callbacks are non-capturing `@convention(c)` closures that find this object
/// through libmosquitto's userdata pointer. The pointer is unretained: the handle lives
/// as long as the `struct mosquitto`, and libmosquitto calls back only from inside calls
/// made through this handle. Callbacks only append to ``events``; the owner drains them
/// after each call returns, so no owner code ever runs inside libmosquitto.
///
/// Not thread-safe. The owner (``MQTTClient``, on the main actor) uses it from one thread
/// at a time; during the blocking connect it hands it to a background queue and does not
/// touch it until the queue hands it back.
final class MosquittoHandle {
    let raw: OpaquePointer
    /// Events recorded by callbacks, in order.
    var events: [MosquittoEvent] = []
    /// Log lines at these `MOSQ_LOG_*` levels are recorded (errors and warnings always are).
    var logMask: Int32
    /// Incoming payloads larger than this are reported as ``MosquittoEvent/oversized(topic:size:)``
    /// and not copied.
    var maximumIncomingPayload = Int.max

    /// A handle for `clientID`, or `nil` if libmosquitto refuses (`mosquitto_new`).
    init?(clientID: String, cleanSession: Bool, logMask: Int32) {
        guard MosquittoLibrary.initialized, let raw = mosquitto_new(clientID, cleanSession, nil) else { return nil }
        self.raw = raw
        self.logMask = logMask | MOSQ_LOG_ERR | MOSQ_LOG_WARNING
        mosquitto_user_data_set(raw, Unmanaged.passUnretained(self).toOpaque())
        installCallbacks()
    }

    deinit { mosquitto_destroy(raw) }

    /// Takes the recorded events. None: no array made (the check after every publish and
    /// every tick; emptying a buffer the caller shares would allocate a new one).
    func takeEvents() -> [MosquittoEvent] {
        guard !events.isEmpty else { return [] }
        var taken: [MosquittoEvent] = []
        swap(&taken, &events)
        return taken
    }

    /// The socket libmosquitto uses, or -1 (`mosquitto_socket`).
    var socket: Int32 { mosquitto_socket(raw) }

    /// Whether libmosquitto has bytes to write (`mosquitto_want_write`).
    var wantsWrite: Bool { mosquitto_want_write(raw) }

    private static func handle(_ userdata: UnsafeMutableRawPointer?) -> MosquittoHandle? {
        guard let userdata else { return nil }
        return Unmanaged<MosquittoHandle>.fromOpaque(userdata).takeUnretainedValue()
    }

    private func installCallbacks() {
        mosquitto_connect_v5_callback_set(raw) { _, userdata, code, flags, properties in
            guard let handle = MosquittoHandle.handle(userdata) else { return }
            var receiveMaximum: UInt16 = 0
            var maximumQoS: UInt8 = 0
            let hasReceiveMaximum =
                mosquitto_property_read_int16(
                    properties, Int32(MQTT_PROP_RECEIVE_MAXIMUM.rawValue), &receiveMaximum, false) != nil
            let hasMaximumQoS =
                mosquitto_property_read_byte(properties, Int32(MQTT_PROP_MAXIMUM_QOS.rawValue), &maximumQoS, false)
                != nil
            handle.events.append(
                .connack(
                    code: Int(code), sessionPresent: flags & 1 == 1,
                    receiveMaximum: hasReceiveMaximum ? Int(receiveMaximum) : nil,
                    maximumQoS: hasMaximumQoS ? Int(maximumQoS) : nil))
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, userdata, code, _ in
            MosquittoHandle.handle(userdata)?.events.append(.disconnected(code: Int(code)))
        }
        mosquitto_publish_v5_callback_set(raw) { _, userdata, mid, reasonCode, _ in
            MosquittoHandle.handle(userdata)?.events.append(.published(mid: mid, reasonCode: Int(reasonCode)))
        }
        mosquitto_message_v5_callback_set(raw) { _, userdata, message, properties in
            guard let handle = MosquittoHandle.handle(userdata), let message else { return }
            let size = Int(message.pointee.payloadlen)
            guard size <= handle.maximumIncomingPayload else {
                let topic = message.pointee.topic.map { String(cString: $0) } ?? ""
                handle.events.append(.oversized(topic: topic, size: size))
                return
            }
            handle.events.append(.message(MosquittoHandle.copy(message.pointee, properties: properties)))
        }
        mosquitto_subscribe_v5_callback_set(raw) { _, userdata, mid, count, granted, _ in
            guard let handle = MosquittoHandle.handle(userdata) else { return }
            var codes: [Int] = []
            if let granted, count > 0 {
                codes = (0..<Int(count)).map { Int(granted[$0]) }
            }
            handle.events.append(.subscribed(mid: mid, granted: codes))
        }
        mosquitto_log_callback_set(raw) { _, userdata, level, text in
            guard let handle = MosquittoHandle.handle(userdata), level & handle.logMask != 0, let text else { return }
            handle.events.append(.log(level: level, text: String(cString: text)))
        }
    }

    /// Copies a libmosquitto message and its properties into Swift values.
    static func copy(_ message: mosquitto_message, properties: OpaquePointer?) -> MQTTMessage {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        if let bytes = message.payload, message.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
        }
        let qos = MQTTQoS(rawValue: UInt8(clamping: message.qos)) ?? .atMostOnce
        return MQTTMessage(
            topic: topic, payload: payload, qos: qos, retain: message.retain,
            properties: MosquittoProperties.read(properties))
    }
}
