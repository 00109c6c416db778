internal import CMosquitto
import Dispatch
import MainLoop
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Moves a handle to the background connect and back. Safe because the main actor does
/// not touch the handle while the background queue has it (phase `connectingInBackground`).
private struct HandleTransfer: @unchecked Sendable {
    let handle: MosquittoHandle
}

/// The connect parameters, copied for the background queue.
private struct ConnectRequest: Sendable {
    let host: String
    let port: Int32
    let keepAlive: Int32
    let sessionExpiry: UInt32?
    let maximumPacketSize: UInt32?
}

extension MQTTClient {
    // MARK: - Attempts

    /// Starts one connection attempt: a fresh handle, configured, connected in the background.
    func beginAttempt() {
        guard phase == .waiting else { return }
        generation &+= 1
        let token = generation
        attemptNumber += 1
        statistics.connectAttempts += 1
        attemptStartedAt = .now
        refusal = nil
        lastDisconnectCode = nil
        pendingFailureCode = nil
        recentErrors = []
        setState(.connecting(attempt: attemptNumber))
        guard phase == .waiting, generation == token else { return }
        log(.info, "connecting to \(configuration.url) (MQTT \(protocolVersion), attempt \(attemptNumber))")

        let newHandle: MosquittoHandle
        switch MosquittoSetup.makeHandle(configuration, protocolVersion: protocolVersion, logLevel: logLevel) {
        case .success(let made): newHandle = made
        case .failure(let reason):
            attemptFailed(reason)
            return
        }
        phase = .connectingInBackground
        let transfer = HandleTransfer(handle: newHandle)
        let request = ConnectRequest(
            host: configuration.host, port: Int32(configuration.port), keepAlive: Int32(configuration.keepAlive),
            sessionExpiry: protocolVersion == .v5 && !configuration.cleanSession
                ? configuration.sessionExpiryInterval : nil,
            maximumPacketSize: protocolVersion == .v5
                ? configuration.maximumIncomingPacketSize.map { UInt32(clamping: $0) } : nil)
        DispatchQueue.global(qos: .utility).async { [weak self] in
            let (rc, error) = MosquittoSetup.connect(
                transfer.handle, request.host, request.port, request.keepAlive,
                sessionExpiry: request.sessionExpiry, maximumPacketSize: request.maximumPacketSize)
            let client = self
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    client?.backgroundConnectFinished(transfer, token: token, rc: rc, error: error)
                }
            }
        }
    }

    private func backgroundConnectFinished(_ transfer: HandleTransfer, token: UInt64, rc: Int32, error: Int32) {
        // A stale attempt (stopped meanwhile): dropping the transfer destroys its handle.
        guard phase == .connectingInBackground, token == generation else { return }
        handle = transfer.handle
        collectLogLines()
        guard rc <= MOSQ_ERR_SUCCESS.rawValue else {
            attemptFailed(MosquittoSetup.reasonForConnectFailure(rc, error: error, tlsErrors: recentErrors))
            return
        }
        guard let watched = watch(transfer.handle) else {
            attemptFailed(.connectFailed("cannot watch the socket"))
            return
        }
        readSource = watched
        phase = .handshaking
        startTickTimer()
        if transfer.handle.wantsWrite {
            let written = mosquitto_loop_write(transfer.handle.raw, 1)
            if written != MOSQ_ERR_SUCCESS.rawValue { pendingFailureCode = written }
        }
        service()
    }

    /// A watch on a (close-on-exec) duplicate of libmosquitto's socket: libmosquitto may close
    /// its descriptor inside any call, while a watched descriptor must stay open until the
    /// watch is cancelled, so the watch reads (and closes) its own. In the daemon the
    /// `MainLoop` serves it on the main thread (a PUBACK or a command costs one wake-up, not a
    /// hand-off from libdispatch's manager thread).
    private func watch(_ handle: MosquittoHandle) -> DescriptorWatch? {
        let socket = handle.socket
        guard socket >= 0 else { return nil }
        // libmosquitto does not mark its socket close-on-exec; a child process spawned
        // while we are connected would keep the connection open after we close it.
        try? FileDescriptor(rawValue: socket).setCloseOnExec()
        guard let descriptor = try? FileDescriptor(rawValue: socket).duplicate().rawValue else { return nil }
        return DescriptorWatch(descriptor: descriptor, closesDescriptor: true) { [weak self] in
            self?.socketReadable()
        }
    }

    private func socketReadable() {
        guard let handle else { return }
        sendBudget = Self.sendBudgetPerTurn
        let deadline = ContinuousClock.now + Self.readTimePerTurn
        var rc = mosquitto_loop_read(handle.raw, 1)
        // libmosquitto reads about one packet per call; read on while the socket has bytes,
        // instead of paying a wake-up per packet, but hand each packet on before reading the
        // next and give the turn back once it has run `readTimePerTurn` (or 64 packets): the
        // boards' sockets are served between turns, whatever the size of the commands.
        var rounds = 1
        while rc == MOSQ_ERR_SUCCESS.rawValue, phase == .connected, rounds < 64, hasPendingInput(handle) {
            service()
            // `service` may have ended the connection (its own clean-up done).
            guard self.handle === handle else { return }
            guard phase == .connected, ContinuousClock.now < deadline else { break }
            rc = mosquitto_loop_read(handle.raw, 1)
            rounds += 1
        }
        // Before CONNACK the write side is not watched (a TLS handshake waiting to read would
        // spin on writability), so the CONNECT that follows the handshake goes out here.
        if phase == .handshaking, rc == MOSQ_ERR_SUCCESS.rawValue, handle.wantsWrite {
            rc = mosquitto_loop_write(handle.raw, 1)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue { pendingFailureCode = rc }
        service()
        if phase == .handshaking, self.handle === handle, let reason = peekForClosedSocket(handle) {
            connectionEnded(reason)
        }
    }

    private func socketWritable() {
        guard let handle else { return }
        sendBudget = Self.sendBudgetPerTurn
        let rc = mosquitto_loop_write(handle.raw, 1)
        if rc != MOSQ_ERR_SUCCESS.rawValue { pendingFailureCode = rc }
        service()
    }

    private func hasPendingInput(_ handle: MosquittoHandle) -> Bool {
        let socket = handle.socket
        guard socket >= 0 else { return false }
        return ((try? FileDescriptor(rawValue: socket).peek()) ?? 0) > 0
    }

    /// During the handshake libmosquitto can keep a TLS socket that the peer closed (it
    /// reports `SSL_ERROR_SYSCALL` as "try again"); look for end of file ourselves.
    private func peekForClosedSocket(_ handle: MosquittoHandle) -> MQTTDisconnectReason? {
        let socket = handle.socket
        guard socket >= 0 else { return nil }
        do {
            guard try FileDescriptor(rawValue: socket).peek() == 0 else { return nil }
            return .connectFailed("the broker closed the connection during the handshake")
        } catch {
            return error == .wouldBlock ? nil : .connectFailed(error.description)
        }
    }

    private func startTickTimer() {
        tickTimer?.cancel()
        tickTimer = MainLoop.every(1) { [weak self] in self?.tick() }
    }

    /// Keep-alive (`mosquitto_loop_misc`), the connect timeout, and pending handshake writes.
    private func tick() {
        guard let handle else { return }
        if phase == .handshaking && ContinuousClock.now - attemptStartedAt > configuration.connectTimeout {
            connectionEnded(.timedOut)
            return
        }
        sendBudget = Self.sendBudgetPerTurn
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if phase == .handshaking {
            // libmosquitto continues a TLS handshake only inside mosquitto_loop_read, also
            // when the handshake waits to write; a read with nothing to read is harmless.
            rc = mosquitto_loop_read(handle.raw, 1)
            if rc == MOSQ_ERR_SUCCESS.rawValue, handle.wantsWrite { rc = mosquitto_loop_write(handle.raw, 1) }
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(handle.raw) }
        if rc != MOSQ_ERR_SUCCESS.rawValue { pendingFailureCode = rc }
        service()
    }

    /// Watches for writability only while libmosquitto has bytes waiting (after CONNACK).
    private func updateWriteInterest() {
        guard let handle, phase == .connected, handle.wantsWrite else {
            writeSource?.cancel()
            writeSource = nil
            return
        }
        guard writeSource == nil else { return }
        // A duplicate: the read watch has the socket's other duplicate, and libmosquitto may
        // close its own at any call.
        guard let descriptor = try? FileDescriptor(rawValue: handle.socket).duplicate().rawValue else { return }
        writeSource = DescriptorWatch(descriptor: descriptor, for: .writable, closesDescriptor: true) { [weak self] in
            self?.socketWritable()
        }
    }

    // MARK: - Servicing

    /// Processes what libmosquitto's callbacks recorded, then checks the connection. Runs
    /// after every libmosquitto call; re-entrant calls (from owner callbacks) return at
    /// once and the outer loop picks up their effects.
    func service() {
        guard !isServicing else { return }
        isServicing = true
        defer { isServicing = false }
        while let current = handle {
            let token = generation
            let events = current.takeEvents()
            if !events.isEmpty {
                for event in events {
                    guard token == generation, handle === current else { break }
                    process(event)
                }
                continue
            }
            guard token == generation, handle === current else { break }
            if pendingFailureCode != nil || current.socket < 0 {
                connectionEnded(endReason())
                break
            }
            updateWriteInterest()
            resumeFlushWaiters(all: false)
            break
        }
    }

    // MARK: - Ending connections

    /// Cancels sources and timers and destroys the handle (closing its socket).
    func tearDownConnection() {
        readSource?.cancel()
        readSource = nil
        writeSource?.cancel()
        writeSource = nil
        tickTimer?.cancel()
        tickTimer = nil
        handle = nil
        pendingSubscriptions = [:]
    }

    /// The attempt failed before a connection existed.
    private func attemptFailed(_ reason: MQTTDisconnectReason) {
        connectionEnded(reason)
    }

    /// The current attempt or connection is over: clean up, requeue, back off, retry.
    func connectionEnded(_ reason: MQTTDisconnectReason) {
        let wasConnected = phase == .connected
        tearDownConnection()
        queue.requeueInFlight()
        guard phase != .stopped else { return }
        phase = .waiting
        generation &+= 1
        let token = generation
        if wasConnected {
            log(.warning, "lost connection to \(configuration.url): \(reason)")
        } else {
            log(.error, "connection attempt \(attemptNumber) to \(configuration.url) failed: \(reason)")
        }
        if case .refused(let refusal) = reason,
            let next = MQTTProtocolNegotiation.fallback(
                after: refusal, current: protocolVersion, allowsFallback: configuration.allowsProtocolFallback)
        {
            protocolVersion = next
            log(.info, "the broker refused MQTT 5; retrying with MQTT \(next)")
            setState(.disconnected(reason, retryIn: .zero))
            if phase == .waiting, token == generation { scheduleRetry(after: .zero) }
            return
        }
        if wasConnected, let connectedAt, ContinuousClock.now - connectedAt >= Self.stableConnection {
            consecutiveFailures = 0
        }
        consecutiveFailures += 1
        let delay = configuration.reconnect.delay(
            afterFailures: consecutiveFailures, random: Double.random(in: 0..<1))
        setState(.disconnected(reason, retryIn: delay))
        if phase == .waiting, token == generation { scheduleRetry(after: delay) }
    }

    /// A connection that lasted this long resets the backoff.
    static var stableConnection: Duration { .seconds(10) }

    private func scheduleRetry(after delay: Duration) {
        retryTimer?.cancel()
        retryTimer = MainLoop.after(delay) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            self.beginAttempt()
        }
    }
}

extension MQTTClient {
    /// Test hook: cuts the TCP connection without a DISCONNECT (`shutdown(2)` on the
    /// socket), as a crash or a network failure would, so the broker publishes the last
    /// will and the client goes through its reconnect path.
    func severConnectionForTesting() {
        guard let handle, handle.socket >= 0 else { return }
        shutdown(handle.socket, Int32(SHUT_RDWR))
    }
}
