public import BoardKit
import BoardLink
import DBus
import Dispatch
public import FoundationEssentials
public import Logging
import SystemCalls

/// A ``BoardTransport`` for a Bluetooth Classic board (RFCOMM, Serial Port Profile) through
/// BlueZ, generic over the bytes carried: the board's ``BoardAdapter`` comes from
/// `makeAdapter` (the DGT adapter for a DGT Bluetooth e-Board).
///
/// Link set-up: the shared ``BlueZSerialProfile`` registered (`ProfileManager1`) → the paired
/// device with ``address`` in BlueZ's objects → `Device1.ConnectProfile(SPP)` → BlueZ calls
/// `Profile1.NewConnection(device, fd, …)` → the socket becomes the board's
/// ``BoardLink/StreamLink`` (read on the main loop, written through its paced writer) →
/// ``BoardTransportState/connected`` and ``BoardEvent/connected`` →
/// `handshakeCommands(isReconnect:)` through the writer.
///
/// Data: each read → `adapter.feed(bytes:)` → events → `takePendingResponses()` onto the same
/// writer (the stream link does both). The link drops at end of file or a socket error (the
/// board went away), `RequestDisconnection` or `Release` from BlueZ:
/// ``BoardEvent/disconnected(error:)``, then the ``BoardReconnectPolicy`` through the link
/// runtime's ``BoardLink/ReconnectRunner`` (each attempt `ConnectProfile` again, with
/// `handshakeCommands(isReconnect: true)`); when it gives up the state is
/// ``BoardTransportState/disconnected`` until ``start()``. A failed first connect is retried
/// every ``initialRetryDelay`` seconds by the same runner. ``disconnect()`` never reconnects.
@MainActor
public final class BlueZRFCOMMTransport: BoardEventDelivering, BoardCommandChecking, BoardInputTaking {
    /// The manager whose connection and objects this transport uses.
    public let manager: BlueZManager
    /// The shared Profile1 object.
    public let profile: BlueZSerialProfile
    /// The board's Bluetooth address (`AA:BB:CC:DD:EE:FF`, upper case).
    public let address: String
    /// The adapter to use (`hci0`), or `nil` for any that has the device.
    public let adapterName: String?
    /// The reconnect schedule after an unexpected drop.
    public let policy: BoardReconnectPolicy
    /// How long `ConnectProfile` (and the `NewConnection` that comes with it) may take.
    public let connectTimeout: TimeInterval
    /// The pause between failed first connects.
    public let initialRetryDelay: TimeInterval
    /// Where log lines go.
    public let logger: Logger

    /// The link state.
    public private(set) var state: BoardTransportState = .idle
    /// Always empty: Classic boards are paired beforehand, not scanned for.
    public let discovered: [DiscoveredBoardDevice] = []
    /// The connected board's name, if any.
    public private(set) var connectedDeviceName: String?
    /// The last error, readable.
    public private(set) var lastError: String?
    /// Decoded events and link events, in order (the newest 4096 kept if nobody reads).
    public let events: AsyncStream<BoardEvent>
    /// Completed links so far (the first and every reconnect).
    public private(set) var linkCount = 0
    /// While a reconnect waits: how long that wait is (seconds); else `nil`.
    public var nextDelay: TimeInterval? {
        if case .reconnecting = state { runner.nextDelay } else { nil }
    }
    /// Called whenever ``state`` changes (after ``lastError`` and ``nextDelay`` are set).
    public var onStateChange: (@MainActor (BoardTransportState) -> Void)?

    private let makeAdapter: @MainActor () -> any BoardAdapter
    private let continuation: AsyncStream<BoardEvent>.Continuation
    private var eventHandler: (@MainActor (BoardEvent) -> Void)?
    private var link: StreamLink?

    /// Bytes the current link has read from the board (0 without a link).
    public var linkBytesReceived: Int { link?.bytesReceived ?? 0 }
    /// The BlueZ device of the link that is up.
    private var linkDevicePath: String?
    private lazy var runner = ReconnectRunner(scheduler: manager.scheduler)
    private var autoConnect = false
    private var arrivedDescriptor: Int32?
    private var expecting: String?
    private var pendingDisconnect: Task<Void, Never>?

