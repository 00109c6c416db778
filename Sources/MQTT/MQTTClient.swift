internal import CMosquitto
import Dispatch
public import Logging
import MainLoop

/// An MQTT client over libmosquitto that keeps itself connected and loses nothing.
///
/// **Threading.** Everything happens on the main actor. libmosquitto is *driven from the
/// ``MainLoop`` by its socket* (`mosquitto_loop_read`/`_write`/`_misc` from a read and a
/// write watch and a 1 s loop timer), not by `mosquitto_loop_start`'s own thread, because:
/// - callbacks then run on the main thread inside our own calls, so they need no hop and
///   no lock, and their order relative to the rest of the daemon is deterministic;
/// - we own reconnection: exponential backoff *with jitter* (libmosquitto's thread has
///   none), the MQTT 5 → 3.1.1 fallback and a connect timeout, decided on the main actor
///   without racing a library thread;
/// - there is no permanent extra thread (memory budget).
/// The one step that can block — name resolution and the TCP connect inside
/// `mosquitto_connect_bind_v5` — runs on a short-lived background queue; the main actor
/// does not touch that attempt's handle until the queue hands it back. (The connect
/// timeout starts counting then too, but cannot cut that step short: a hanging resolver
/// or a broker that drops SYNs delays the attempt until the resolver or the kernel's TCP
/// connect timeout gives up; the main actor stays free meanwhile.) The TLS handshake
/// and the MQTT exchange are non-blocking on the main queue. Each attempt uses a fresh
/// `struct mosquitto` (``MosquittoHandle``), so no library state leaks between connections.
///
/// **Delivery.** Every outgoing message goes through one bounded queue
/// (``MQTTConfiguration/outgoingQueueLimit``, default 10 000 messages, and
/// ``MQTTConfiguration/outgoingQueueByteLimit``, default 16 MiB), connected or not, so:
/// - a message published while the broker is unreachable is sent after reconnecting,
///   in publish order, after the messages of its priority queued before it (pending
///   ``MQTTMessagePriority/normal`` messages go before ``MQTTMessagePriority/low`` ones);
/// - at most ``MQTTConfiguration/maximumInFlight`` messages (capped by the broker's
///   Receive Maximum) are handed to libmosquitto at a time; each leaves the queue only when
///   confirmed (`on_publish`: QoS 0 written, QoS 1 PUBACK, QoS 2 PUBCOMP). When a
///   connection ends, unconfirmed messages are sent again, first and in order, on the next
///   one — QoS 1 is "at least once", so a subscriber may see a message twice around a
///   reconnect, but never a gap and never a later message before an earlier first copy;
/// - when the queue is full messages are dropped (the policy is on the queue type: low
///   priority first and never a normal one for a low one, then superseded retained,
///   then the oldest non-retained, then the oldest), counted in
///   ``statistics``, reported to ``onMessagesDropped`` and logged as a warning;
/// - a message whose MQTT 5 expiry passes while queued is discarded, not sent stale.
///
/// **Incoming.** Messages are delivered on the main actor in arrival order, to
/// ``onMessage`` and to every ``messages(bufferLimit:)`` stream. libmosquitto hands over an
/// incoming QoS 2 message at PUBREL, so it can follow later QoS 0/1 messages.
///
/// **QoS 2 across reconnects.** Every connection uses a fresh `struct mosquitto`, so QoS 2
/// handshake state does not survive a reconnect: an outgoing QoS 2 message that was not
/// completed is sent again as a new message (at least once), and with a persistent session
/// an incoming QoS 2 message caught between PUBREC and PUBREL is lost. Use QoS 1 where
/// that matters (the bridge does).
///
/// **Hooks.** After every accepted connection the client re-sends all
/// ``subscriptions``, then calls ``onConnected`` (republish availability and retained
/// state there; those messages queue behind any backlog, so the newest retained value
/// wins), then sends the queue.
@MainActor
public final class MQTTClient {
    /// The configuration it was created with.
    public let configuration: MQTTConfiguration
    /// The connection state.
    public internal(set) var state: MQTTConnectionState = .stopped
    /// Called on every state change.
    public var onStateChange: ((MQTTConnectionState) -> Void)?
    /// Called after every accepted connection, after subscriptions are re-sent and before
    /// the outgoing queue is flushed: publish availability and retained state here.
    public var onConnected: ((MQTTConnectionInfo) -> Void)?
    /// Called when the broker has acknowledged every subscription sent since the connection
    /// was accepted (its SUBACKs came): from then on it delivers what is published on them,
    /// whichever connection publishes it. Before that, a message another connection publishes
    /// may reach the broker ahead of the SUBSCRIBE and not be delivered.
    public var onSubscribed: (() -> Void)?
    /// Whether the client is connected and the broker acknowledged every subscription sent
    /// since (see ``onSubscribed``).
    public var isSubscribed: Bool { phase == .connected && pendingSubscriptions.isEmpty }
    /// Called for every incoming message, in arrival order (see also ``messages(bufferLimit:)``).
    public var onMessage: ((MQTTMessage) -> Void)?
    /// Called with the total drop count whenever the full queue drops a message.
    public var onMessagesDropped: ((Int) -> Void)?
    /// Called when a message published with an `origin` (``publish(_:priority:origin:)``)
    /// has been handed over for sending, with the time from its origin to the call that
    /// hands it to libmosquitto (which builds the PUBLISH and writes it to the socket in that
    /// call, or keeps it behind what the socket has not taken yet; the write itself is not
    /// counted). A message sent again after a reconnect is not reported again.
    public var onHandOff: ((Duration) -> Void)?
    /// Receives log lines at or above ``logLevel``.
    public var logHandler: MQTTLogHandler?
    /// The lowest level passed to ``logHandler`` (default `.info`; `.debug` adds
    /// libmosquitto's packet log).
    public var logLevel: LogLevel = .info {
        didSet { handle?.logMask = Self.libraryLogMask(for: logLevel) }
    }
    /// Counters since creation.
    public internal(set) var statistics = MQTTClientStatistics()
    /// The subscriptions kept and re-sent after every connect, in the order made.
    public internal(set) var subscriptions: [MQTTSubscription] = []
    /// The protocol version the next or current connection uses (3.1.1 after a fallback).
    public internal(set) var protocolVersion: MQTTProtocolVersion

