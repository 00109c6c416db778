import DBus

/// One exported `org.bluez.GattCharacteristic1` (§4.1): its notify sessions per sender,
/// its cached `Value`, and the lock of a pending request write.
@MainActor
final class FakeCharacteristic {
    static let interface = "org.bluez.GattCharacteristic1"
    static let descriptorInterface = "org.bluez.GattDescriptor1"
    static let serviceInterface = "org.bluez.GattService1"

    unowned let device: FakeDevice
    let path: String
    let servicePath: String
    let definition: GattLayout.Characteristic
    /// Part of a service claimed by a BlueZ plugin: read-only.
    let isClaimed: Bool
    /// The CCCD's path, if the characteristic notifies or indicates.
    var cccdPath: String?
    /// Senders with a notify session, in order.
    var sessions: [String] = []
    /// Senders whose session is registered with the board on the current link (bluetoothd's
    /// `notify_id`): set on StartNotify while connected and for every session when services
    /// resolve; cleared when the link goes. A session armed while disconnected is not.
    var registered: Set<String> = []
    /// bluetoothd's `chrc->notifying`: true once a session was registered, false when no
    /// registered session is left after a StopNotify; a link loss leaves it alone.
    var notifying = false
    /// The last value read or notified.
    var value: [UInt8] = []
    /// Whether a request write is waiting for its response.
    var requestWritePending = false
    /// Bumped when pending writes are abandoned (removal, shutdown); their answers fail.
    var writeEpoch = 0
    /// The `AcquireNotify` socket and its owner, while acquired.
    var acquiredNotify: (socket: AcquiredSocket, owner: String)?
    /// The `AcquireWrite` socket and its owner, while acquired.
    var acquiredWrite: (socket: AcquiredSocket, owner: String)?

    init(device: FakeDevice, path: String, servicePath: String, definition: GattLayout.Characteristic, isClaimed: Bool)
    {
        self.device = device
        self.path = path
        self.servicePath = servicePath
        self.definition = definition
        self.isClaimed = isClaimed
    }

    var uuid: String { definition.uuid }
    private var tree: DBusObjectTree { device.sim.tree }

    func set(_ property: String, _ value: DBusValue?, flush: Bool = false) {
        tree.setProperty(property, interface: Self.interface, path: path, to: value, flush: flush)
    }

    /// The properties at export (`MTU` only while connected, 5.62+; `Handle` 5.69+;
    /// `Notifying` only with notify or indicate; `NotifyAcquired` only with notify;
    /// `WriteAcquired` only with write-without-response).
    func initialProperties(connected: Bool, mtu: Int) -> [(String, DBusValue)] {
        let version = device.sim.version
        var properties: [(String, DBusValue)] = []
        if version.atLeast(69) { properties.append(("Handle", .uint16(definition.handle))) }
        properties += [("UUID", .string(uuid)), ("Service", .objectPath(servicePath)), ("Value", .bytes(value))]
        if definition.canNotify { properties.append(("Notifying", .bool(notifying))) }
        properties.append(("Flags", .strings(definition.flags)))
        if definition.flags.contains("write-without-response") {
            properties.append(("WriteAcquired", .bool(acquiredWrite != nil)))
        }
        if definition.flags.contains("notify") { properties.append(("NotifyAcquired", .bool(acquiredNotify != nil))) }
        if connected && version.atLeast(62) { properties.append(("MTU", .uint16(UInt16(clamping: mtu)))) }
        return properties
    }

    /// The link is (back) up: the MTU exists again. bluetoothd signals no change (the
    /// property's exists test turns true), so neither does the fake.
    func linkUp(mtu: Int) {
        if device.sim.version.atLeast(62) { setSilently("MTU", .uint16(UInt16(clamping: mtu))) }
    }

    /// The link is down: `MTU` no longer exists (silently, as in bluetoothd); acquired
    /// sockets close (the client sees EOF); notify sessions survive, unregistered, and
    /// `Notifying` keeps its value (re-registered on reconnect).
    func linkDown() {
        if device.sim.version.atLeast(62) { setSilently("MTU", nil) }
        registered.removeAll()
        releaseNotify()
        releaseWrite()
    }

    private func setSilently(_ property: String, _ value: DBusValue?) {
        tree.setProperty(property, interface: Self.interface, path: path, to: value, signals: false)
    }

