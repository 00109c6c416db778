import BoardKit
import DBus

/// The device object of one board on one adapter: `org.bluez.Device1` at
/// `/org/bluez/hciN/dev_AA_BB_…` (§3), its link state machine and its GATT objects.
@MainActor
final class FakeDevice {
    static let interface = "org.bluez.Device1"

    /// Where the link stands.
    enum LinkState: Equatable {
        case disconnected
        case connecting
        case connected
        case disconnecting
    }

    unowned let sim: FakeBlueZ
    unowned let adapter: FakeAdapter
    let board: SimulatedBoard
    let path: String
    /// Temporary devices expire after the temporary timeout without advertisements;
    /// `Connect` (or being known from before) makes a device permanent.
    var isTemporary = true
    var temporaryTask: Task<Void, Never>?
    var state: LinkState = .disconnected
    var pendingConnect: DBusMethodInvocation?
    /// A `Pair` waiting for its link or for pairing to finish.
    var pendingPair: DBusMethodInvocation?
    /// How the queued or running connect attempt ends.
    var connectOutcome: ConnectOutcome = .success
    /// The attempt waits for a board that is not in range (it succeeds if it comes).
    var waitingForBoard = false
    /// The seconds the running connect attempt holds the radio (``RadioTime/connect``).
    var drawnConnect = 0.0
    /// When the running connect attempt began (``MonotonicClock`` seconds).
    var connectStarted = 0.0
    var connectTask: Task<Void, Never>?
    var resolveTask: Task<Void, Never>?
    var disconnectTask: Task<Void, Never>?
    /// Run when the link is down (pending `Disconnect` replies, `RemoveDevice`).
    var afterDisconnect: [@MainActor () -> Void] = []
    var servicesResolved = false
    /// The GATT cache is stale: re-export at the next resolution.
    var servicesChanged = false
    /// The exported GATT objects: services, characteristics, descriptors.
    var gattServices: [String] = []
    var characteristics: [FakeCharacteristic] = []
    /// Whether an advertisement was seen in the current discovery (RSSI is set).
    var seenInDiscovery = false
    var lastRSSI: Int16?
    var lastManufacturerData: [(UInt16, [UInt8])] = []
    var lastServiceData: [(String, [UInt8])] = []
    var isPaired = false
    var isRemoved = false

    init(sim: FakeBlueZ, adapter: FakeAdapter, board: SimulatedBoard, advertisement: Advertisement?) {
        self.sim = sim
        self.adapter = adapter
        self.board = board
        path = adapter.path + "/" + BluetoothAddress.pathElement(board.address)
        board.device = self
        export(advertisement)
    }

    /// Whether a link is up (connected, or waiting to disconnect).
    var hasLink: Bool { state == .connected || state == .disconnecting }

    func set(_ property: String, _ value: DBusValue?, flush: Bool = false) {
        guard !isRemoved else { return }
        sim.tree.setProperty(property, interface: Self.interface, path: path, to: value, flush: flush)
    }

    /// The advertised UUIDs plus, once resolved, the GATT service UUIDs.
    var uuids: [String] {
        var result = board.configuration.advertisedUUIDs
        if !gattServices.isEmpty {
            for uuid in board.layout.serviceUUIDs where !result.contains(uuid) { result.append(uuid) }
        }
        return result
    }

