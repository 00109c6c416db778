public import DBus
public import FoundationEssentials
public import Logging

/// One change of the ``BlueZObjectModel``, as the manager passes it on to transports.
public enum BlueZModelChange: Hashable, Sendable {
    /// An adapter appeared or one of its properties changed.
    case adapterChanged(String)
    /// An adapter (and everything below it) went away.
    case adapterRemoved(String)
    /// A device appeared.
    case deviceAdded(String)
    /// Properties of a device changed (or were invalidated); the names are listed.
    case deviceChanged(String, Set<String>)
    /// A device (and its GATT objects) went away.
    case deviceRemoved(String)
    /// A GATT service or characteristic of `devicePath` appeared or changed.
    case gattChanged(path: String, devicePath: String)
    /// A GATT service or characteristic of `devicePath` went away.
    case gattRemoved(path: String, devicePath: String)
    /// A characteristic's `Value` changed: one notification (or read result).
    case value(path: String, bytes: Data)

    /// The device this change concerns, if any.
    public var devicePath: String? {
        switch self {
        case .adapterChanged, .adapterRemoved: nil
        case .deviceAdded(let path), .deviceChanged(let path, _), .deviceRemoved(let path): path
        case .gattChanged(_, let devicePath), .gattRemoved(_, let devicePath): devicePath
        case .value(let path, _): BlueZPath.devicePath(of: path)
        }
    }
}

/// Something in BlueZ's data that the model skipped, with the object it concerns.
public struct BlueZModelIssue: Hashable, Sendable, CustomStringConvertible {
    /// How much it matters (unknown objects are routine: ``LogLevel/debug``).
    public var level: LogLevel
    /// What was wrong, naming the object path and property.
    public var description: String

    /// An issue.
    public init(_ level: LogLevel, _ description: String) {
        self.level = level
        self.description = description
    }
}

/// The result of applying BlueZ data to the model.
public struct BlueZModelUpdate: Hashable, Sendable {
    /// What changed, in order.
    public var changes: [BlueZModelChange] = []
    /// What was skipped.
    public var issues: [BlueZModelIssue] = []

    /// An empty update.
    public init() {}
}

/// The client-side picture of BlueZ's object tree: adapters, devices, GATT services and
/// characteristics, built from one `GetManagedObjects` and kept current with
/// `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged` (bleak's approach,
/// reference/bluez-dbus.md §5.1). A pure value: no I/O.
///
/// Input from the bus is never trusted: a property of the wrong type is skipped (and
/// reported), an object missing what identifies it is skipped, a change for an unknown object
/// is ignored.
public struct BlueZObjectModel: Sendable {
    /// Adapters by object path.
    public private(set) var adapters: [String: BlueZAdapterInfo] = [:]
    /// Devices by object path.
    public private(set) var devices: [String: BlueZDeviceInfo] = [:]
    /// GATT services by object path.
    public private(set) var services: [String: BlueZServiceInfo] = [:]
    /// GATT characteristics by object path.
    public private(set) var characteristics: [String: BlueZCharacteristicInfo] = [:]
    /// The adapters (`hci0`) whose objects are kept, or `nil` for all: an adapter the
    /// configuration does not list, its devices and their services are ignored, so nothing
    /// scans, connects or waits for power there.
    public let onlyAdapters: Set<String>?

    /// An empty model that keeps the objects of `onlyAdapters` (`nil`: of every adapter).
    public init(onlyAdapters: Set<String>? = nil) {
        self.onlyAdapters = onlyAdapters
    }

    /// Forgets everything (BlueZ left the bus).
    public mutating func removeAll() {
        adapters = [:]
        devices = [:]
        services = [:]
        characteristics = [:]
    }

    /// Replaces the model with a `GetManagedObjects` reply.
    public mutating func load(_ objects: [String: [String: [String: DBusValue]]]) -> BlueZModelUpdate {
        removeAll()
        var update = BlueZModelUpdate()
        // Parents first, so that children find them (paths sort parents before children).
        for path in objects.keys.sorted() {
            guard let interfaces = objects[path] else { continue }
            add(path: path, interfaces: interfaces, into: &update)
        }
        return update
    }

    /// Applies `InterfacesAdded(path, interfaces)`.
    public mutating func interfacesAdded(path: String, interfaces: [String: [String: DBusValue]]) -> BlueZModelUpdate {
        var update = BlueZModelUpdate()
        add(path: path, interfaces: interfaces, into: &update)
        return update
    }

