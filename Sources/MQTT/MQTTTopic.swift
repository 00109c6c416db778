/// Topic name and topic filter rules (MQTT 3.1.1 §4.7, MQTT 5 §4.7), in pure Swift.
public enum MQTTTopic {
    /// The longest topic or filter in bytes.
    public static let maximumLength = 65_535
    /// The largest payload MQTT can carry.
    public static let maximumPayloadSize = 268_435_455

    /// Whether `topic` may be published to: not empty, no `+`, `#` or NUL, ≤ 65 535 bytes.
    public static func isValidTopicName(_ topic: String) -> Bool {
        let bytes = topic.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength
            && !bytes.contains(where: { $0 == 0 || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") })
    }

    /// Whether `filter` may be subscribed to: not empty, ≤ 65 535 bytes, no NUL, `+`
    /// alone in its level, `#` alone in the last level.
    public static func isValidTopicFilter(_ filter: String) -> Bool {
        let bytes = filter.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength, !bytes.contains(0) else { return false }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) { return false }
            if level.contains("+") && level != "+" { return false }
        }
        return true
    }

    /// Whether `topic` matches `filter` (`+` one level, `#` this level and all below;
    /// topics starting with `$` are not matched by a leading wildcard).
    public static func matches(filter: String, topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = filterLevels.first, first == "+" || first == "#" { return false }
        var index = 0
        while index < filterLevels.count {
            let level = filterLevels[index]
            if level == "#" { return true }  // "a/#" also matches "a" itself
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
            index += 1
        }
        return index == topicLevels.count
    }

    /// Throws when `message` cannot be sent: bad topic, oversized payload, bad properties.
    public static func validate(_ message: MQTTMessage) throws(MQTTPublishError) {
        guard isValidTopicName(message.topic) else { throw .invalidTopic(message.topic) }
        guard message.payload.count <= maximumPayloadSize else { throw .payloadTooLarge(message.payload.count) }
        let properties = message.properties
        if let topic = properties.responseTopic, !isValidTopicName(topic) {
            throw .invalidProperty("response topic \"\(topic)\"")
        }
        if let data = properties.correlationData, data.count > 65_535 {
            throw .invalidProperty("correlation data (\(data.count) bytes)")
        }
        if let type = properties.contentType, !isValidPropertyString(type) {
            throw .invalidProperty("content type")
        }
        for pair in properties.userProperties
        where !isValidPropertyString(pair.name) || !isValidPropertyString(pair.value) {
            throw .invalidProperty("user property \"\(pair.name)\"")
        }
    }

    static func isValidPropertyString(_ text: String) -> Bool {
        text.utf8.count <= 65_535 && !text.utf8.contains(0)
    }
}
