internal import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// Conversion between ``MQTTProperties`` and libmosquitto property lists
/// (`mosquitto_property_add_*`, `mosquitto_property_read_*`, `mosquitto_property_free_all`).
enum MosquittoProperties {
    private static func id(_ property: mqtt5_property) -> Int32 { Int32(property.rawValue) }

    /// Reads the publish properties in `list` (a received message's).
    static func read(_ list: OpaquePointer?) -> MQTTProperties {
        var result = MQTTProperties()
        var cursor = list
        while let property = cursor {
            let identifier = mosquitto_property_identifier(property)
            switch identifier {
            case id(MQTT_PROP_RESPONSE_TOPIC):
                result.responseTopic = readString(property, identifier)
            case id(MQTT_PROP_CONTENT_TYPE):
                result.contentType = readString(property, identifier)
            case id(MQTT_PROP_CORRELATION_DATA):
                var value: UnsafeMutableRawPointer?
                var length: UInt16 = 0
                if mosquitto_property_read_binary(property, identifier, &value, &length, false) != nil {
                    result.correlationData =
                        value.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) }
                        ?? []
                    free(value)
                }
            case id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL):
                var value: UInt32 = 0
                if mosquitto_property_read_int32(property, identifier, &value, false) != nil {
                    result.messageExpiryInterval = value
                }
            case id(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR):
                var value: UInt8 = 0
                if mosquitto_property_read_byte(property, identifier, &value, false) != nil {
                    result.payloadIsUTF8 = value == 1
                }
            case id(MQTT_PROP_USER_PROPERTY):
                var name: UnsafeMutablePointer<CChar>?
                var value: UnsafeMutablePointer<CChar>?
                if mosquitto_property_read_string_pair(property, identifier, &name, &value, false) != nil {
                    if let name, let value {
                        result.userProperties.append(
                            MQTTUserProperty(name: String(cString: name), value: String(cString: value)))
                    }
                    free(name)
                    free(value)
                }
            default:
                break
            }
            cursor = mosquitto_property_next(property)
        }
        return result
    }

    private static func readString(_ property: OpaquePointer, _ identifier: Int32) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard mosquitto_property_read_string(property, identifier, &value, false) != nil, let value else {
            return nil
        }
        defer { free(value) }
        return String(cString: value)
    }

    /// Calls `body` with a libmosquitto list holding `properties` (with the message expiry
    /// replaced by `expiry`) plus `extra` int32 properties, and frees the list afterwards.
    /// Returns `MOSQ_ERR_*` from building the list if that fails, without calling `body`.
    static func withList(
        _ properties: MQTTProperties, expiry: UInt32?, extra: [(mqtt5_property, UInt32)] = [],
        _ body: (OpaquePointer?) -> Int32
    ) -> Int32 {
        var list: OpaquePointer?
        defer { mosquitto_property_free_all(&list) }
        var rc = MOSQ_ERR_SUCCESS.rawValue
        func check(_ result: Int32) { if rc == MOSQ_ERR_SUCCESS.rawValue { rc = result } }
        if let format = properties.payloadIsUTF8 {
            check(mosquitto_property_add_byte(&list, id(MQTT_PROP_PAYLOAD_FORMAT_INDICATOR), format ? 1 : 0))
        }
        if let expiry {
            check(mosquitto_property_add_int32(&list, id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL), expiry))
        }
        if let type = properties.contentType {
            check(mosquitto_property_add_string(&list, id(MQTT_PROP_CONTENT_TYPE), type))
        }
        if let topic = properties.responseTopic {
            check(mosquitto_property_add_string(&list, id(MQTT_PROP_RESPONSE_TOPIC), topic))
        }
        if let data = properties.correlationData {
            check(
                data.withUnsafeBytes {
                    mosquitto_property_add_binary(
                        &list, id(MQTT_PROP_CORRELATION_DATA), $0.baseAddress, UInt16(clamping: $0.count))
                })
        }
        for pair in properties.userProperties {
            check(mosquitto_property_add_string_pair(&list, id(MQTT_PROP_USER_PROPERTY), pair.name, pair.value))
        }
        for (property, value) in extra {
            check(mosquitto_property_add_int32(&list, id(property), value))
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return rc }
        return body(list)
    }
}