    /// Exports `Device1` with the first advertisement's data (one `InterfacesAdded`).
    private func export(_ advertisement: Advertisement?) {
        var properties: [(String, DBusValue)] = [
            ("Address", .string(board.address)), ("AddressType", .string(board.configuration.addressType)),
            ("Name", .string(board.name)), ("Alias", .string(board.name)), ("Paired", .bool(false)),
        ]
        if sim.version.atLeast(65) { properties.append(("Bonded", .bool(false))) }
        properties += [
            ("Trusted", .bool(false)), ("Blocked", .bool(false)), ("LegacyPairing", .bool(false)),
        ]
        if sim.version.atLeast(83) { properties.append(("CablePairing", .bool(false))) }
        if let advertisement {
            properties.append(("RSSI", .int16(advertisement.rssi)))
            lastRSSI = advertisement.rssi
            seenInDiscovery = true
        }
        properties += [("Connected", .bool(false)), ("UUIDs", .strings(uuids)), ("Adapter", .objectPath(adapter.path))]
        if let advertisement {
            if !advertisement.manufacturerData.isEmpty {
                properties.append(("ManufacturerData", Self.manufacturerValue(advertisement.manufacturerData)))
            }
            if !advertisement.serviceData.isEmpty {
                properties.append(("ServiceData", Self.serviceDataValue(advertisement.serviceData)))
            }
            if let txPower = advertisement.txPower { properties.append(("TxPower", .int16(txPower))) }
            lastManufacturerData = advertisement.manufacturerData
            lastServiceData = advertisement.serviceData
        }
        properties.append(("ServicesResolved", .bool(false)))
        // Experimental (hidden without --experimental) until 5.78.
        if advertisement != nil && sim.version.atLeast(78) { properties.append(("AdvertisingFlags", .bytes([0x06]))) }
        var signals: [DBusSignalDescription] = []
        if sim.version.atLeast(83) {
            signals.append(
                DBusSignalDescription("Disconnected", [DBusArgument("reason", "s"), DBusArgument("message", "s")]))
        }
        let interface = DBusInterface(
            name: Self.interface,
            methods: [
                DBusMethodDescription("Connect"), DBusMethodDescription("Disconnect"),
                DBusMethodDescription("ConnectProfile", in: [DBusArgument("UUID", "s")]),
                DBusMethodDescription("DisconnectProfile", in: [DBusArgument("UUID", "s")]),
                DBusMethodDescription("Pair"), DBusMethodDescription("CancelPairing"),
            ],
            signals: signals, properties: properties, writableProperties: ["Alias", "Trusted", "Blocked"],
            methodHandler: { [weak self] invocation in self?.handle(invocation) },
            propertySetHandler: { [weak self] _, name, value throws(DBusError) in
                if name == "Alias", value.stringValue == "" {
                    schedule(after: 0) { [weak self] in self?.set("Alias", .string(self?.board.name ?? "")) }
                }
            })
        do {
            try sim.tree.addInterface(interface, at: path)
        } catch {
            sim.log("cannot export \(path): \(error)")
        }
    }

