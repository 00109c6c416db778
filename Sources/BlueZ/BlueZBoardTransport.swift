public import Adapters
public import BoardKit
public import BoardLink
import Dispatch
import FoundationEssentials
public import Logging

/// A ``BoardTransport`` over BlueZ's D-Bus API, one per board, sharing one ``BlueZManager``.
///
/// Two ways to use it:
/// - the spec's manual flow: ``startScan()``, pick one of ``discovered``, ``connect(_:)``;
/// - the bridge's automatic flow: ``start()`` scans until the board described by ``match``
///   shows up, then connects (retrying a failed first connect every
///   ``BlueZTransportSettings/initialRetryDelay`` seconds, forever).
///
/// Link set-up: `Device1.Connect` (one in flight per adapter; `InProgress` and aborts retried
/// after ``BlueZTransportSettings/transientRetryDelays``) → wait for `ServicesResolved` → find
/// the profile's characteristics (main and additional services) → `StartNotify` on each notify
/// characteristic → a fresh adapter → ``BoardTransportState/connected`` and
/// ``BoardEvent/connected`` → the handshake (`handshakeCommands(isReconnect:)`, each step after
/// its `delayBefore`, through the paced writer) → the adapter emits ``BoardEvent/ready``.
///
/// Data: each `Value` notification → `adapter.feed(bytes:)` → events → the adapter's pending
/// responses onto the same paced writer (one FIFO, at least `minimumWriteInterval` between
/// writes; `WriteValue` with the profile's `type`).
///
/// Auxiliary characteristics (an adapter that is ``BoardKit/BoardAuxiliaryReading``, e.g.
/// ChessUp's GATT battery level): found after the notify subscriptions, `StartNotify` where
/// they notify, `ReadValue` when ``send(_:)`` gets their read command (which the adapter
/// encodes no bytes for); each value goes to the adapter's `feed(value:of:)`. None of them
/// is required for the link.
///
/// An unexpected drop (`Connected=false`, the device or its GATT objects removed,
/// `ServicesResolved=false`, BlueZ or the bus gone, a write answered "Not connected") yields
/// ``BoardEvent/disconnected(error:)`` and runs the ``BoardReconnectPolicy``: each attempt
/// publishes ``BoardTransportState/reconnecting(attempt:)``, waits its delay, finds the board
/// (its BlueZ object, or a scan) and sets the link up again with a fresh adapter and
/// `handshakeCommands(isReconnect: true)`; when the policy gives up the state is
/// ``BoardTransportState/disconnected``. ``disconnect()`` never reconnects.
@MainActor
public final class BlueZBoardTransport: BoardEventDelivering, BoardCommandChecking, BoardInputTaking {
    /// The manager whose connection this transport uses.
    public let manager: BlueZManager
    /// The board family (which adapter and GATT profile).
    public let family: BoardFamily
    /// Which board this transport is for.
    public let match: BoardMatch
    /// The adapter to use (`hci0`), or `nil` for any (the least busy one that sees the board).
    public let adapterName: String?
    /// The reconnect schedule after an unexpected drop.
    public let policy: BoardReconnectPolicy
    /// Options for the adapter (`advertisedName` defaults to the board's name).
    public let adapterOptions: AdapterOptions
    /// Timing settings.
    public let settings: BlueZTransportSettings
    /// Where log lines go (prefixed with this board's label).
    public let logger: Logger

    /// The link state (``BoardTransport/state``).
    public internal(set) var state: BoardTransportState = .idle
    /// Boards of this transport's kind seen by the current or last scan, strongest first.
    public internal(set) var discovered: [DiscoveredBoardDevice] = []
    /// The name of the connected board, if any.
    public internal(set) var connectedDeviceName: String?
    /// The last error, readable.
    public internal(set) var lastError: String?
    /// Decoded events and link events, in order (one consumer; the newest 4096 are kept if
    /// nobody reads).
    public let events: AsyncStream<BoardEvent>
    /// The state plus reconnect details, for the bridge's `connection` topic.
    public internal(set) var status: BoardLinkStatus
    /// Whether the first link of ``start()`` continues a session the board already has — the
    /// owner ran before and kept the game (a restarted bridge): that link then runs
    /// `handshakeCommands(isReconnect: true)` like a reconnect, not the fresh handshake that
    /// would start the board's own game afresh (ChessUp `B9`). Set before ``start()``.
    public var resumesBoardSession = false
    /// Called whenever ``status`` changes.
    public var onStatusChange: (@MainActor (BoardLinkStatus) -> Void)?

