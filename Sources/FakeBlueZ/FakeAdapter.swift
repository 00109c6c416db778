import DBus

/// One emulated controller: `org.bluez.Adapter1` at `/org/bluez/hciN` (§2), its discovery
/// sessions and the device objects of the boards it has seen.
@MainActor
final class FakeAdapter {
    static let interface = "org.bluez.Adapter1"

    unowned let sim: FakeBlueZ
    let name: String
    let path: String
    let address: String
    let alias: String
    private(set) var isPowered: Bool
    /// Senders with a discovery session, in the order they started.
    var sessions: [String] = []
    /// Discovery filters per sender (kept until cleared or the sender leaves).
    var filters: [String: DiscoveryFilter] = [:]
    /// Device objects by address.
    var devices: [String: FakeDevice] = [:]
    /// The device whose LE connect is in flight (one at a time per adapter).
    weak var connectingDevice: FakeDevice?
    /// Devices whose LE connect waits for the one in flight (the kernel queues them).
    var connectQueue: [FakeDevice] = []
    /// Manager registrations (interface, sender, object), answered but never used.
    var registrations: Set<String> = []
    var advertisingTimer: RepeatingTimer?

    init(sim: FakeBlueZ, configuration: AdapterConfiguration) {
        self.sim = sim
        name = configuration.name
        path = "/org/bluez/" + configuration.name
        address = configuration.effectiveAddress
        alias = configuration.alias ?? "boardsim"
        isPowered = configuration.powered
    }

    var isDiscovering: Bool { !sessions.isEmpty }

    /// Exports `Adapter1` with §2.2's properties (versioned ones only where the emulated
    /// BlueZ has them).
    func export() throws(DBusError) {
        let version = sim.version
        var properties: [(String, DBusValue)] = [
            ("Address", .string(address)), ("AddressType", .string("public")), ("Name", .string(alias)),
            ("Alias", .string(alias)), ("Class", .uint32(0x6C_010C)),
        ]
        if version.atLeast(83) { properties.append(("Connectable", .bool(true))) }
        properties.append(("Powered", .bool(isPowered)))
        if version.atLeast(66) { properties.append(("PowerState", .string(isPowered ? "on" : "off"))) }
        properties += [
            ("Discoverable", .bool(false)), ("DiscoverableTimeout", .uint32(180)), ("Pairable", .bool(true)),
            ("PairableTimeout", .uint32(0)), ("Discovering", .bool(false)),
            (
                "UUIDs",
                .strings([0x1800, 0x1801, 0x180A, 0x110E, 0x110C].map { BluetoothUUID.assigned($0) })
            ),
            ("Modalias", .string("usb:v1D6Bp0246d0548")),
        ]
        if version.atLeast(55) { properties.append(("Roles", .strings(["central", "peripheral"]))) }
        if version.atLeast(71) {
            properties += [("Manufacturer", .uint16(0x0002)), ("Version", .byte(0x0C))]
        }
        let interface = DBusInterface(
            name: Self.interface,
            methods: [
                DBusMethodDescription("StartDiscovery"), DBusMethodDescription("StopDiscovery"),
                DBusMethodDescription("SetDiscoveryFilter", in: [DBusArgument("filter", "a{sv}")]),
                DBusMethodDescription("RemoveDevice", in: [DBusArgument("device", "o")]),
                DBusMethodDescription("GetDiscoveryFilters", out: [DBusArgument("filters", "as")]),
            ],
            properties: properties,
            writableProperties: [
                "Alias", "Powered", "Discoverable", "DiscoverableTimeout", "Pairable", "PairableTimeout", "Connectable",
            ],
            methodHandler: { [weak self] invocation in self?.handle(invocation) },
            propertySetHandler: { [weak self] _, name, value throws(DBusError) in
                self?.propertyWillChange(name, to: value)
            })
        try sim.tree.addInterface(interface, at: path)
        for manager in managerInterfaces() { try sim.tree.addInterface(manager, at: path) }
    }

