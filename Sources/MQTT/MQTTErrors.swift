/// A configuration or server URL the client cannot use. Messages name the offending
/// input, never a password.
public enum MQTTConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not a URL of the form `scheme://host[:port]`.
    case invalidURL(String)
    /// The scheme is not `mqtt` or `mqtts`.
    case unsupportedScheme(String)
    /// The URL carries a user name or password (shown with the user part as `***`).
    case credentialsInURL(String)
    /// The URL has a path, query or fragment.
    case unexpectedPath(String)
    /// The URL has no host.
    case missingHost(String)
    /// The host is not a valid host name or bracketed IPv6 address.
    case invalidHost(String)
    /// The port is not a number in 1...65535.
    case invalidPort(String)
    /// The client id is empty.
    case emptyClientID
    /// The client id is longer than 65 535 bytes or contains NUL.
    case invalidClientID(String)
    /// Keep-alive must be 0 or 5...65535 seconds.
    case invalidKeepAlive(Int)
    /// The outgoing queue limit must be at least 1.
    case invalidQueueLimit(Int)
    /// The outgoing queue byte limit must be at least 1.
    case invalidQueueByteLimit(Int)
    /// The in-flight limit must be in 1...65535.
    case invalidMaximumInFlight(Int)
    /// The incoming packet limit must be in 1...268435460 (the largest MQTT packet).
    case invalidMaximumPacketSize(Int)
    /// A password was given without a user name.
    case passwordWithoutUsername
    /// Only one of the client certificate and its key was given.
    case incompleteClientCertificate
    /// The last will's topic is not publishable.
    case invalidWill(String)

    /// A sentence for logs and config error reports.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            "invalid MQTT server URL \"\(url)\" (expected mqtt://host[:port] or mqtts://host[:port])"
        case .unsupportedScheme(let scheme): "unsupported URL scheme \"\(scheme)\" (use mqtt or mqtts)"
        case .credentialsInURL(let url):
            "credentials in the server URL \"\(url)\" are not accepted; set username and password separately"
        case .unexpectedPath(let url): "the server URL \"\(url)\" must not have a path, query or fragment"
        case .missingHost(let url): "the server URL \"\(url)\" has no host"
        case .invalidHost(let host): "invalid broker host \"\(host)\""
        case .invalidPort(let port): "invalid broker port \"\(port)\" (expected 1...65535)"
        case .emptyClientID: "the MQTT client id must not be empty"
        case .invalidClientID(let id): "invalid MQTT client id \"\(id)\""
        case .invalidKeepAlive(let seconds): "invalid keep-alive \(seconds) s (expected 0 or 5...65535)"
        case .invalidQueueLimit(let limit): "invalid outgoing queue limit \(limit) (expected at least 1)"
        case .invalidQueueByteLimit(let limit): "invalid outgoing queue byte limit \(limit) (expected at least 1)"
        case .invalidMaximumInFlight(let limit): "invalid in-flight limit \(limit) (expected 1...65535)"
        case .invalidMaximumPacketSize(let size):
            "invalid maximum incoming packet size \(size) (expected 1...\(MQTTConfiguration.largestPacket))"
        case .passwordWithoutUsername: "an MQTT password needs a user name"
        case .incompleteClientCertificate: "a TLS client certificate needs both the certificate and the key file"
        case .invalidWill(let reason): "invalid last will: \(reason)"
        }
    }
}

/// A message or subscription the client refuses before it ever reaches the broker.
public enum MQTTPublishError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The topic is empty, contains `+`, `#` or NUL, or is longer than 65 535 bytes.
    case invalidTopic(String)
    /// The topic filter is malformed (misplaced wildcards, empty, NUL, too long).
    case invalidTopicFilter(String)
    /// The payload is larger than MQTT allows (268 435 455 bytes).
    case payloadTooLarge(Int)
    /// A property string contains NUL, or correlation data exceeds 65 535 bytes.
    case invalidProperty(String)
    /// ``MQTTClient/reply(to:payload:qos:)`` got a message without a response topic.
    case noResponseTopic(String)

    /// A sentence for logs.
    public var description: String {
        switch self {
        case .invalidTopic(let topic): "invalid topic \"\(topic)\" (empty, wildcard, NUL or longer than 65535 bytes)"
        case .invalidTopicFilter(let filter): "invalid topic filter \"\(filter)\""
        case .payloadTooLarge(let size): "payload of \(size) bytes exceeds the MQTT maximum of 268435455"
        case .invalidProperty(let name): "invalid MQTT 5 property \(name)"
        case .noResponseTopic(let topic): "the message on \"\(topic)\" has no response topic to reply to"
        }
    }
}