    let continuation: AsyncStream<BoardEvent>.Continuation
    let waiter: BlueZConditionWaiter
    let templateAdapter: any BoardAdapter
    var activity: BoardTransportState = .idle
    var link: BlueZLink?
    var lastDevicePath: String? {
        didSet { lastAdapterName = lastDevicePath.flatMap(BlueZPath.adapterName(of:)) }
    }
    /// The adapter of ``lastDevicePath`` (`hci0`), kept for the status.
    private(set) var lastAdapterName: String?
    var lastDeviceAddress: String?
    var lastDeviceName: String?
    var hasBeenConnected = false
    var autoConnect = false
    var task: Task<Void, Never>?
    var taskID = 0
    var manualScan: BlueZDiscoverySession?
    var seekScan: BlueZDiscoverySession?
    var reconnectAttempt: Int?
    var reconnectDelay: TimeInterval?
    /// The link runtime's reconnect loop (run in ``task`` by ``runReconnect(id:)``).
    lazy var runner = ReconnectRunner(scheduler: manager.scheduler)
    var pendingDisconnect: Task<Void, Never>?
    var eventHandler: (@MainActor (BoardEvent) -> Void)?
    var pendingEvents: [BoardEvent] = []

    /// A transport for one board.
    ///
    /// - Parameters:
    ///   - manager: the shared manager (started or not).
    ///   - family: the board family.
    ///   - match: which board (``BoardMatch/any`` takes the first of the family).
    ///   - adapter: the adapter to use (`hci0`), or `nil` for any.
    ///   - policy: the reconnect schedule.
    ///   - options: adapter options (Pegasus developer key; the advertised name is filled in).
    ///   - settings: timeouts and retries.
    ///   - label: prefixes log lines (`[label] …`); defaults to the family and match.
    /// - Throws: ``AdapterFactoryError`` for invalid `options` (checked now, not at connect).
    public init(
        manager: BlueZManager, family: BoardFamily, match: BoardMatch = .any, adapter: String? = nil,
        policy: BoardReconnectPolicy = BoardReconnectPolicy(), options: AdapterOptions = AdapterOptions(),
        settings: BlueZTransportSettings = BlueZTransportSettings(), label: String? = nil
    ) throws(AdapterFactoryError) {
        self.manager = manager
        self.family = family
        self.match = match
        self.adapterName = adapter
        self.policy = policy
        self.adapterOptions = options
        self.settings = settings
        self.logger = manager.logger.prefixed("[\(label ?? "\(family.rawValue) \(match)")] ")
        self.templateAdapter = try AdapterFactory.makeAdapter(for: family, options: options)
        (events, continuation) = AsyncStream.makeStream(of: BoardEvent.self, bufferingPolicy: .bufferingNewest(4096))
        waiter = BlueZConditionWaiter(scheduler: manager.scheduler)
        status = BoardLinkStatus(state: .idle, maxAttempts: policy.maxAttempts)
        manager.register(self)
    }

    isolated deinit {
        task?.cancel()
        if let link { teardown(link, disconnectDevice: link.connectIssued) }
        manager.releaseClaims(by: self)
        manager.unregister(self)
        continuation.finish()
    }

    /// Delivers events to `handler` instead of ``events`` (see ``BoardKit/BoardEventDelivering``).
    public func deliverEvents(to handler: (@MainActor (BoardEvent) -> Void)?) {
        eventHandler = handler
    }

