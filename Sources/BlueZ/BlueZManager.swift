import Adapters
public import BoardKit
public import BoardLink
public import DBus
public import FoundationEssentials
public import Logging

/// Where the ``BlueZManager`` stands with the bus and BlueZ.
public enum BlueZManagerState: Hashable, Sendable {
    /// Not started, or stopped.
    case stopped
    /// Connecting to the D-Bus system bus.
    case connecting
    /// The bus cannot be reached (or was lost); retrying with back-off. Says why.
    case busUnavailable(String)
    /// On the bus; `org.bluez` has no owner (bluetoothd not running).
    case waitingForBlueZ
    /// Reading BlueZ's objects (`GetManagedObjects`).
    case loading
    /// The bus policy refused access to BlueZ (retrying with back-off). Says why.
    case unauthorized(String)
    /// The object model is current; boards can be scanned for and connected.
    case ready
}

/// A board seen in a scan, as the manager lists it (for the CLI's `scan` and for logs).
public struct BlueZDiscoveredBoard: Equatable, Sendable {
    /// The record a ``BoardTransport`` lists.
    public var device: DiscoveredBoardDevice
    /// The family detected from its name and services, or `nil`.
    public var family: BoardFamily?
    /// Its address (`AA:BB:…`).
    public var address: String
    /// The adapter that sees it (`hci0`).
    public var adapter: String

    /// A discovered-board record.
    public init(device: DiscoveredBoardDevice, family: BoardFamily?, address: String, adapter: String) {
        self.device = device
        self.family = family
        self.address = address
        self.adapter = adapter
    }
}

/// What the manager tells the transports.
@MainActor
protocol BlueZManagerClient: AnyObject {
    /// The model changed (only while the manager is ``BlueZManagerState/ready``).
    func manager(_ manager: BlueZManager, didApply changes: [BlueZModelChange])
    /// BlueZ (or the whole bus) went away: every link is down; the model is empty.
    func manager(_ manager: BlueZManager, lostBlueZ reason: String)
    /// The manager's state changed.
    func managerStateDidChange(_ manager: BlueZManager)
    /// A notification (a `Value` change) of a characteristic this client routed to itself
    /// with ``BlueZManager/route(_:to:)``. Delivered to that client only, not as a change.
    func manager(_ manager: BlueZManager, didReceiveValue bytes: Data, from path: String)
}

/// Owns the D-Bus connection to BlueZ and shares it among all board transports.
///
/// - Adds the match rules (InterfacesAdded/Removed, PropertiesChanged from `org.bluez`,
///   NameOwnerChanged of `org.bluez`) before the initial `GetManagedObjects`, then keeps a
///   ``BlueZObjectModel`` current from signals.
/// - Survives a restart of `org.bluez` (drops the model, tells every transport its link is
///   gone, re-reads the tree when the name returns) and a lost bus (reconnects with back-off).
/// - Runs LE discovery (`SetDiscoveryFilter` Transport=le, then `StartDiscovery`) per adapter,
///   reference-counted across transports through ``BlueZDiscoverySession``s.
/// - Serializes connects: one `Device1.Connect` in flight per adapter.
///
/// Everything runs on the main actor; nothing blocks. Call ``start()`` once.
@MainActor
public final class BlueZManager {
    /// The settings.
    public let settings: BlueZManagerSettings
    /// The bus address, or `nil` for the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured).
    public let busAddress: String?
    /// Where log lines go.
    public let logger: Logger
    /// Timers and the clock.
    public let scheduler: any LinkScheduler
    /// Where the manager stands.
    public internal(set) var state: BlueZManagerState = .stopped {
        didSet {
            guard state != oldValue else { return }
            onStateChange?(state)
            for client in liveClients { client.managerStateDidChange(self) }
        }
    }
    /// Called on every change of ``state``.
    public var onStateChange: (@MainActor (BlueZManagerState) -> Void)?
    /// BlueZ's objects as last seen (empty unless ``state`` is ``BlueZManagerState/ready``).
    public internal(set) var model = BlueZObjectModel()

    var connection: DBusConnection?
    var subscriptions: [DBusSubscription] = []
    var bluezOwner: String?
    var loadGeneration = 0
    var loadFailures = 0
    var busTask: Task<Void, Never>?
    var isStopped = true
    var clients: [WeakClient] = []
    var discoveryRequests: [String: Int] = [:]
    var discoveryActive: Set<String> = []
    var discoveryPending: Set<String> = []
    var discoveryRetry: LinkTimer?
    var seenDevices: Set<String> = []
    var connectSlots: [String: BlueZConnectSlot] = [:]
    var linkLoad: [String: Int] = [:]
    var claims: [String: ObjectIdentifier] = [:]
    var valueRoutes: [String: WeakClient] = [:]

