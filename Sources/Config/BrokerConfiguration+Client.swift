public import MQTT

extension BrokerConfiguration {
    /// The bytes beyond `max_command_bytes` an incoming packet may have: a topic and MQTT 5
    /// properties (response topic, correlation data) of up to 64 KiB together.
    static var packetOverheadAllowance: Int { 65_536 }

    /// The client configuration for this section: the broker, credentials, TLS, the
    /// queue bounds, the incoming packet limit, the reconnect backoff and the last will (the
    /// bridge's; none for the hall view).
    public func clientConfiguration(clientID: String, will: MQTTMessage?) -> MQTTConfiguration {
        var tlsSettings: MQTTTLSConfiguration?
        if endpoint.usesTLS {
            tlsSettings = MQTTTLSConfiguration(
                caFile: tls.caFile, certificateFile: tls.certFile, keyFile: tls.keyFile, insecure: tls.insecure)
        }
        var configuration = MQTTConfiguration(
            host: endpoint.host, port: endpoint.port, tls: tlsSettings, clientID: clientID)
        configuration.keepAlive = UInt16(clamping: keepalive)
        configuration.protocolVersion = protocolVersion
        configuration.username = username
        configuration.password = password.map { MQTTPassword($0.reveal()) }
        configuration.lastWill = will.map { MQTTLastWill(message: $0) }
        configuration.reconnect = MQTTReconnectPolicy(
            minimumDelay: .milliseconds(Int(reconnect.minDelay * 1000)),
            maximumDelay: .milliseconds(Int(reconnect.maxDelay * 1000)))
        configuration.outgoingQueueLimit = queueLimit
        configuration.outgoingQueueByteLimit = queueBytes
        // Room for the topic and properties of a command of the largest accepted size.
        configuration.maximumIncomingPacketSize = maxCommandBytes + Self.packetOverheadAllowance
        return configuration
    }
}