    /// Applies `InterfacesRemoved(path, interfaces)`.
    public mutating func interfacesRemoved(path: String, interfaces: [String]) -> BlueZModelUpdate {
        var update = BlueZModelUpdate()
        for interface in interfaces {
            switch interface {
            case BlueZNames.adapterInterface:
                guard adapters.removeValue(forKey: path) != nil else { continue }
                for device in devices.values.filter({ $0.adapterPath == path }).map(\.path).sorted() {
                    removeDevice(device, into: &update)
                }
                update.changes.append(.adapterRemoved(path))
            case BlueZNames.deviceInterface:
                removeDevice(path, into: &update)
            case BlueZNames.serviceInterface:
                guard let service = services.removeValue(forKey: path) else { continue }
                update.changes.append(.gattRemoved(path: path, devicePath: service.devicePath))
            case BlueZNames.characteristicInterface:
                guard characteristics.removeValue(forKey: path) != nil else { continue }
                let device = BlueZPath.devicePath(of: path) ?? path
                update.changes.append(.gattRemoved(path: path, devicePath: device))
            default:
                continue
            }
        }
        return update
    }

    /// Applies `PropertiesChanged(interface, changed, invalidated)` received from `path`.
    public mutating func propertiesChanged(
        path: String, interface: String, changed: [String: DBusValue], invalidated: [String]
    ) -> BlueZModelUpdate {
        var update = BlueZModelUpdate()
        switch interface {
        case BlueZNames.adapterInterface:
            guard var adapter = adapters[path] else { return unknown(path, interface) }
            Self.apply(changed, invalidated: invalidated, to: &adapter, issues: &update.issues)
            adapters[path] = adapter
            update.changes.append(.adapterChanged(path))
        case BlueZNames.deviceInterface:
            guard var device = devices[path] else { return unknown(path, interface) }
            Self.apply(changed, invalidated: invalidated, to: &device, issues: &update.issues)
            devices[path] = device
            update.changes.append(.deviceChanged(path, Set(changed.keys).union(invalidated)))
        case BlueZNames.serviceInterface:
            guard var service = services[path] else { return unknown(path, interface) }
            if let uuid = Self.string(changed, "UUID", path, &update.issues) { service.uuid = uuid.lowercased() }
            services[path] = service
            update.changes.append(.gattChanged(path: path, devicePath: service.devicePath))
        case BlueZNames.characteristicInterface:
            if let raw = changed["Value"] {
                if let bytes = raw.bytesValue {
                    update.changes.append(.value(path: path, bytes: Data(bytes)))
                } else {
                    update.issues.append(Self.typeIssue(path, "Value", raw, expected: "ay"))
                }
            }
            guard var characteristic = characteristics[path] else {
                if changed["Value"] == nil { update.issues.append(Self.unknownIssue(path, interface)) }
                return update
            }
            let others = changed.filter { $0.key != "Value" }
            guard !others.isEmpty || !invalidated.isEmpty else { return update }
            Self.apply(others, invalidated: invalidated, to: &characteristic, issues: &update.issues)
            characteristics[path] = characteristic
            let device = BlueZPath.devicePath(of: path) ?? path
            update.changes.append(.gattChanged(path: path, devicePath: device))
        default:
            break
        }
        return update
    }

    /// The services of the device at `devicePath`.
    public func services(ofDevice devicePath: String) -> [BlueZServiceInfo] {
        services.values.filter { $0.devicePath == devicePath }.sorted { $0.path < $1.path }
    }

    /// The characteristics of the service at `servicePath`.
    public func characteristics(ofService servicePath: String) -> [BlueZCharacteristicInfo] {
        characteristics.values.filter { $0.servicePath == servicePath }.sorted { $0.path < $1.path }
    }

    /// The characteristics of every service of the device at `devicePath`.
    public func characteristics(ofDevice devicePath: String) -> [BlueZCharacteristicInfo] {
        let servicePaths = Set(services(ofDevice: devicePath).map(\.path))
        return characteristics.values.filter { servicePaths.contains($0.servicePath) }.sorted { $0.path < $1.path }
    }

    // MARK: Adding