    // Internal state shared with the extensions in the other files.
    var queue: MQTTOutgoingQueue
    var phase: MQTTClientPhase = .stopped
    var handle: MosquittoHandle?
    var generation: UInt64 = 0
    var attemptNumber = 0
    var attemptStartedAt = ContinuousClock.now
    var connectedAt: ContinuousClock.Instant?
    var consecutiveFailures = 0
    var window = 1
    var serverMaximumQoS: MQTTQoS = .exactlyOnce
    var refusal: MQTTConnectRefusal?
    var lastDisconnectCode: Int?
    var pendingFailureCode: Int32?
    var recentErrors: [String] = []
    var pendingSubscriptions: [Int32: [String]] = [:]
    var readSource: DescriptorWatch?
    var writeSource: DescriptorWatch?
    var tickTimer: LoopTimer?
    var retryTimer: LoopTimer?
    var isServicing = false
    var sendBudget = 256
    var sendContinuationScheduled = false
    var overflowDropsInEpisode = 0
    var messageStreams: [UInt64: AsyncStream<MQTTMessage>.Continuation] = [:]
    var stateStreams: [UInt64: AsyncStream<MQTTConnectionState>.Continuation] = [:]
    var flushWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var nextObserverID: UInt64 = 0

    /// A stopped client for `configuration` (call ``start()``).
    public init(configuration: MQTTConfiguration, logHandler: MQTTLogHandler? = nil) throws(MQTTConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        self.logHandler = logHandler
        protocolVersion = configuration.protocolVersion
        queue = MQTTOutgoingQueue(
            limit: configuration.outgoingQueueLimit, byteLimit: configuration.outgoingQueueByteLimit)
    }

    isolated deinit {
        tearDownConnection()
        retryTimer?.cancel()
        for continuation in messageStreams.values { continuation.finish() }
        for continuation in stateStreams.values { continuation.finish() }
        for waiter in flushWaiters.values { waiter.resume(returning: false) }
    }

    /// Messages waiting to be sent or confirmed.
    public var queuedMessageCount: Int { queue.count }

    /// Messages dropped because the outgoing queue was full (also in ``statistics``).
    public var droppedMessageCount: Int { statistics.messagesDropped }