    /// A manager for the bus at `busAddress` (`nil`: the system bus, honouring
    /// `DBUS_SYSTEM_BUS_ADDRESS`). Nothing happens until ``start()``.
    public init(
        busAddress: String? = nil, settings: BlueZManagerSettings = BlueZManagerSettings(),
        logger: Logger = .silent, scheduler: (any LinkScheduler)? = nil
    ) {
        self.busAddress = busAddress
        self.settings = settings
        model = BlueZObjectModel(onlyAdapters: settings.adapters.map(Set.init))
        self.logger = logger
        self.scheduler = scheduler ?? MainLoopScheduler()
    }

    /// Adapters by short name order.
    public var adapters: [BlueZAdapterInfo] {
        model.adapters.values.sorted { $0.name < $1.name }
    }

    /// Boards seen by the current (or last) discovery on any adapter, strongest first.
    public var discoveredBoards: [BlueZDiscoveredBoard] {
        seenDevices.compactMap { model.devices[$0] }.map(Self.board).sorted(by: Self.strongerFirst)
    }

    /// Waits until the manager is ``BlueZManagerState/ready`` (returns `true`) or `timeout`
    /// seconds pass (returns `false`).
    public func waitUntilReady(timeout: TimeInterval) async -> Bool {
        let deadline = scheduler.now + timeout
        while state != .ready {
            guard scheduler.now < deadline else { return false }
            guard await scheduler.sleep(0.02) else { return false }
        }
        return true
    }

    // MARK: Clients

    struct WeakClient {
        weak var client: (any BlueZManagerClient)?
    }

    var liveClients: [any BlueZManagerClient] {
        clients.compactMap(\.client)
    }

    func register(_ client: any BlueZManagerClient) {
        clients.removeAll { $0.client == nil || $0.client === client }
        clients.append(WeakClient(client: client))
    }

    func unregister(_ client: any BlueZManagerClient) {
        clients.removeAll { $0.client == nil || $0.client === client }
        unroute(of: client)
    }

    /// Sends the notifications of the characteristics at `paths` to `client` alone (see
    /// ``BlueZManagerClient/manager(_:didReceiveValue:from:)``): with dozens of boards, a
    /// notification then costs one client's work instead of every client's.
    func route(_ paths: some Sequence<String>, to client: any BlueZManagerClient) {
        for path in paths { valueRoutes[path] = WeakClient(client: client) }
    }

    /// Ends every route of `client`.
    func unroute(of client: any BlueZManagerClient) {
        valueRoutes = valueRoutes.filter { $0.value.client != nil && $0.value.client !== client }
    }

    /// Ends the routes of `paths` that lead to `client`.
    func unroute(_ paths: some Sequence<String>, of client: any BlueZManagerClient) {
        for path in paths where valueRoutes[path].map({ $0.client == nil || $0.client === client }) == true {
            valueRoutes[path] = nil
        }
    }

    // MARK: Model access for transports

    /// The device at `path`, if BlueZ has it.
    public func device(at path: String) -> BlueZDeviceInfo? {
        model.devices[path]
    }

    /// The radio state a transport should show while it is not busy with a link:
    /// `.unauthorized`, `.poweredOff`, or `nil` when some (or the named) adapter is usable or
    /// the manager does not know yet.
    public func radioState(forAdapter name: String?) -> BoardTransportState? {
        switch state {
        case .unauthorized: return .unauthorized
        case .busUnavailable, .waitingForBlueZ: return .poweredOff
        case .stopped, .connecting, .loading: return nil
        case .ready:
            let candidates = model.adapters.values.filter { name == nil || $0.name == name }
            return candidates.contains(where: \.powered) ? nil : .poweredOff
        }
    }

    /// The number of links (set up or being set up) on the adapter at `adapterPath`.
    public func linkCount(onAdapter adapterPath: String) -> Int {
        linkLoad[adapterPath] ?? 0
    }

    func noteLinkStarted(onAdapter adapterPath: String) {
        linkLoad[adapterPath, default: 0] += 1
    }

    func noteLinkEnded(onAdapter adapterPath: String) {
        let count = (linkLoad[adapterPath] ?? 0) - 1
        linkLoad[adapterPath] = count > 0 ? count : nil
    }

    /// Marks the board at `address` as taken by `owner` (other transports skip it).
    func claim(address: String, by owner: AnyObject) {
        claims[address.uppercased()] = ObjectIdentifier(owner)
    }