    /// Ends an `AcquireNotify` (client closed its end, link loss, owner left).
    func releaseNotify() {
        guard let acquired = acquiredNotify else { return }
        acquiredNotify = nil
        acquired.socket.close()
        set("NotifyAcquired", .bool(false))
    }

    /// Ends an `AcquireWrite`.
    func releaseWrite() {
        guard let acquired = acquiredWrite else { return }
        acquiredWrite = nil
        acquired.socket.close()
        set("WriteAcquired", .bool(false))
    }

    /// One notification: a datagram on the acquired socket, else `Value` updated and
    /// signalled on its own, even when unchanged. Returns whether it was handed on (a full
    /// socket drops it, as bluetoothd's non-blocking `sendmsg` does).
    func notify(_ bytes: [UInt8]) -> Bool {
        if let acquired = acquiredNotify {
            return acquired.socket.send(bytes) == .sent
        }
        setValue(bytes)
        return true
    }

    /// A read result or notification through `PropertiesChanged(Value)`, its own signal.
    func setValue(_ bytes: [UInt8]) {
        value = bytes
        set("Value", .bytes(bytes), flush: true)
    }

    /// Whether notifications are wanted on this link (a registered notify session or an
    /// acquired socket).
    var isSubscribed: Bool { !registered.isEmpty || acquiredNotify != nil }

    /// Whether `sender` has a session that is not registered yet (armed while disconnected):
    /// bluetoothd answers a second StartNotify with `InProgress` then.
    func isArmedOnly(_ sender: String) -> Bool { sessions.contains(sender) && !registered.contains(sender) }

    /// Adds a notify session for `sender`, registered at once when `linked` (then
    /// `Notifying=true` if it was false).
    func addSession(_ sender: String, linked: Bool) {
        if !sessions.contains(sender) { sessions.append(sender) }
        if linked { register(sender) }
    }

    /// The link is up and services resolved: every session is registered again.
    func registerAll() {
        for sender in sessions { register(sender) }
    }

    private func register(_ sender: String) {
        registered.insert(sender)
        guard !notifying else { return }
        notifying = true
        set("Notifying", .bool(true))
    }

    /// Removes `sender`'s session; returns whether it had one. `Notifying=false` once no
    /// registered session is left (bluetoothd's `update_notifying`).
    @discardableResult
    func removeSession(_ sender: String) -> Bool {
        guard let index = sessions.firstIndex(of: sender) else { return false }
        sessions.remove(at: index)
        registered.remove(sender)
        if notifying && registered.isEmpty {
            notifying = false
            set("Notifying", .bool(false))
        }
        return true
    }

    /// Abandons pending writes and closes acquired sockets (removal, shutdown).
    func abandon() {
        writeEpoch += 1
        requestWritePending = false
        acquiredNotify?.socket.close()
        acquiredNotify = nil
        acquiredWrite?.socket.close()
        acquiredWrite = nil
    }
}

/// The options dictionary of `ReadValue`/`WriteValue`: keys matched case-insensitively,
/// unknown keys ignored, a known key with the wrong type refused.
struct GattOptions: Equatable {
    var offset: UInt16 = 0
    var type: String?

    init(_ argument: DBusValue?) throws(DBusError) {
        guard let argument else { return }
        guard let entries = argument.dictionaryEntries else { throw BlueZErrors.invalidArguments }
        for entry in entries {
            guard let key = entry.key.stringValue?.lowercased(), let value = entry.value.variantValue else {
                throw BlueZErrors.invalidArguments
            }
            switch key {
            case "offset":
                guard case .uint16(let offset) = value else { throw BlueZErrors.invalidArguments }
                self.offset = offset
            case "type":
                guard case .string(let type) = value else { throw BlueZErrors.invalidArguments }
                self.type = type
            case "mtu":
                guard case .uint16 = value else { throw BlueZErrors.invalidArguments }
            case "device":
                guard case .objectPath = value else { throw BlueZErrors.invalidArguments }
            case "link":
                guard case .string = value else { throw BlueZErrors.invalidArguments }
            case "prepare-authorize":
                guard case .bool = value else { throw BlueZErrors.invalidArguments }
            default:
                break
            }
        }
    }
}
