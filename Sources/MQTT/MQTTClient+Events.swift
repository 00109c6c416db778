internal import CMosquitto
import Logging

extension MQTTClient {
    /// Handles one event recorded by libmosquitto's callbacks (outside libmosquitto).
    func process(_ event: MosquittoEvent) {
        switch event {
        case .connack(let code, let sessionPresent, let receiveMaximum, let maximumQoS):
            if code == 0 {
                connectionAccepted(
                    sessionPresent: sessionPresent, receiveMaximum: receiveMaximum, maximumQoS: maximumQoS)
            } else {
                let text =
                    protocolVersion == .v5 ? MosquittoLibrary.reasonText(code) : MosquittoLibrary.connackText(code)
                refusal = MQTTConnectRefusal.from(connackCode: code, protocolVersion: protocolVersion, text: text)
            }
        case .disconnected(let code):
            lastDisconnectCode = code
        case .published(let mid, let reasonCode):
            guard let entry = queue.acknowledge(mid: Int32(mid)) else { return }
            if reasonCode >= 0x80 {
                statistics.messagesRejected += 1
                log(
                    .warning,
                    "the broker refused the message on \"\(entry.message.topic)\": "
                        + "\(MosquittoLibrary.reasonText(reasonCode))")
            } else {
                statistics.messagesPublished += 1
            }
            sendQueued()
        case .message(let message):
            deliver(message)
        case .oversized(let topic, let size):
            statistics.messagesOversized += 1
            log(
                .warning,
                "discarded an incoming message of \(size) bytes on \"\(topic)\" (larger than the "
                    + "\(configuration.maximumIncomingPacketSize ?? 0)-byte limit)")
        case .subscribed(let mid, let granted):
            let filters = pendingSubscriptions.removeValue(forKey: mid) ?? []
            for (index, code) in granted.enumerated() where code >= 0x80 {
                let filter = index < filters.count ? filters[index] : "?"
                log(.warning, "the broker refused the subscription to \"\(filter)\" (code \(code))")
            }
            if !filters.isEmpty, isSubscribed { onSubscribed?() }
        case .log(let level, let text):
            let mapped: LogLevel
            switch level {
            case MOSQ_LOG_ERR:
                mapped = .error
                recentErrors.append(text)
                if recentErrors.count > 8 { recentErrors.removeFirst() }
            case MOSQ_LOG_WARNING: mapped = .warning
            case MOSQ_LOG_INFO, MOSQ_LOG_NOTICE: mapped = .info
            default: mapped = .debug
            }
            log(mapped, "libmosquitto: \(text)")
        }
    }

    private func connectionAccepted(sessionPresent: Bool, receiveMaximum: Int?, maximumQoS: Int?) {
        let token = generation
        phase = .connected
        connectedAt = .now
        statistics.connections += 1
        window = max(1, min(configuration.maximumInFlight, receiveMaximum ?? .max))
        serverMaximumQoS = maximumQoS.flatMap { MQTTQoS(rawValue: UInt8(clamping: $0)) } ?? .exactlyOnce
        let info = MQTTConnectionInfo(
            protocolVersion: protocolVersion, sessionPresent: sessionPresent, connectionCount: statistics.connections)
        log(
            .info,
            "connected to \(configuration.url) (MQTT \(protocolVersion), session present: \(sessionPresent), "
                + "\(queue.count) queued)")
        sendSubscriptions(subscriptions)
        setState(.connected(info))
        guard token == generation else { return }
        onConnected?(info)
        guard token == generation else { return }
        sendQueued()
    }

    /// Why the current handle's connection ended, from what the callbacks and calls said.
    func endReason() -> MQTTDisconnectReason {
        let failure = pendingFailureCode
        pendingFailureCode = nil
        if let refusal { return .refused(refusal) }
        if let tls = MosquittoSetup.tlsFailureSummary(recentErrors) { return .tlsFailed(tls) }
        if let code = lastDisconnectCode, code >= 0x80 {
            return .closedByBroker(code: UInt8(clamping: code), MosquittoLibrary.reasonText(code))
        }
        let code = failure ?? Int32(lastDisconnectCode ?? Int(MOSQ_ERR_CONN_LOST.rawValue))
        let text =
            switch code {
            case MOSQ_ERR_KEEPALIVE.rawValue: "keep-alive timeout (no answer from the broker)"
            case MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_SUCCESS.rawValue: "the connection was closed"
            default: MosquittoLibrary.errorText(code)
            }
        if phase == .connected { return .connectionLost(text) }
        return .connectFailed(text)
    }

    /// Processes the log lines recorded during the background connect.
    func collectLogLines() {
        guard let handle else { return }
        for event in handle.takeEvents() { process(event) }
    }
}