    /// Starts connecting (and reconnecting until ``stop()``). Does nothing if running.
    public func start() {
        guard phase == .stopped else { return }
        attemptNumber = 0
        consecutiveFailures = 0
        phase = .waiting
        beginAttempt()
    }

    /// Disconnects cleanly if connected (so the broker does not publish the last will),
    /// and stops reconnecting. Queued and unconfirmed messages stay queued for a later
    /// ``start()``. Call ``flush(timeout:)`` first to send them.
    public func stop() {
        guard phase != .stopped else { return }
        if let handle, phase == .connected {
            _ = mosquitto_disconnect(handle.raw)
        }
        generation &+= 1
        phase = .stopped
        tearDownConnection()
        queue.requeueInFlight()
        retryTimer?.cancel()
        retryTimer = nil
        log(.info, "stopped MQTT client for \(configuration.url)")
        setState(.stopped)
        resumeFlushWaiters(all: true)
    }

    /// Queues `message` for delivery; it is sent now if connected, else after reconnecting.
    /// A ``MQTTMessagePriority/low`` message never displaces a normal one and is sent after
    /// the pending normal ones (see ``MQTTMessagePriority``).
    /// Throws only for a message no broker could accept (bad topic, oversized payload).
    ///
    /// `origin`, when given, is when the input this message answers reached the process
    /// (a board's frame): the time from it until the message is handed over for sending
    /// goes to ``onHandOff``.
    public func publish(
        _ message: MQTTMessage, priority: MQTTMessagePriority = .normal, origin: ContinuousClock.Instant? = nil
    ) throws(MQTTPublishError) {
        try MQTTTopic.validate(message)
        let dropped = queue.enqueue(message, priority: priority, at: .now, origin: origin)
        if !dropped.isEmpty { noteDropped(dropped) }
        sendQueued()
    }

