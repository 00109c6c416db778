internal import CMosquitto
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The libmosquitto calls that configure, connect and publish, kept apart from the
/// client's state machine. Each names the C function it wraps.
enum MosquittoSetup {
    /// A configured handle, or why there is none.
    enum HandleSetup {
        case success(MosquittoHandle)
        case failure(MQTTDisconnectReason)
    }

    /// A new handle with protocol, limits, credentials, last will and TLS applied
    /// (`mosquitto_new`, `mosquitto_int_option`, `mosquitto_username_pw_set`,
    /// `mosquitto_will_set[_v5]`, `mosquitto_tls_set`, `mosquitto_tls_insecure_set`,
    /// `mosquitto_tls_opts_set`).
    static func makeHandle(
        _ configuration: MQTTConfiguration, protocolVersion: MQTTProtocolVersion, logLevel: LogLevel
    ) -> HandleSetup {
        guard
            let handle = MosquittoHandle(
                clientID: configuration.clientID, cleanSession: configuration.cleanSession,
                logMask: MQTTClient.libraryLogMask(for: logLevel))
        else { return .failure(.setupFailed("libmosquitto could not create a client (mosquitto_new)")) }
        let raw = handle.raw
        if let limit = configuration.maximumIncomingPacketSize { handle.maximumIncomingPayload = limit }
        func check(_ rc: Int32, _ function: String) -> MQTTDisconnectReason? {
            guard rc != MOSQ_ERR_SUCCESS.rawValue else { return nil }
            return .setupFailed("\(function): \(MosquittoLibrary.errorText(rc))")
        }
        let version = protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        if let failure = check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
            ?? check(
                mosquitto_int_option(raw, MOSQ_OPT_SEND_MAXIMUM, Int32(configuration.maximumInFlight)), "send maximum")
            ?? check(mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        {
            return .failure(failure)
        }
        if let username = configuration.username {
            // The password goes only here; libmosquitto copies it and never logs it.
            let rc = mosquitto_username_pw_set(raw, username, configuration.password?.revealed)
            if let failure = check(rc, "mosquitto_username_pw_set") { return .failure(failure) }
        }
        if let will = configuration.lastWill {
            let rc = setWill(raw, will, protocolVersion: protocolVersion)
            if let failure = check(rc, "mosquitto_will_set") { return .failure(failure) }
        }
        if let tls = configuration.tls, let failure = setTLS(raw, tls) { return .failure(failure) }
        return .success(handle)
    }

    private static func setWill(
        _ raw: OpaquePointer, _ will: MQTTLastWill, protocolVersion: MQTTProtocolVersion
    )
        -> Int32
    {
        let message = will.message
        let payloadCount = Int32(clamping: message.payload.count)
        guard protocolVersion == .v5 else {
            return message.payload.withUnsafeBytes {
                mosquitto_will_set(
                    raw, message.topic, payloadCount, $0.baseAddress, Int32(message.qos.rawValue), message.retain)
            }
        }
        // mosquitto_will_set_v5 takes ownership of the list on success only.
        var list: OpaquePointer?
        let extra: [(mqtt5_property, UInt32)] = will.delayInterval.map { [(MQTT_PROP_WILL_DELAY_INTERVAL, $0)] } ?? []
        var rc = MosquittoProperties.withList(
            message.properties, expiry: message.properties.messageExpiryInterval, extra: extra
        ) { built in
            mosquitto_property_copy_all(&list, built)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return rc }
        rc = message.payload.withUnsafeBytes {
            mosquitto_will_set_v5(
                raw, message.topic, payloadCount, $0.baseAddress, Int32(message.qos.rawValue), message.retain, list)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue { mosquitto_property_free_all(&list) }
        return rc
    }

    private static func setTLS(_ raw: OpaquePointer, _ tls: MQTTTLSConfiguration) -> MQTTDisconnectReason? {
        let files: [(String?, String)] = [
            (tls.caFile, "CA file"), (tls.certificateFile, "client certificate"), (tls.keyFile, "client key"),
        ]
        for case (let path?, let role) in files where access(path, R_OK) != 0 {
            return .setupFailed("cannot read TLS \(role) \(path): \(String(cString: strerror(errno)))")
        }
        if let path = tls.caPath, access(path, R_OK | X_OK) != 0 {
            return .setupFailed("cannot read TLS CA directory \(path): \(String(cString: strerror(errno)))")
        }
        var rc = MOSQ_ERR_SUCCESS.rawValue
        var capath = tls.caPath
        if tls.caFile == nil && tls.caPath == nil {
            rc = mosquitto_int_option(raw, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            if tls.certificateFile != nil { capath = "/etc/ssl/certs" }
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue && (tls.caFile != nil || capath != nil) {
            // A password callback that supplies none: an encrypted key fails instead of
            // OpenSSL prompting on the terminal.
            rc = mosquitto_tls_set(raw, tls.caFile, capath, tls.certificateFile, tls.keyFile) { _, _, _, _ in 0 }
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue && tls.insecure {
            // `mosquitto_tls_insecure_set` alone skips only the host name check; the chain
            // is still verified unless `cert_reqs` is 0 (libmosquitto then sets OpenSSL's
            // SSL_VERIFY_NONE). Both: any certificate, any host name.
            rc = mosquitto_tls_insecure_set(raw, true)
            if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_tls_opts_set(raw, 0, nil, nil) }
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            return .setupFailed("TLS settings rejected (mosquitto_tls_set): \(MosquittoLibrary.errorText(rc))")
        }
        return nil
    }

    /// `mosquitto_connect_bind_v5`: resolves the host and connects TCP (blocking), then
    /// starts the TLS handshake or sends CONNECT without waiting. Returns the code and `errno`.
    /// The MQTT 5 CONNECT properties Session Expiry Interval and Maximum Packet Size are
    /// sent when given (pass them only on MQTT 5).
    static func connect(
        _ handle: MosquittoHandle, _ host: String, _ port: Int32, _ keepAlive: Int32, sessionExpiry: UInt32?,
        maximumPacketSize: UInt32?
    ) -> (Int32, Int32) {
        var error: Int32 = 0
        var extra: [(mqtt5_property, UInt32)] = sessionExpiry.map { [(MQTT_PROP_SESSION_EXPIRY_INTERVAL, $0)] } ?? []
        if let maximumPacketSize { extra.append((MQTT_PROP_MAXIMUM_PACKET_SIZE, maximumPacketSize)) }
        let rc = MosquittoProperties.withList(.none, expiry: nil, extra: extra) { list in
            let result = mosquitto_connect_bind_v5(handle.raw, host, port, keepAlive, nil, list)
            error = errno
            return result
        }
        return (rc, error)
    }

    /// `mosquitto_publish_v5`, with the message's properties when `withProperties`.
    static func publish(
        _ handle: MosquittoHandle, _ message: MQTTMessage, qos: MQTTQoS, expiry: UInt32?, withProperties: Bool,
        mid: inout Int32
    ) -> Int32 {
        var localMid: Int32 = 0
        let count = Int32(clamping: message.payload.count)
        let rc = message.payload.withUnsafeBytes { payload in
            guard withProperties else {
                return mosquitto_publish_v5(
                    handle.raw, &localMid, message.topic, count, payload.baseAddress, Int32(qos.rawValue),
                    message.retain, nil)
            }
            return MosquittoProperties.withList(message.properties, expiry: expiry) { list in
                mosquitto_publish_v5(
                    handle.raw, &localMid, message.topic, count, payload.baseAddress, Int32(qos.rawValue),
                    message.retain, list)
            }
        }
        mid = localMid
        return rc
    }

    /// The reason for a failed `mosquitto_connect_bind_v5`.
    static func reasonForConnectFailure(_ rc: Int32, error: Int32, tlsErrors: [String]) -> MQTTDisconnectReason {
        switch rc {
        case MOSQ_ERR_EAI.rawValue:
            let text = gai_strerror(error).map { String(cString: $0) } ?? "error \(error)"
            return .connectFailed("cannot resolve the broker host (\(text))")
        case MOSQ_ERR_ERRNO.rawValue:
            return .connectFailed(String(cString: strerror(error)).lowercased())
        case MOSQ_ERR_TLS.rawValue:
            return .tlsFailed(tlsFailureSummary(tlsErrors) ?? "TLS setup failed (check the CA, certificate and key)")
        default:
            return .setupFailed("mosquitto_connect_bind_v5: \(MosquittoLibrary.errorText(rc))")
        }
    }

    /// A short text from libmosquitto's TLS error log lines, e.g. "certificate verify failed".
    static func tlsFailureSummary(_ lines: [String]) -> String? {
        var parts: [String] = []
        for line in lines {
            var text = line
            if line.hasPrefix("OpenSSL Error") {
                guard let colon = line.lastIndex(of: ":") else { continue }
                text = String(line[line.index(after: colon)...])
            } else if line.contains("host name verification failed") {
                text = "host name verification failed (the certificate does not name this host)"
            } else if !line.lowercased().contains("certificate") && !line.contains("TLS") {
                continue
            }
            while let last = text.last, last == "." || last == " " { text.removeLast() }
            while let first = text.first, first == " " { text.removeFirst() }
            if !text.isEmpty && !parts.contains(text) { parts.append(text) }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