    /// Reads the notifications waiting in the link's `AcquireNotify` sockets (see
    /// ``BoardKit/BoardInputTaking``). Notifications that come as `PropertiesChanged` signals
    /// (BlueZ refused `AcquireNotify`) arrive through the bus connection, which every board
    /// shares, and wait for its turn.
    public func takeWaitingInput() {
        guard let link, !link.isTornDown else { return }
        for socket in link.notifySockets.values { socket.readWaiting(limit: Self.waitingDatagramLimit) }
    }

    /// At most this many datagrams per socket are taken in by ``takeWaitingInput()``: a
    /// minute of a board streaming ten frames a second.
    static let waitingDatagramLimit = 600

    /// What the board can sense and do (the current link's adapter, else the family's).
    public var capabilities: BoardCapabilities {
        link?.adapter?.capabilities ?? templateAdapter.capabilities
    }

    /// The BlueZ object path of the current link's device, if any.
    public var linkedDevicePath: String? {
        link?.devicePath
    }

    /// Whether the current link's paced writer has nothing queued or in flight (`true`
    /// without a link).
    public var isWriterIdle: Bool {
        link?.writer?.isIdle ?? true
    }

    // MARK: BoardTransport

    /// Scans (claims discovery on the adapter) and lists boards of this kind in ``discovered``.
    public func startScan() {
        guard manualScan == nil else { return }
        manualScan = manager.startDiscovery(adapter: adapterName)
        if activity == .idle || activity == .disconnected { activity = .scanning }
        refreshDiscovered()
        updateState()
    }

    /// Stops the scan started by ``startScan()``.
    public func stopScan() {
        manualScan?.stop()
        manualScan = nil
        if activity == .scanning && task == nil { activity = .idle }
        updateState()
    }

    /// Connects to `device` (one of ``discovered``; its token is the BlueZ object path). A
    /// failure leaves the state ``BoardTransportState/disconnected`` with ``lastError`` set.
    public func connect(_ device: DiscoveredBoardDevice) {
        guard manager.device(at: device.token) != nil else {
            fail("unknown device \(device.name) (\(device.token))")
            return
        }
        autoConnect = false
        manager.releaseClaims(by: self)
        restart(.connecting) { transport, id in
            await transport.runManualConnect(devicePath: device.token, id: id)
        }
    }

    /// Connects automatically: scans until the board described by ``match`` appears (on
    /// ``adapterName`` or any adapter), then connects; a failed first connect is retried after
    /// ``BlueZTransportSettings/initialRetryDelay``. Does nothing while a link is up or being
    /// set up. Call again after the reconnect policy gave up, or after ``disconnect()``.
    public func start() {
        autoConnect = true
        if link != nil || reconnectAttempt != nil { return }
        manager.releaseClaims(by: self)
        restart(.scanning) { transport, id in
            await transport.runSeek(id: id)
        }
    }

    /// Closes the link (or stops connecting, reconnecting or seeking); no reconnect follows.
    /// Yields ``BoardEvent/disconnected(error:)`` with `nil` when a link was up.
    public func disconnect() {
        autoConnect = false
        cancelTask()
        seekScan?.stop()
        seekScan = nil
        reconnectAttempt = nil
        reconnectDelay = nil
        if let link {
            let wasUp = link.isUp
            teardown(link, disconnectDevice: link.connectIssued || link.armed)
            if wasUp { yield(.disconnected(error: nil)) }
            logger.info("disconnected on request")
        }
        connectedDeviceName = nil
        manager.releaseClaims(by: self)
        activity = manualScan == nil ? .disconnected : .scanning
        updateState()
    }

    /// ``disconnect()``, then waits until BlueZ answered the `Disconnect` (at most 5 s): for
    /// a clean shutdown, since BlueZ keeps a link up after its client exits.
    public func close() async {
        disconnect()
        await pendingDisconnect?.value
        pendingDisconnect = nil
    }

