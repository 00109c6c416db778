public import DBus
import SystemCalls

/// The bridge's `org.bluez.Profile1` object for the Serial Port Profile (Bluetooth Classic
/// RFCOMM), shared by every ``BlueZRFCOMMTransport`` of one ``BlueZManager``.
///
/// ``register()`` exports the object on the manager's connection and calls
/// `ProfileManager1.RegisterProfile(path, SPP, {Role: client, AutoConnect: false, Name})`
/// (BlueZ `doc/org.bluez.ProfileManager.rst`); it does so again whenever the connection or
/// `org.bluez`'s owner changed, or after BlueZ called `Release()`. BlueZ then calls back:
/// - `NewConnection(o device, h fd, a{sv} properties)` once `Device1.ConnectProfile` made the
///   RFCOMM link: the fd goes to the transport attached for that device (it owns it);
///   without one the call is refused (`org.bluez.Error.Rejected`) and the fd closed;
/// - `RequestDisconnection(o device)`: the device's transport closes its link;
/// - `Release()`: the profile is no longer registered; every attached transport is told.
@MainActor
public final class BlueZSerialProfile {
    /// The Serial Port Profile's UUID.
    public nonisolated static let serialPortUUID = "00001101-0000-1000-8000-00805f9b34fb"
    /// The Profile1 interface name.
    public nonisolated static let interface = "org.bluez.Profile1"

    /// What a transport attached for one device is told.
    struct Handler {
        /// A new connection's socket (owned by the receiver); `false` refuses it.
        var connection: @MainActor (Int32) -> Bool
        /// BlueZ asks to close the link, or released the profile (the `String` says which).
        var disconnect: @MainActor (String) -> Void
    }

    /// The manager whose connection carries the profile.
    public let manager: BlueZManager
    /// The object path exported.
    public let path: String
    private weak var exportedOn: DBusConnection?
    private var registeredOn: ObjectIdentifier?
    private var registeredOwner: String?
    private var handlers: [String: Handler] = [:]

    /// A profile for `manager`'s connection at `path`. Nothing happens until ``register()``.
    public init(manager: BlueZManager, path: String = "/org/boardbridge/profile/serial") {
        self.manager = manager
        self.path = path
    }

    /// Whether BlueZ currently has the profile registered (as far as the bridge knows).
    public var isRegistered: Bool {
        guard let connection = manager.connection, let registeredOn else { return false }
        return registeredOn == ObjectIdentifier(connection) && registeredOwner == manager.bluezOwner
    }

    /// Exports the object (once per connection) and registers the profile unless BlueZ has it.
    ///
    /// - Throws: BlueZ's error (`InvalidArguments`, …), or ``DBusError/Name/disconnected``.
    public func register() async throws(DBusError) {
        guard !isRegistered else { return }
        guard let connection = manager.connection, connection.isConnected else {
            throw DBusError(name: DBusError.Name.disconnected, message: "Not connected to the D-Bus bus")
        }
        if exportedOn !== connection {
            try connection.registerObject(at: path) { [weak self] invocation in
                guard let self else { return invocation.fail(DBusError.noSuchMethod(invocation.message)) }
                self.handle(invocation)
            }
            exportedOn = connection
        }
        let options: [(String, DBusValue)] = [
            ("Name", .string("BoardBridge serial port")), ("Role", .string("client")),
            ("AutoConnect", .bool(false)),
        ]
        do throws(DBusError) {
            _ = try await manager.call(
                path: BlueZNames.root, interface: "org.bluez.ProfileManager1", member: "RegisterProfile",
                body: [.objectPath(path), .string(Self.serialPortUUID), .propertyDictionary(options)])
        } catch  where error.name == "org.bluez.Error.AlreadyExists" {
            // Registered already by this connection (a lost reply): fine.
        }
        registeredOn = ObjectIdentifier(connection)
        registeredOwner = manager.bluezOwner
        manager.logger.info("registered the serial port profile at \(path)")
    }

    /// `ProfileManager1.UnregisterProfile` (best effort), for a clean shutdown.
    public func unregister() async {
        guard isRegistered else { return }
        registeredOn = nil
        _ = try? await manager.call(
            path: BlueZNames.root, interface: "org.bluez.ProfileManager1", member: "UnregisterProfile",
            body: [.objectPath(path)])
    }

    func attach(devicePath: String, _ handler: Handler) {
        handlers[devicePath] = handler
    }

    func detach(devicePath: String) {
        handlers[devicePath] = nil
    }

    private func handle(_ invocation: DBusMethodInvocation) {
        guard invocation.interface.isEmpty || invocation.interface == Self.interface else {
            return invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
        let device = invocation.body.first?.objectPathValue ?? ""
        switch (invocation.member, DBusValue.signature(of: invocation.body)) {
        case ("NewConnection", "oha{sv}"):
            guard let descriptor = invocation.body[1].unixFDValue, descriptor >= 0 else {
                return invocation.fail(DBusError(name: "org.bluez.Error.InvalidArguments", message: "No fd"))
            }
            guard let handler = handlers[device], handler.connection(descriptor) else {
                FileDescriptor(rawValue: descriptor).close()
                manager.logger.warning("refused an RFCOMM connection from \(device): no transport waits for it")
                return invocation.fail(
                    DBusError(name: "org.bluez.Error.Rejected", message: "No transport for \(device)"))
            }
            invocation.reply()
        case ("RequestDisconnection", "o"):
            invocation.reply()
            handlers[device]?.disconnect("BlueZ requested the disconnection")
        case ("Release", ""):
            registeredOn = nil
            invocation.reply()
            manager.logger.warning("BlueZ released the serial port profile")
            for handler in handlers.values { handler.disconnect("BlueZ released the profile") }
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }
}
