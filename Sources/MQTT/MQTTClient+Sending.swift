internal import CMosquitto
import Dispatch

extension MQTTClient {
    /// The most messages handed to libmosquitto per main-queue turn. QoS 0 messages are
    /// confirmed as soon as they are written, so a large QoS 0 backlog could otherwise be
    /// sent in one go and hold the main actor; past the budget the rest continues on a
    /// later turn.
    static var sendBudgetPerTurn: Int { 256 }

    /// How long one turn of the main loop reads and hands on incoming packets at most (the
    /// packet under way is finished). 64 commands of 60 KB held the loop for a second and
    /// more in a debug build, and a board streaming ten frames a second behind them fell
    /// tens of seconds behind (#29); a small command costs microseconds, so a flood of those
    /// is still read 64 to a turn.
    static var readTimePerTurn: Duration { .milliseconds(5) }

    /// Hands queued messages to libmosquitto while connected and the window allows.
    func sendQueued() {
        guard phase == .connected, let handle else { return }
        while queue.inFlightCount < window, pendingFailureCode == nil, queue.pendingCount > 0 {
            guard sendBudget > 0 else {
                scheduleSendContinuation()
                break
            }
            guard let entry = queue.popFirst() else { break }
            sendBudget -= 1
            var expiry: UInt32?
            if let interval = entry.message.properties.messageExpiryInterval {
                let waited = UInt64(max(0, (ContinuousClock.now - entry.enqueuedAt).components.seconds))
                guard waited < UInt64(interval) else {
                    statistics.messagesExpired += 1
                    log(.debug, "expired while queued: message on \"\(entry.message.topic)\"")
                    continue
                }
                expiry = interval - UInt32(waited)
            }
            let qos = min(entry.message.qos, serverMaximumQoS)
            var mid: Int32 = 0
            let handedAt: ContinuousClock.Instant? = entry.origin == nil ? nil : .now
            let rc = MosquittoSetup.publish(
                handle, entry.message, qos: qos, expiry: expiry, withProperties: protocolVersion == .v5, mid: &mid)
            switch rc {
            case MOSQ_ERR_SUCCESS.rawValue:
                // Reported once: a copy sent again after a reconnect keeps no origin.
                var sent = entry
                sent.origin = nil
                queue.markInFlight(sent, mid: mid)
                if let origin = entry.origin, let handedAt, let onHandOff { onHandOff(handedAt - origin) }
            case MOSQ_ERR_NOMEM.rawValue:
                queue.pushFront(entry)
                return
            case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_ERRNO.rawValue,
                MOSQ_ERR_PROTOCOL.rawValue, MOSQ_ERR_TLS.rawValue:
                queue.pushFront(entry)
                pendingFailureCode = rc
                return
            default:
                statistics.messagesRejected += 1
                log(
                    .warning,
                    "message on \"\(entry.message.topic)\" not sent: \(MosquittoLibrary.errorText(rc))")
            }
        }
        service()
    }

    private func scheduleSendContinuation() {
        guard !sendContinuationScheduled else { return }
        sendContinuationScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.sendContinuationScheduled = false
                self.sendBudget = Self.sendBudgetPerTurn
                self.sendQueued()
            }
        }
    }

    func sendSubscriptions(_ list: [MQTTSubscription]) {
        guard let handle else { return }
        for subscription in list {
            var mid: Int32 = 0
            let options = protocolVersion == .v5 ? subscription.options.bits : 0
            let rc = mosquitto_subscribe_v5(
                handle.raw, &mid, subscription.filter, Int32(subscription.qos.rawValue), options, nil)
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                pendingSubscriptions[mid] = [subscription.filter]
            } else {
                noteLibraryFailure(rc, in: "mosquitto_subscribe_v5 \"\(subscription.filter)\"")
            }
        }
    }

    /// A libmosquitto call failed: connection-level codes end the connection, others are logged.
    func noteLibraryFailure(_ rc: Int32, in call: String) {
        switch rc {
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_ERRNO.rawValue:
            pendingFailureCode = rc
        default:
            log(.warning, "\(call): \(MosquittoLibrary.errorText(rc))")
        }
    }
}