    /// The managers bluetoothd puts on every LE adapter (GattManager1, LEAdvertisingManager1;
    /// the audio and network plugins' Media1 and NetworkServer1 as Debian builds them;
    /// BatteryProviderManager1 from 5.71, when the battery API left `--experimental`:
    /// "battery: mark all battery DBus APIs non-experimental", October 2023).
    /// Registrations are kept per sender and answered, never used: boardsim is no
    /// peripheral and has no battery provider of its own. AdvertisementMonitorManager1 needs
    /// `--experimental` and is absent, as on a default bluetoothd.
    private func managerInterfaces() -> [DBusInterface] {
        let handler: @MainActor (DBusMethodInvocation) -> Void = { [weak self] invocation in
            self?.handleRegistration(invocation)
        }
        var advertising: [(String, DBusValue)] = [
            ("ActiveInstances", .byte(0)), ("SupportedInstances", .byte(5)),
            ("SupportedIncludes", .strings(["tx-power", "appearance", "local-name"])),
            ("SupportedSecondaryChannels", .strings(["1M", "2M", "Coded"])),
        ]
        // Experimental before 5.83 (hidden without --experimental).
        if sim.version.atLeast(83) {
            advertising += [
                ("SupportedFeatures", .strings(["CanSetTxPower", "HardwareOffload"])),
                (
                    "SupportedCapabilities",
                    .dictionary(
                        "s", "v",
                        [
                            DBusDictEntry(key: .string("MaxAdvLen"), value: .variant(.byte(31))),
                            DBusDictEntry(key: .string("MaxScnRspLen"), value: .variant(.byte(31))),
                        ])
                ),
            ]
        }
        let app = [DBusArgument("application", "o"), DBusArgument("options", "a{sv}")]
        var battery: [DBusInterface] = []
        if sim.version.atLeast(71) {
            battery.append(
                DBusInterface(
                    name: "org.bluez.BatteryProviderManager1",
                    methods: [
                        DBusMethodDescription("RegisterBatteryProvider", in: [DBusArgument("provider", "o")]),
                        DBusMethodDescription("UnregisterBatteryProvider", in: [DBusArgument("provider", "o")]),
                    ], properties: [], methodHandler: handler))
        }
        return battery + [
            DBusInterface(
                name: "org.bluez.GattManager1",
                methods: [
                    DBusMethodDescription("RegisterApplication", in: app),
                    DBusMethodDescription("UnregisterApplication", in: [DBusArgument("application", "o")]),
                ], properties: [], methodHandler: handler),
            DBusInterface(
                name: "org.bluez.LEAdvertisingManager1",
                methods: [
                    DBusMethodDescription(
                        "RegisterAdvertisement",
                        in: [DBusArgument("advertisement", "o"), DBusArgument("options", "a{sv}")]),
                    DBusMethodDescription("UnregisterAdvertisement", in: [DBusArgument("service", "o")]),
                ], properties: advertising, methodHandler: handler),
            DBusInterface(
                name: "org.bluez.Media1",
                methods: [
                    DBusMethodDescription(
                        "RegisterEndpoint", in: [DBusArgument("endpoint", "o"), DBusArgument("properties", "a{sv}")]),
                    DBusMethodDescription("UnregisterEndpoint", in: [DBusArgument("endpoint", "o")]),
                    DBusMethodDescription(
                        "RegisterPlayer", in: [DBusArgument("player", "o"), DBusArgument("properties", "a{sv}")]),
                    DBusMethodDescription("UnregisterPlayer", in: [DBusArgument("player", "o")]),
                    DBusMethodDescription("RegisterApplication", in: app),
                    DBusMethodDescription("UnregisterApplication", in: [DBusArgument("application", "o")]),
                ], properties: [("SupportedUUIDs", .strings([]))], methodHandler: handler),
            DBusInterface(
                name: "org.bluez.NetworkServer1",
                methods: [
                    DBusMethodDescription("Register", in: [DBusArgument("uuid", "s"), DBusArgument("bridge", "s")]),
                    DBusMethodDescription("Unregister", in: [DBusArgument("uuid", "s")]),
                ], properties: [], methodHandler: handler),
        ]
    }

    /// Register* keeps the object per sender (`AlreadyExists` twice), Unregister* needs it
    /// (`DoesNotExist`).
    private func handleRegistration(_ invocation: DBusMethodInvocation) {
        let object = invocation.body.first?.objectPathValue ?? invocation.body.first?.stringValue ?? ""
        let key = invocation.interface + " " + invocation.sender + " " + object
        if invocation.member.hasPrefix("Register") {
            guard registrations.insert(key).inserted else { return invocation.fail(BlueZErrors.alreadyExists) }
        } else {
            guard registrations.remove(key) != nil else { return invocation.fail(BlueZErrors.doesNotExist) }
        }
        invocation.reply()
    }

