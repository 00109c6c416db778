import BoardKit
import DBus
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// bluetoothd's BR/EDR errors the Classic path answers with (reference/bluez-dbus.md §3).
enum ClassicErrors {
    /// `ConnectProfile` with no connectable service for the UUID (none registered, or the
    /// device does not list it): `BREDR.ProfileUnavailable` from 5.84, `NotAvailable` before.
    static func profileUnavailable(_ version: BlueZVersion) -> DBusError {
        version.atLeast(84)
            ? DBusError(name: "org.bluez.Error.BREDR.ProfileUnavailable", message: "No more profiles to connect to")
            : DBusError(name: BlueZErrors.prefix + "NotAvailable", message: "br-connection-profile-unavailable")
    }
    /// The board does not answer the page (out of range, switched off).
    static let pageTimeout = DBusError(name: BlueZErrors.prefix + "Failed", message: "br-connection-page-timeout")
    /// The host's profile refused `NewConnection`.
    static let refused = DBusError(name: BlueZErrors.prefix + "Failed", message: "br-connection-refused")
    /// The profile is already connected.
    static let alreadyConnected = DBusError(name: BlueZErrors.prefix + "AlreadyConnected", message: "Already Connected")
    /// A bad UUID argument.
    static let invalidArgument = DBusError(
        name: BlueZErrors.prefix + "InvalidArguments", message: "br-connection-invalid-argument")
}

/// A simulated Bluetooth Classic board (the DGT Bluetooth e-Board's kind): `Device1` at
/// `/org/bluez/hciN/dev_…` with no GATT, `UUIDs` listing the Serial Port Profile, and the
/// BR/EDR profile flow: `ConnectProfile(uuid)` → a `socketpair(AF_UNIX, SOCK_STREAM)` → one
/// end to the registered `Profile1.NewConnection(device, fd, {})` → `Connected=true` → the
/// reply; the other end is the board, driven by its ``SerialBoardPersonality``.
@MainActor
final class FakeClassicDevice {
    static let serialPortUUID = "00001101-0000-1000-8000-00805f9b34fb"

    unowned let sim: FakeBlueZ
    let id: String
    let address: String
    let name: String
    let adapterPath: String
    let path: String
    let personality: any SerialBoardPersonality
    /// Whether the board answers pages (a board switched off or out of range does not).
    var isPresent = true
    /// The profile connection, while up.
    private(set) var socket: AcquiredSocket?
    private(set) var profile: FakeProfileManager.Registration?
    private var connecting = false
    /// Completed `ConnectProfile`s and `RequestDisconnection` calls made, for the tests.
    private(set) var connectCount = 0
    private(set) var requestDisconnectionCount = 0

    init(
        sim: FakeBlueZ, id: String, address: String, name: String, adapterPath: String,
        personality: any SerialBoardPersonality
    ) {
        self.sim = sim
        self.id = id
        self.address = address
        self.name = name
        self.adapterPath = adapterPath
        self.path = adapterPath + "/" + BluetoothAddress.pathElement(address)
        self.personality = personality
    }

    var isConnected: Bool { socket != nil }

    /// Exports `Device1` (a paired, trusted BR/EDR device, as after `bluetoothctl pair`).
    func export() throws(DBusError) {
        var properties: [(String, DBusValue)] = [
            ("Address", .string(address)), ("AddressType", .string("public")), ("Name", .string(name)),
            ("Alias", .string(name)), ("Class", .uint32(0x1F00)), ("Paired", .bool(true)),
        ]
        if sim.version.atLeast(65) { properties.append(("Bonded", .bool(true))) }
        properties += [
            ("Trusted", .bool(true)), ("Blocked", .bool(false)), ("LegacyPairing", .bool(false)),
            ("Connected", .bool(false)), ("UUIDs", .strings([Self.serialPortUUID])),
            ("Adapter", .objectPath(adapterPath)), ("ServicesResolved", .bool(false)),
        ]
        let interface = DBusInterface(
            name: FakeDevice.interface,
            methods: [
                DBusMethodDescription("Connect"), DBusMethodDescription("Disconnect"),
                DBusMethodDescription("ConnectProfile", in: [DBusArgument("UUID", "s")]),
                DBusMethodDescription("DisconnectProfile", in: [DBusArgument("UUID", "s")]),
                DBusMethodDescription("Pair"), DBusMethodDescription("CancelPairing"),
            ],
            properties: properties, writableProperties: ["Alias", "Trusted", "Blocked"],
            methodHandler: { [weak self] invocation in self?.handle(invocation) })
        try sim.tree.addInterface(interface, at: path)
    }

    /// Removes the device object (the link drops first).
    func remove() {
        drop(reason: "removed")
        sim.tree.removeObject(at: path)
    }

    private func set(_ property: String, _ value: DBusValue) {
        sim.tree.setProperty(property, interface: FakeDevice.interface, path: path, to: value)
    }