    /// A transport for the board at `address`.
    public init(
        manager: BlueZManager, profile: BlueZSerialProfile, address: String, adapter: String? = nil,
        policy: BoardReconnectPolicy = BoardReconnectPolicy(), connectTimeout: TimeInterval = 30,
        initialRetryDelay: TimeInterval = 10, label: String? = nil,
        makeAdapter: @escaping @MainActor () -> any BoardAdapter
    ) {
        self.manager = manager
        self.profile = profile
        self.address = String(address.uppercased().map { $0 == "-" || $0 == "_" ? ":" : $0 })
        self.adapterName = adapter
        self.policy = policy
        self.connectTimeout = connectTimeout
        self.initialRetryDelay = initialRetryDelay
        self.makeAdapter = makeAdapter
        logger = manager.logger.prefixed("[\(label ?? "rfcomm \(address)")] ")
        (events, continuation) = AsyncStream.makeStream(of: BoardEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    isolated deinit {
        link?.close()
        continuation.finish()
    }

    /// Delivers events to `handler` instead of ``events``.
    public func deliverEvents(to handler: (@MainActor (BoardEvent) -> Void)?) {
        eventHandler = handler
    }

    /// Reads the bytes waiting on the RFCOMM socket (see ``BoardKit/BoardInputTaking``).
    public func takeWaitingInput() {
        link?.readAvailable()
    }

    /// The current link's adapter's capabilities, else a fresh adapter's.
    public var capabilities: BoardCapabilities {
        link?.adapter.capabilities ?? makeAdapter().capabilities
    }

    /// Whether the link's writer has nothing queued (`true` without a link).
    public var isWriterIdle: Bool { link?.writer?.isIdle ?? true }

    // MARK: BoardTransport

    /// Does nothing: Classic boards are paired beforehand (`bluetoothctl pair`).
    public func startScan() {}
    /// Does nothing.
    public func stopScan() {}

    /// Connects to `device` (its token or name is ignored: the transport is for ``address``).
    public func connect(_ device: DiscoveredBoardDevice) {
        start()
    }

    /// Connects (retrying a failed first connect every ``initialRetryDelay`` seconds) and
    /// keeps the link up per ``policy``. Does nothing while a link is up or being set up.
    public func start() {
        autoConnect = true
        guard !runner.isRunning, link == nil else { return }
        setState(.connecting)
        runner.run(
            .retrying(every: initialRetryDelay),
            ReconnectRunner.Steps(
                waiting: { _, _ in },
                connect: { [weak self] _ in
                    // After an earlier link the board keeps its session: the reconnect handshake.
                    guard let self else { return .cancelled }
                    return await self.attempt(isReconnect: self.linkCount > 0)
                },
                failed: { [weak self] _, reason in
                    guard let self else { return }
                    self.lastError = reason
                    self.logger.warning("connect failed: \(reason)")
                    self.setState(.disconnected)
                },
                gaveUp: { _ in }))
    }

    /// Closes the link (`DisconnectProfile`, best effort) or stops connecting; no reconnect.
    public func disconnect() {
        autoConnect = false
        runner.cancel()
        if link != nil, let devicePath = linkDevicePath {
            teardown()
            continuationYield(.disconnected(error: nil))
            pendingDisconnect = Task { [manager] in
                _ = try? await manager.call(
                    path: devicePath, interface: BlueZNames.deviceInterface, member: "DisconnectProfile",
                    body: [.string(BlueZSerialProfile.serialPortUUID)])
            }
        }
        setState(.disconnected)
    }

    /// ``disconnect()``, then waits until BlueZ answered the `DisconnectProfile` (for a clean
    /// shutdown: BlueZ keeps a link up after its client exits).
    public func close() async {
        disconnect()
        await pendingDisconnect?.value
        pendingDisconnect = nil
    }

    /// Ends the link as a drop does (``BoardEvent/disconnected(error:)`` with `reason`), then
    /// reconnects per the policy: for a board that stopped answering.
    public func recycleLink(reason: String) {
        linkDown(reason)
    }

    /// Encodes `command` and queues it on the paced writer; dropped without a link.
    public func send(_ command: BoardCommand) {
        guard link?.isOpen == true else {
            logger.debug("not connected; \(command) dropped")
            return
        }
        if !sendIfSupported(command) { logger.debug("\(command) is not supported by this board; skipped") }
    }

    /// Encodes `command` once and queues it; `false` (nothing sent) without a link or when
    /// the adapter encodes nothing for it.
    public func sendIfSupported(_ command: BoardCommand) -> Bool {
        link?.send(command) ?? false
    }

    // MARK: Connecting

    /// One attempt to set the link up, as the runner sees it.
    private func attempt(isReconnect: Bool) async -> LinkAttemptOutcome {
        do throws(BlueZLinkError) {
            try await establish(isReconnect: isReconnect)
            return .connected
        } catch {
            if error == .cancelled || Task.isCancelled { return .cancelled }
            return .failed(error.description)
        }
    }

    private func establish(isReconnect: Bool) async throws(BlueZLinkError) {
        guard await manager.waitUntilReady(timeout: connectTimeout) else { throw .bluezUnavailable }
        if Task.isCancelled { throw .cancelled }
        guard
            let device = manager.model.devices.values.sorted(by: { $0.path < $1.path }).first(where: {
                $0.address == address && (adapterName == nil || $0.adapterName == adapterName)
            })
        else { throw .deviceNotFound("\(address) is not known to BlueZ (pair it first)") }
        do throws(DBusError) {
            try await profile.register()
        } catch {
            throw .connectFailed(address: address, error: error)
        }
        expecting = device.path
        arrivedDescriptor = nil
        profile.attach(
            devicePath: device.path,
            BlueZSerialProfile.Handler(
                connection: { [weak self] descriptor in self?.accept(descriptor, from: device.path) ?? false },
                disconnect: { [weak self] reason in self?.linkDown(reason) }))
        defer { expecting = nil }
        logger.info("ConnectProfile(SPP) to \(device.name ?? "?") \(address)")
        do throws(DBusError) {
            _ = try await manager.call(
                path: device.path, interface: BlueZNames.deviceInterface, member: "ConnectProfile",
                body: [.string(BlueZSerialProfile.serialPortUUID)], timeout: connectTimeout)
        } catch {
            closeArrived()
            if Task.isCancelled { throw .cancelled }
            throw .connectFailed(address: address, error: error)
        }
        // BlueZ calls NewConnection before it answers ConnectProfile; allow for reordering.
        let deadline = manager.scheduler.now + connectTimeout
        while arrivedDescriptor == nil {
            guard manager.scheduler.now < deadline else { throw .timeout("NewConnection from BlueZ") }
            guard await manager.scheduler.sleep(0.02) else {
                closeArrived()
                throw .cancelled
            }
        }
        guard let descriptor = arrivedDescriptor else { throw .cancelled }
        arrivedDescriptor = nil
        if Task.isCancelled {
            FileDescriptor(rawValue: descriptor).close()
            throw .cancelled
        }
        goUp(descriptor: descriptor, device: device, isReconnect: isReconnect)
    }

    private func accept(_ descriptor: Int32, from devicePath: String) -> Bool {
        guard expecting == devicePath, arrivedDescriptor == nil else { return false }
        arrivedDescriptor = descriptor
        return true
    }

    private func closeArrived() {
        if let descriptor = arrivedDescriptor { FileDescriptor(rawValue: descriptor).close() }
        arrivedDescriptor = nil
    }

    private func goUp(descriptor: Int32, device: BlueZDeviceInfo, isReconnect: Bool) {
        let link = StreamLink(
            stream: SocketByteStream(descriptor: descriptor, endOfFile: "the board closed the RFCOMM link"),
            adapter: makeAdapter(), scheduler: manager.scheduler, logger: logger,
            onEvents: { [weak self] events in for event in events { self?.continuationYield(event) } },
            onClose: { [weak self] reason in self?.linkDown(reason) })
        self.link = link
        linkDevicePath = device.path
        linkCount += 1
        lastError = nil
        connectedDeviceName = device.name ?? device.address
        setState(.connected)
        logger.info("RFCOMM link up (\(isReconnect ? "reconnect" : "first connect"))")
        continuationYield(.connected)
        link.runHandshake(isReconnect: isReconnect)
    }

    /// The link went down unexpectedly: report, then reconnect per policy.
    private func linkDown(_ reason: String) {
        guard link != nil else { return }
        teardown()
        lastError = reason
        logger.warning("RFCOMM link down: \(reason)")
        continuationYield(.disconnected(error: reason))
        guard autoConnect else { return setState(.disconnected) }
        runner.run(
            policy,
            ReconnectRunner.Steps(
                waiting: { [weak self] attempt, _ in self?.setState(.reconnecting(attempt: attempt)) },
                connect: { [weak self] _ in await self?.attempt(isReconnect: true) ?? .cancelled },
                failed: { [weak self] attempt, reason in
                    guard let self else { return }
                    self.lastError = reason
                    self.logger.warning("reconnect \(attempt)/\(self.policy.maxAttempts) failed: \(reason)")
                },
                gaveUp: { [weak self] _ in self?.setState(.disconnected) }))
    }

    private func teardown() {
        if let linkDevicePath { profile.detach(devicePath: linkDevicePath) }
        link?.close()
        link = nil
        linkDevicePath = nil
        connectedDeviceName = nil
    }

    private func setState(_ new: BoardTransportState) {
        guard state != new else { return }
        state = new
        onStateChange?(new)
    }

    private func continuationYield(_ event: BoardEvent) {
        if let eventHandler {
            eventHandler(event)
            return
        }
        if case .dropped = continuation.yield(event) {
            logger.warning("event buffer full; the oldest event was dropped")
        }
    }
}