    func set(_ property: String, _ value: DBusValue?, flush: Bool = false) {
        sim.tree.setProperty(property, interface: Self.interface, path: path, to: value, flush: flush)
    }

    private func handle(_ invocation: DBusMethodInvocation) {
        switch invocation.member {
        case "StartDiscovery": startDiscovery(invocation)
        case "StopDiscovery": stopDiscovery(invocation)
        case "SetDiscoveryFilter": setDiscoveryFilter(invocation)
        case "GetDiscoveryFilters":
            var keys = DiscoveryFilter.keys
            if sim.version.atLeast(80) { keys.append("AutoConnect") }
            invocation.reply([.strings(keys)])
        case "RemoveDevice": removeDevice(invocation)
        default: invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    /// `Properties.Set` side effects (the tree stores the value afterwards).
    private func propertyWillChange(_ name: String, to value: DBusValue) {
        switch name {
        case "Powered":
            if let on = value.boolValue { setPowered(on) }
        case "Alias":
            // An empty alias resets to the name (after the tree stored the empty string).
            if value.stringValue == "" {
                schedule(after: 0) { [weak self] in self?.set("Alias", .string(self?.alias ?? "")) }
            }
        default:
            break
        }
    }

    /// Powers the adapter on or off. Off: discovery ends for everyone, links drop, pending
    /// connects fail.
    func setPowered(_ on: Bool) {
        guard on != isPowered else { return }
        isPowered = on
        if !on {
            let wasDiscovering = isDiscovering
            sessions.removeAll()
            if wasDiscovering { discoveryEnded() }
            for device in devices.values.sorted(by: { $0.path < $1.path }) { device.adapterPoweredOff() }
        }
        // bluetoothd signals the transition first ("off-enabling" / "on-disabling"), then
        // Powered with the final state once the controller answered.
        if sim.version.atLeast(66) { set("PowerState", .string(on ? "off-enabling" : "on-disabling"), flush: true) }
        set("Powered", .bool(on))
        if sim.version.atLeast(66) { set("PowerState", .string(on ? "on" : "off")) }
        sim.log("\(name) powered \(on ? "on" : "off")")
    }

    /// `RemoveDevice(o)`: disconnects first when needed and removes the device and its GATT
    /// objects; the reply comes before the removal when a link had to go (see
    /// ``FakeDevice/remove(completion:)``).
    private func removeDevice(_ invocation: DBusMethodInvocation) {
        guard isPowered else { return invocation.fail(BlueZErrors.notReady) }
        guard let target = invocation.body.first?.objectPathValue,
            let device = devices.values.first(where: { $0.path == target })
        else { return invocation.fail(BlueZErrors.doesNotExist) }
        device.remove { invocation.reply() }
    }

    /// Creates the device object of a board BlueZ knows from before (paired or cached).
    func createKnownDevice(for board: SimulatedBoard) {
        let device = FakeDevice(sim: sim, adapter: self, board: board, advertisement: nil)
        device.isTemporary = false
        devices[board.address] = device
    }

    /// The device object of `address` is gone.
    func forget(_ device: FakeDevice) {
        if devices[device.board.address] === device { devices[device.board.address] = nil }
    }

    /// A client left the bus: its discovery session and filter go.
    func clientLeft(_ name: String) {
        filters[name] = nil
        registrations = registrations.filter { !$0.contains(" " + name + " ") }
        guard let index = sessions.firstIndex(of: name) else { return }
        sessions.remove(at: index)
        if sessions.isEmpty { discoveryEnded() }
    }

    /// Queues `device`'s LE connect; it starts when no other is in flight.
    func enqueueConnect(_ device: FakeDevice) {
        if !connectQueue.contains(where: { $0 === device }) { connectQueue.append(device) }
        startNextConnect()
    }

    /// `device`'s connect ended (or was canceled while queued): the next one starts.
    func connectFinished(_ device: FakeDevice) {
        connectQueue.removeAll { $0 === device }
        if connectingDevice === device { connectingDevice = nil }
        startNextConnect()
    }

    private func startNextConnect() {
        guard connectingDevice == nil, let next = connectQueue.first else { return }
        connectQueue.removeFirst()
        connectingDevice = next
        next.startConnectAttempt()
    }

    func stopAll() {
        connectQueue.removeAll()
        advertisingTimer?.cancel()
        advertisingTimer = nil
        for device in devices.values { device.stopAll() }
    }
}