    private func handle(_ invocation: DBusMethodInvocation) {
        switch invocation.member {
        case "ConnectProfile", "Connect":
            let uuid = invocation.member == "Connect" ? Self.serialPortUUID : invocation.body.first?.stringValue ?? ""
            connectProfile(uuid, invocation)
        case "DisconnectProfile", "Disconnect":
            if invocation.member == "DisconnectProfile" {
                guard let uuid = BluetoothUUID.normalized(invocation.body.first?.stringValue ?? "") else {
                    return invocation.fail(ClassicErrors.invalidArgument)
                }
                guard uuid == Self.serialPortUUID else { return invocation.fail(BlueZErrors.invalidArguments) }
                guard isConnected else { return invocation.fail(BlueZErrors.notConnected) }
            }
            requestDisconnection { invocation.reply() }
        case "Pair": invocation.fail(BlueZErrors.alreadyExists)
        case "CancelPairing": invocation.fail(BlueZErrors.doesNotExist)
        default: invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    private func connectProfile(_ text: String, _ invocation: DBusMethodInvocation) {
        guard let uuid = BluetoothUUID.normalized(text) else { return invocation.fail(ClassicErrors.invalidArgument) }
        guard !connecting else { return invocation.fail(BlueZErrors.inProgress) }
        guard uuid == Self.serialPortUUID, let profile = sim.classic.profiles.registration(for: uuid) else {
            return invocation.fail(ClassicErrors.profileUnavailable(sim.version))
        }
        guard !isConnected else { return invocation.fail(ClassicErrors.alreadyConnected) }
        connecting = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            let delay = self.sim.behavior.connectDelay
            if delay > 0 { try? await Task.sleep(for: .milliseconds(Int64(delay * 1000))) }
            let result = await self.openConnection(to: profile)
            self.connecting = false
            switch result {
            case .success: invocation.reply()
            case .failure(let error): invocation.fail(error)
            }
        }
    }

    /// Pages the board, makes the socket pair and hands the host's end to `NewConnection`.
    private func openConnection(to profile: FakeProfileManager.Registration) async -> Result<Void, DBusError> {
        guard isPresent else { return .failure(ClassicErrors.pageTimeout) }
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM | SOCK_CLOEXEC
        #endif
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { return .failure(BlueZErrors.ioError) }
        let (ours, theirs) = (descriptors[0], descriptors[1])
        _ = fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK)
        do throws(DBusError) {
            _ = try await sim.connection.call(
                destination: profile.owner, path: profile.path, interface: "org.bluez.Profile1",
                member: "NewConnection", body: [.objectPath(path), .unixFD(theirs), .dictionary("s", "v", [])],
                timeout: .seconds(25))
        } catch {
            SystemCalls.close(ours)
            SystemCalls.close(theirs)
            sim.log("classic board \(id): NewConnection refused by \(profile.owner): \(error)")
            return .failure(ClassicErrors.refused)
        }
        SystemCalls.close(theirs)
        guard sim.classic.profiles.contains(profile), isPresent else {
            SystemCalls.close(ours)
            return .failure(ClassicErrors.pageTimeout)
        }
        self.profile = profile
        socket = AcquiredSocket(
            descriptor: ours,
            onDatagram: { [weak self] bytes in self?.personality.received(Data(bytes)) },
            onClose: { [weak self] in self?.linkEnded(reason: "closed by the host") })
        connectCount += 1
        set("Connected", .bool(true))
        sim.log("classic board \(id): RFCOMM link up to \(profile.owner) \(profile.path)")
        personality.linkOpened { [weak self] bytes in self?.sendToHost(bytes) }
        return .success(())
    }

    /// Writes `bytes` to the host; `false` without a link.
    @discardableResult
    func sendToHost(_ bytes: Data) -> Bool {
        socket?.send(Array(bytes)) == .sent
    }

    /// bluetoothd disconnecting the profile itself (`DisconnectProfile`, `Disconnect`, the
    /// sim's request): `Profile1.RequestDisconnection(device)` first, then the link closes.
    func requestDisconnection(then done: @escaping @MainActor () -> Void = {}) {
        guard isConnected, let profile else { return done() }
        requestDisconnectionCount += 1
        Task { @MainActor [weak self] in
            guard let self else { return }
            _ = try? await self.sim.connection.call(
                destination: profile.owner, path: profile.path, interface: "org.bluez.Profile1",
                member: "RequestDisconnection", body: [.objectPath(self.path)], timeout: .seconds(5))
            self.drop(reason: "disconnected by bluetoothd")
            done()
        }
    }

    /// The link drops (the board went away): our end closes, the host reads EOF.
    func drop(reason: String) {
        guard let socket else { return }
        socket.close()
        linkEnded(reason: reason)
    }

    private func linkEnded(reason: String) {
        guard socket != nil else { return }
        socket?.close()
        socket = nil
        profile = nil
        set("Connected", .bool(false))
        personality.linkClosed()
        sim.log("classic board \(id): RFCOMM link down (\(reason))")
    }

    /// Its profile's registration went (unregistered, owner left, released): the link drops.
    func profileRemoved(_ registration: FakeProfileManager.Registration) {
        if profile == registration { drop(reason: "profile unregistered") }
    }
}