    /// Gives back every board `owner` claimed.
    func releaseClaims(by owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        claims = claims.filter { $0.value != id }
    }

    /// Whether a transport other than `owner` has the board at `address`.
    func isClaimed(address: String, byOtherThan owner: AnyObject) -> Bool {
        guard let holder = claims[address.uppercased()] else { return false }
        return holder != ObjectIdentifier(owner)
    }

    /// Whether `path` was seen by the current or last discovery.
    func wasSeen(_ path: String) -> Bool {
        seenDevices.contains(path)
    }

    static func board(_ device: BlueZDeviceInfo) -> BlueZDiscoveredBoard {
        let name = device.advertisedName ?? device.address
        let record = DiscoveredBoardDevice(
            id: BlueZDeviceID.uuid(adapter: device.adapterName, address: device.address), name: name,
            rssi: device.rssi ?? -127, token: device.path)
        return BlueZDiscoveredBoard(
            device: record,
            family: AdapterFactory.family(advertisedName: device.advertisedName, serviceUUIDs: device.uuids),
            address: device.address, adapter: device.adapterName)
    }

    static func strongerFirst(_ lhs: BlueZDiscoveredBoard, _ rhs: BlueZDiscoveredBoard) -> Bool {
        lhs.device.rssi != rhs.device.rssi ? lhs.device.rssi > rhs.device.rssi : lhs.device.token < rhs.device.token
    }

    // MARK: Calls

    /// Calls `member` of `interface` on BlueZ's object at `path`.
    ///
    /// - Throws: BlueZ's error, ``DBusError/Name/noReply`` after `timeout` (default
    ///   ``BlueZManagerSettings/callTimeout``), ``DBusError/Name/disconnected`` without a bus.
    public func call(
        path: String, interface: String, member: String, body: [DBusValue] = [], timeout: TimeInterval? = nil
    ) async throws(DBusError) -> [DBusValue] {
        guard let connection, connection.isConnected else {
            throw DBusError(name: DBusError.Name.disconnected, message: "Not connected to the D-Bus bus")
        }
        let seconds = max(0.001, timeout ?? settings.callTimeout)
        return try await connection.call(
            destination: BlueZNames.service, path: path, interface: interface, member: member, body: body,
            timeout: .milliseconds(Int64(seconds * 1000)))
    }

    /// ``call(path:interface:member:body:timeout:)`` without a task: `completion` gets the
    /// reply body or the error on the main actor (exactly once; at once when not connected).
    public func call(
        path: String, interface: String, member: String, body: [DBusValue] = [], timeout: TimeInterval? = nil,
        completion: @escaping @MainActor (Result<[DBusValue], DBusError>) -> Void
    ) {
        guard let connection, connection.isConnected else {
            return completion(
                .failure(DBusError(name: DBusError.Name.disconnected, message: "Not connected to the D-Bus bus")))
        }
        let seconds = max(0.001, timeout ?? settings.callTimeout)
        do throws(DBusError) {
            try connection.call(
                destination: BlueZNames.service, path: path, interface: interface, member: member, body: body,
                timeout: .milliseconds(Int64(seconds * 1000)), completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    // MARK: Connect slots

    /// Waits until no other connect is in flight on the adapter at `adapterPath`, then takes
    /// the slot. Returns `false` (without the slot) when the calling task is cancelled.
    func acquireConnectSlot(adapterPath: String) async -> Bool {
        let slot = connectSlots[adapterPath] ?? BlueZConnectSlot()
        connectSlots[adapterPath] = slot
        return await slot.acquire()
    }

    /// Gives the slot back (the next waiter, if any, gets it).
    func releaseConnectSlot(adapterPath: String) {
        connectSlots[adapterPath]?.release()
    }
}

/// A one-holder async lock in FIFO order, on the main actor.
@MainActor
final class BlueZConnectSlot {
    private var isHeld = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 0

    /// Whether a holder has the slot.
    var held: Bool { isHeld }

    func acquire() async -> Bool {
        if Task.isCancelled { return false }
        if !isHeld {
            isHeld = true
            return true
        }
        nextID += 1
        let id = nextID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                waiters.append((id, continuation))
            }
        } onCancel: {
            Task { @MainActor in self.cancelWaiter(id) }
        }
    }

    func release() {
        guard isHeld else { return }
        if waiters.isEmpty {
            isHeld = false
        } else {
            let next = waiters.removeFirst()
            next.continuation.resume(returning: true)
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters.remove(at: index)
        waiter.continuation.resume(returning: false)
    }
}