    private func handle(_ invocation: DBusMethodInvocation) {
        switch invocation.member {
        case "Connect": connect(invocation)
        case "Disconnect": disconnect(invocation)
        case "Pair": pair(invocation)
        case "CancelPairing":
            guard pendingPair != nil else { return invocation.fail(BlueZErrors.doesNotExist) }
            failPairing(BlueZErrors.authenticationCanceled)
            invocation.reply()
        // An LE-only board has no BR/EDR service to connect (FakeClassicDevice has the SPP flow).
        case "ConnectProfile": invocation.fail(ClassicErrors.profileUnavailable(sim.version))
        case "DisconnectProfile": invocation.fail(BlueZErrors.invalidArguments)
        default: invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    // MARK: Advertisements

    /// A later advertisement: RSSI signalled when it moved by `rssiThreshold` dBm or more
    /// (or from unset); manufacturer and service data when their bytes changed, or on every
    /// report with `duplicateData`.
    func report(_ advertisement: Advertisement, rssiThreshold: Int, duplicateData: Bool) {
        if let last = lastRSSI, seenInDiscovery {
            let moved = abs(Int(advertisement.rssi) - Int(last))
            if moved > 0 && moved >= rssiThreshold {
                lastRSSI = advertisement.rssi
                set("RSSI", .int16(advertisement.rssi))
            }
        } else {
            lastRSSI = advertisement.rssi
            set("RSSI", .int16(advertisement.rssi))
        }
        if !seenInDiscovery, let txPower = advertisement.txPower { set("TxPower", .int16(txPower)) }
        seenInDiscovery = true
        let manufacturerChanged =
            advertisement.manufacturerData.map(\.0) != lastManufacturerData.map(\.0)
            || advertisement.manufacturerData.map(\.1) != lastManufacturerData.map(\.1)
        if !advertisement.manufacturerData.isEmpty && (manufacturerChanged || duplicateData) {
            set("ManufacturerData", Self.manufacturerValue(advertisement.manufacturerData))
        }
        let serviceDataChanged =
            advertisement.serviceData.map(\.0) != lastServiceData.map(\.0)
            || advertisement.serviceData.map(\.1) != lastServiceData.map(\.1)
        if !advertisement.serviceData.isEmpty && (serviceDataChanged || duplicateData) {
            set("ServiceData", Self.serviceDataValue(advertisement.serviceData))
        }
        lastManufacturerData = advertisement.manufacturerData
        lastServiceData = advertisement.serviceData
        restartTemporaryTimer()
    }

    /// Discovery ended: RSSI and TxPower are invalidated.
    func discoveryEnded() {
        guard seenInDiscovery else { return }
        seenInDiscovery = false
        lastRSSI = nil
        set("RSSI", nil)
        if sim.tree.property("TxPower", interface: Self.interface, path: path) != nil { set("TxPower", nil) }
    }

    /// (Re)starts the temporary timeout; when it expires an unconnected temporary device is
    /// removed.
    func restartTemporaryTimer() {
        temporaryTask?.cancel()
        guard isTemporary else { return }
        temporaryTask = schedule(after: sim.behavior.temporaryTimeout) { [weak self] in
            guard let self, self.isTemporary, self.state == .disconnected, !self.isRemoved else { return }
            self.sim.log("\(self.board.address) expired (temporary)")
            self.finishRemoval()
        }
    }

    func markPermanent() {
        isTemporary = false
        temporaryTask?.cancel()
        temporaryTask = nil
    }

    static func manufacturerValue(_ data: [(UInt16, [UInt8])]) -> DBusValue {
        .uint16Dictionary(data.map { ($0.0, DBusValue.bytes($0.1)) })
    }

    static func serviceDataValue(_ data: [(String, [UInt8])]) -> DBusValue {
        .dictionary("s", "v", data.map { DBusDictEntry(key: .string($0.0), value: .variant(.bytes($0.1))) })
    }

    // MARK: Removal

    /// `RemoveDevice`: disconnect first if needed, then remove everything. `completion` (the
    /// reply) runs after the `InterfacesRemoved` signals of a device that was not connected
    /// (adapter.c `remove_device` removes it, then returns), but before those of a connected
    /// one: bluetoothd answers the pending call from `device_remove_connection`, and only
    /// then does `dev_disconnected` remove the temporary device (#29).
    func remove(completion: @escaping @MainActor () -> Void) {
        markPermanent()
        switch state {
        case .connecting:
            cancelConnect(with: BlueZErrors.connectionCanceled)
            finishRemoval()
            completion()
        case .connected, .disconnecting:
            if state == .connected { beginDisconnect() }
            afterDisconnect.append { [weak self] in
                completion()
                self?.finishRemoval()
            }
        case .disconnected:
            finishRemoval()
            completion()
        }
    }

    /// The board went away for good (removed from the simulator): the link drops with
    /// `reason` and the object goes at once.
    func removeAtOnce(reason: DisconnectReason) {
        dropLink(reason: reason)
        finishRemoval()
    }

    /// Removes the GATT objects (children first) and the device (`InterfacesRemoved` each).
    func finishRemoval() {
        guard !isRemoved else { return }
        stopAll()
        removeGATT()
        sim.tree.removeObject(at: path, includingDescendants: true)
        isRemoved = true
        adapter.forget(self)
        if board.device === self { board.device = nil }
        sim.log("\(board.address) removed from \(adapter.name)")
    }

    /// Cancels every pending task (shutdown, removal).
    func stopAll() {
        temporaryTask?.cancel()
        connectTask?.cancel()
        resolveTask?.cancel()
        disconnectTask?.cancel()
        for characteristic in characteristics { characteristic.abandon() }
    }
}