    /// Encodes `command` with the link's adapter and queues it on the paced writer; dropped
    /// (logged) without a link, skipped when the board does not support it.
    public func send(_ command: BoardCommand) {
        guard let link, link.isUp, link.adapter != nil, link.writer != nil else {
            logger.debug("not connected; \(command) dropped")
            return
        }
        if !sendIfSupported(command) { logger.debug("\(command) is not supported by this board; skipped") }
    }

    /// Encodes `command` once and queues it, or reads the auxiliary characteristic it asks
    /// for (``BoardKit/BoardCommandChecking``); `false` when the board cannot do it.
    public func sendIfSupported(_ command: BoardCommand) -> Bool {
        guard let link, link.isUp, let adapter = link.adapter, let writer = link.writer else { return false }
        guard let bytes = adapter.encode(command) else { return readAuxiliary(for: command, on: link) }
        writer.enqueue(bytes)
        return true
    }

    /// Whether the linked board's adapter encodes `command` (a query only: senders use
    /// ``sendIfSupported(_:)``, which encodes once).
    public func canSend(_ command: BoardCommand) -> Bool {
        guard let link else { return false }
        return link.adapter?.encode(command) != nil || canReadAuxiliary(for: command, on: link)
    }

    // MARK: State

    /// Publishes `activity` as ``BlueZManager/shownState(for:adapter:)`` shows it (the radio's
    /// state while the transport rests, `poweredOff` while a reconnect waits for power).
    func updateState() {
        let shown = manager.shownState(for: activity, adapter: adapterName)
        if state != shown { state = shown }
        publishStatus()
    }

    func publishStatus() {
        let current = BoardLinkStatus(
            state: state, reconnectAttempt: reconnectAttempt, maxAttempts: policy.maxAttempts,
            nextDelay: reconnectDelay, lastError: lastError, deviceName: connectedDeviceName ?? lastDeviceName,
            deviceAddress: link?.address ?? lastDeviceAddress,
            adapter: link?.adapterName ?? lastAdapterName)
        guard current != status else { return }
        status = current
        onStatusChange?(current)
    }

    func yield(_ event: BoardEvent) {
        if eventHandler != nil {
            // A delivery is scheduled exactly while events are pending.
            let isScheduled = !pendingEvents.isEmpty
            pendingEvents.append(event)
            guard !isScheduled else { return }
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated { self?.deliverPendingEvents() }
            }
            return
        }
        if case .dropped = continuation.yield(event) {
            logger.warning("event buffer full; the oldest event was dropped")
        }
    }

    /// Hands the events queued for the handler over, in order.
    private func deliverPendingEvents() {
        let batch = pendingEvents
        pendingEvents = []
        for (index, event) in batch.enumerated() {
            guard let eventHandler else {
                // The handler was removed meanwhile: the rest goes to the stream.
                for rest in batch[index...] { continuation.yield(rest) }
                return
            }
            eventHandler(event)
        }
    }

    /// Records an error without a link change.
    func fail(_ message: String) {
        lastError = message
        logger.warning(message)
        if link == nil && task == nil { activity = .disconnected }
        updateState()
    }

    // MARK: Tasks

    func cancelTask() {
        task?.cancel()
        task = nil
        taskID += 1
        waiter.failAll(.cancelled)
    }

    /// Cancels whatever runs, tears the current link down, and runs `body` as the new task.
    func restart(_ activity: BoardTransportState, _ body: @escaping @MainActor (BlueZBoardTransport, Int) async -> Void)
    {
        cancelTask()
        if let link { teardown(link, disconnectDevice: link.connectIssued || link.armed) }
        reconnectAttempt = nil
        reconnectDelay = nil
        self.activity = activity
        updateState()
        let id = taskID
        task = Task { [weak self] in
            guard let self else { return }
            await body(self, id)
            if self.taskID == id { self.task = nil }
        }
    }

    func isCurrent(_ id: Int) -> Bool {
        id == taskID && !Task.isCancelled
    }
}