    private mutating func add(
        path: String, interfaces: [String: [String: DBusValue]], into update: inout BlueZModelUpdate
    ) {
        if let onlyAdapters, let adapter = BlueZPath.adapterName(of: path), !onlyAdapters.contains(adapter) {
            return
        }
        if let properties = interfaces[BlueZNames.adapterInterface] {
            addAdapter(path, properties, into: &update)
        }
        if let properties = interfaces[BlueZNames.deviceInterface] {
            addDevice(path, properties, into: &update)
        }
        if let properties = interfaces[BlueZNames.serviceInterface] {
            addService(path, properties, into: &update)
        }
        if let properties = interfaces[BlueZNames.characteristicInterface] {
            addCharacteristic(path, properties, into: &update)
        }
    }

    private mutating func addAdapter(
        _ path: String, _ properties: [String: DBusValue], into update: inout BlueZModelUpdate
    ) {
        guard let name = BlueZPath.adapterName(of: path), BlueZPath.adapterPath(of: path) == path else {
            update.issues.append(BlueZModelIssue(.warning, "Adapter1 at unexpected path \(path) ignored"))
            return
        }
        var adapter = adapters[path] ?? BlueZAdapterInfo(path: path, name: name)
        Self.apply(properties, invalidated: [], to: &adapter, issues: &update.issues)
        adapters[path] = adapter
        update.changes.append(.adapterChanged(path))
    }

    private mutating func addDevice(
        _ path: String, _ properties: [String: DBusValue], into update: inout BlueZModelUpdate
    ) {
        let address =
            Self.string(properties, "Address", path, &update.issues)?.uppercased()
            ?? BlueZPath.address(fromDevicePath: path)
        let adapterPath =
            Self.objectPath(properties, "Adapter", path, &update.issues) ?? BlueZPath.adapterPath(of: path)
        guard let address, let adapterPath else {
            update.issues.append(BlueZModelIssue(.warning, "Device1 at \(path) has no usable Address/Adapter; ignored"))
            return
        }
        let isNew = devices[path] == nil
        var device = devices[path] ?? BlueZDeviceInfo(path: path, adapterPath: adapterPath, address: address)
        Self.apply(properties, invalidated: [], to: &device, issues: &update.issues)
        devices[path] = device
        update.changes.append(isNew ? .deviceAdded(path) : .deviceChanged(path, Set(properties.keys)))
    }

    private mutating func addService(
        _ path: String, _ properties: [String: DBusValue], into update: inout BlueZModelUpdate
    ) {
        guard let uuid = Self.string(properties, "UUID", path, &update.issues),
            let devicePath = Self.objectPath(properties, "Device", path, &update.issues)
                ?? BlueZPath.devicePath(of: path)
        else {
            update.issues.append(BlueZModelIssue(.warning, "GattService1 at \(path) has no UUID/Device; ignored"))
            return
        }
        services[path] = BlueZServiceInfo(path: path, uuid: uuid.lowercased(), devicePath: devicePath)
        update.changes.append(.gattChanged(path: path, devicePath: devicePath))
    }

    private mutating func addCharacteristic(
        _ path: String, _ properties: [String: DBusValue], into update: inout BlueZModelUpdate
    ) {
        guard let uuid = Self.string(properties, "UUID", path, &update.issues),
            let servicePath = Self.objectPath(properties, "Service", path, &update.issues)
                ?? BlueZPath.parent(of: path)
        else {
            update.issues.append(
                BlueZModelIssue(.warning, "GattCharacteristic1 at \(path) has no UUID/Service; ignored"))
            return
        }
        var characteristic = BlueZCharacteristicInfo(path: path, uuid: uuid.lowercased(), servicePath: servicePath)
        Self.apply(properties, invalidated: [], to: &characteristic, issues: &update.issues)
        characteristics[path] = characteristic
        let device = BlueZPath.devicePath(of: path) ?? servicePath
        update.changes.append(.gattChanged(path: path, devicePath: device))
    }

    private mutating func removeDevice(_ path: String, into update: inout BlueZModelUpdate) {
        guard devices.removeValue(forKey: path) != nil else { return }
        let prefix = path + "/"
        services = services.filter { !$0.key.hasPrefix(prefix) }
        characteristics = characteristics.filter { !$0.key.hasPrefix(prefix) }
        update.changes.append(.deviceRemoved(path))
    }

    private func unknown(_ path: String, _ interface: String) -> BlueZModelUpdate {
        var update = BlueZModelUpdate()
        update.issues.append(Self.unknownIssue(path, interface))
        return update
    }

    static func unknownIssue(_ path: String, _ interface: String) -> BlueZModelIssue {
        BlueZModelIssue(.debug, "PropertiesChanged(\(interface)) for unknown object \(path) ignored")
    }
}