    /// Queues a message with a byte payload; see ``publish(_:)``.
    public func publish(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        properties: MQTTProperties = .none
    ) throws(MQTTPublishError) {
        try publish(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties))
    }

    /// Queues a message with a UTF-8 payload; see ``publish(_:)``.
    public func publish(
        topic: String, string: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        properties: MQTTProperties = .none
    ) throws(MQTTPublishError) {
        try publish(MQTTMessage(topic: topic, string: string, qos: qos, retain: retain, properties: properties))
    }

    /// Answers an MQTT 5 request: publishes `payload` to the request's response topic with
    /// its correlation data (plus `properties`). Throws ``MQTTPublishError/noResponseTopic(_:)``
    /// when the request has no response topic (an MQTT 3.1.1 sender cannot name one).
    public func reply(
        to request: MQTTMessage, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, properties: MQTTProperties = .none
    ) throws(MQTTPublishError) {
        guard let topic = request.properties.responseTopic else { throw .noResponseTopic(request.topic) }
        var replyProperties = properties
        replyProperties.correlationData = request.properties.correlationData
        try publish(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: false, properties: replyProperties))
    }

    /// Subscribes to `filter` now if connected, and again after every reconnect. A second
    /// call for the same filter replaces its QoS and options.
    public func subscribe(
        _ filter: String, qos: MQTTQoS = .atLeastOnce, options: MQTTSubscriptionOptions = .init()
    ) throws(MQTTPublishError) {
        guard MQTTTopic.isValidTopicFilter(filter) else { throw .invalidTopicFilter(filter) }
        let subscription = MQTTSubscription(filter: filter, qos: qos, options: options)
        if let index = subscriptions.firstIndex(where: { $0.filter == filter }) {
            subscriptions[index] = subscription
        } else {
            subscriptions.append(subscription)
        }
        if phase == .connected {
            sendSubscriptions([subscription])
            service()
        }
    }

    /// Forgets the subscription to `filter` and unsubscribes now if connected.
    public func unsubscribe(_ filter: String) {
        subscriptions.removeAll { $0.filter == filter }
        guard phase == .connected, let handle else { return }
        let rc = mosquitto_unsubscribe(handle.raw, nil, filter)
        if rc != MOSQ_ERR_SUCCESS.rawValue { noteLibraryFailure(rc, in: "mosquitto_unsubscribe") }
        service()
    }

    /// A stream of incoming messages, in order, from now on. Each call makes an
    /// independent stream; when a consumer lags by more than `bufferLimit` messages, the
    /// oldest unread ones are discarded from its stream.
    public func messages(bufferLimit: Int = 10_000) -> AsyncStream<MQTTMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(max(bufferLimit, 1)))
        let id = nextObserverID
        nextObserverID += 1
        messageStreams[id] = continuation
        continuation.onTermination = { [weak self] _ in
            let client = self
            Task { @MainActor in client?.messageStreams[id] = nil }
        }
        return stream
    }

    /// A stream of connection states: the current one first, then every change.
    public func stateChanges() -> AsyncStream<MQTTConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTConnectionState.self, bufferingPolicy: .bufferingNewest(100))
        let id = nextObserverID
        nextObserverID += 1
        stateStreams[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { [weak self] _ in
            let client = self
            Task { @MainActor in client?.stateStreams[id] = nil }
        }
        return stream
    }

    /// Waits until every queued message is confirmed (`true`) or `timeout` passes, or the
    /// client is stopped with messages left (`false`).
    public func flush(timeout: Duration) async -> Bool {
        if queue.isEmpty { return true }
        let id = nextObserverID
        nextObserverID += 1
        return await withCheckedContinuation { continuation in
            flushWaiters[id] = continuation
            MainLoop.after(timeout) { [weak self] in self?.resumeFlushWaiter(id, result: false) }
        }
    }

    // MARK: - Observation and logging

    func setState(_ newState: MQTTConnectionState) {
        guard newState != state else { return }
        state = newState
        for continuation in stateStreams.values { continuation.yield(newState) }
        onStateChange?(newState)
    }

    func log(_ level: LogLevel, _ text: @autoclosure () -> String) {
        guard level >= logLevel, let logHandler else { return }
        logHandler(level, text())
    }

    func deliver(_ message: MQTTMessage) {
        statistics.messagesReceived += 1
        for continuation in messageStreams.values { continuation.yield(message) }
        onMessage?(message)
    }

    func noteDropped(_ dropped: [MQTTOutgoingQueue.Entry]) {
        statistics.messagesDropped += dropped.count
        overflowDropsInEpisode += dropped.count
        let total = statistics.messagesDropped
        if overflowDropsInEpisode == dropped.count {
            log(
                .warning,
                "outgoing MQTT queue full (\(queue.count) messages, \(queue.bytes) bytes; limits "
                    + "\(configuration.outgoingQueueLimit) messages, \(configuration.outgoingQueueByteLimit) bytes): dropping "
                    + "\"\(dropped[0].message.topic)\"; \(total) dropped in total")
        } else if String(overflowDropsInEpisode).dropFirst().allSatisfy({ $0 == "0" }) {
            log(.warning, "outgoing MQTT queue still full: \(overflowDropsInEpisode) more dropped; \(total) in total")
        }
        onMessagesDropped?(total)
    }

    func resumeFlushWaiter(_ id: UInt64, result: Bool) {
        flushWaiters.removeValue(forKey: id)?.resume(returning: result)
    }

    /// Resumes waiters when the queue is empty, or all (with `false`) when stopping.
    func resumeFlushWaiters(all: Bool) {
        if queue.isEmpty && overflowDropsInEpisode > 0 {
            log(.info, "outgoing MQTT queue drained; \(overflowDropsInEpisode) messages were dropped while it was full")
            overflowDropsInEpisode = 0
        }
        guard queue.isEmpty || all else { return }
        let waiters = flushWaiters
        flushWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(returning: queue.isEmpty) }
    }

    nonisolated static func libraryLogMask(for level: LogLevel) -> Int32 {
        switch level {
        case .debug: Int32(bitPattern: MOSQ_LOG_ALL)
        case .info: MOSQ_LOG_INFO | MOSQ_LOG_NOTICE
        case .notice, .warning, .error: 0
        }
    }
}

/// Where the connection machinery stands (internal; ``MQTTConnectionState`` is the public view).
enum MQTTClientPhase: Equatable {
    /// Not started or stopped.
    case stopped
    /// Waiting for the retry timer.
    case waiting
    /// `mosquitto_connect_bind_v5` runs on a background queue and owns the handle.
    case connectingInBackground
    /// TCP is up; TLS handshake and CONNECT/CONNACK under way.
    case handshaking
    /// CONNACK accepted.
    case connected
}
