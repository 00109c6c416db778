import FoundationEssentials

/// A Bluetooth adapter (`org.bluez.Adapter1` at `/org/bluez/hci0`).
public struct BlueZAdapterInfo: Hashable, Sendable {
    /// The object path.
    public var path: String
    /// The short name (`hci0`).
    public var name: String
    /// The adapter's own address, when known.
    public var address: String?
    /// Whether the radio is on.
    public var powered: Bool
    /// Whether BlueZ is discovering on it (any client's session).
    public var discovering: Bool

    /// An adapter record.
    public init(path: String, name: String, address: String? = nil, powered: Bool = false, discovering: Bool = false) {
        self.path = path
        self.name = name
        self.address = address
        self.powered = powered
        self.discovering = discovering
    }
}

/// A remote device (`org.bluez.Device1`).
public struct BlueZDeviceInfo: Hashable, Sendable {
    /// The object path (`/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`).
    public var path: String
    /// The adapter's object path.
    public var adapterPath: String
    /// The address in upper case (`AA:BB:CC:DD:EE:FF`).
    public var address: String
    /// The `Name` property (only when the board advertised or told one).
    public var name: String?
    /// The `Alias` property.
    public var alias: String?
    /// The signal strength of the latest advertisement, while discovery sees the device.
    public var rssi: Int?
    /// Advertised (then GATT) service UUIDs, lower case.
    public var uuids: [String]
    /// Whether the LE link is up.
    public var connected: Bool
    /// Whether GATT discovery has finished (and the GATT objects are exported).
    public var servicesResolved: Bool

    /// A device record.
    public init(
        path: String, adapterPath: String, address: String, name: String? = nil, alias: String? = nil,
        rssi: Int? = nil, uuids: [String] = [], connected: Bool = false, servicesResolved: Bool = false
    ) {
        self.path = path
        self.adapterPath = adapterPath
        self.address = address
        self.name = name
        self.alias = alias
        self.rssi = rssi
        self.uuids = uuids
        self.connected = connected
        self.servicesResolved = servicesResolved
    }

    /// The adapter's short name (`hci0`).
    public var adapterName: String {
        BlueZPath.adapterName(of: adapterPath) ?? adapterPath
    }

    /// The advertised name: `Name`, else `Alias` unless BlueZ made that up from the address
    /// (`AA-BB-…`).
    public var advertisedName: String? {
        if let name, !name.isEmpty { return name }
        guard let alias, !alias.isEmpty else { return nil }
        let dashed = address.split(separator: ":", omittingEmptySubsequences: false).joined(separator: "-")
        if alias.uppercased() == dashed.uppercased() || alias.uppercased() == address.uppercased() { return nil }
        return alias
    }
}

/// A GATT service (`org.bluez.GattService1`).
public struct BlueZServiceInfo: Hashable, Sendable {
    /// The object path.
    public var path: String
    /// The service UUID, lower case.
    public var uuid: String
    /// The device's object path.
    public var devicePath: String

    /// A service record.
    public init(path: String, uuid: String, devicePath: String) {
        self.path = path
        self.uuid = uuid
        self.devicePath = devicePath
    }
}

/// A GATT characteristic (`org.bluez.GattCharacteristic1`).
public struct BlueZCharacteristicInfo: Hashable, Sendable {
    /// The object path.
    public var path: String
    /// The characteristic UUID, lower case.
    public var uuid: String
    /// The service's object path.
    public var servicePath: String
    /// The `Flags` (`notify`, `write`, `write-without-response`…).
    public var flags: [String]
    /// The negotiated ATT MTU (`MTU`, BlueZ 5.62+), when exported.
    public var mtu: Int?
    /// `NotifyAcquired`, when exported: BlueZ offers `AcquireNotify` on this characteristic
    /// (`false`: nobody holds it; `true`: someone does).
    public var notifyAcquired: Bool?

    /// A characteristic record.
    public init(
        path: String, uuid: String, servicePath: String, flags: [String] = [], mtu: Int? = nil,
        notifyAcquired: Bool? = nil
    ) {
        self.notifyAcquired = notifyAcquired
        self.path = path
        self.uuid = uuid
        self.servicePath = servicePath
        self.flags = flags
        self.mtu = mtu
    }
}
