import DBus

/// `org.bluez.ProfileManager1` at `/org/bluez`: the external profiles clients registered
/// (bluetoothd's `src/profile.c` facts: one registration per sender and object path,
/// `AlreadyExists` for a second one, `DoesNotExist` when unregistering an unknown one,
/// `InvalidArguments` for a bad UUID or option; registrations end with their owner).
@MainActor
final class FakeProfileManager {
    /// One registered external profile.
    struct Registration: Equatable {
        /// The registering client's unique name.
        var owner: String
        /// Its `Profile1` object path.
        var path: String
        /// The profile UUID (lower-case, 128-bit).
        var uuid: String
        /// `Role` (`client`, `server` or empty).
        var role: String
    }

    /// The option names bluetoothd parses, with their D-Bus types.
    private static let optionTypes: [String: String] = [
        "Name": "s", "Service": "s", "Role": "s", "Channel": "q", "PSM": "q", "RequireAuthentication": "b",
        "RequireAuthorization": "b", "AutoConnect": "b", "ServiceRecord": "s", "Version": "q", "Features": "q",
    ]

    private(set) var registrations: [Registration] = []
    /// Called when a client's registration goes (unregistered, owner left, released).
    var onRemoved: (@MainActor (Registration) -> Void)?

    /// Answers `RegisterProfile` and `UnregisterProfile`.
    func handle(_ invocation: DBusMethodInvocation) {
        let path = invocation.body.first?.objectPathValue ?? ""
        switch invocation.member {
        case "RegisterProfile":
            guard invocation.body.count == 3, let text = invocation.body[1].stringValue,
                let uuid = BluetoothUUID.normalized(text)
            else { return invocation.fail(BlueZErrors.invalidArguments) }
            guard !registrations.contains(where: { $0.owner == invocation.sender && $0.path == path }) else {
                return invocation.fail(BlueZErrors.alreadyExists)
            }
            var role = ""
            for entry in invocation.body[2].dictionaryEntries ?? [] {
                guard let key = entry.key.stringValue else { return invocation.fail(BlueZErrors.invalidArguments) }
                let value = entry.value.unwrapped
                if let type = Self.optionTypes[key], value.typeSignature != type {
                    return invocation.fail(BlueZErrors.invalidArguments)
                }
                if key == "Role" {
                    role = value.stringValue ?? ""
                    guard role == "client" || role == "server" else {
                        return invocation.fail(BlueZErrors.invalidArguments)
                    }
                }
            }
            registrations.append(Registration(owner: invocation.sender, path: path, uuid: uuid, role: role))
            invocation.reply()
        case "UnregisterProfile":
            guard let index = registrations.firstIndex(where: { $0.owner == invocation.sender && $0.path == path })
            else { return invocation.fail(BlueZErrors.doesNotExist) }
            let removed = registrations.remove(at: index)
            invocation.reply()
            onRemoved?(removed)
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }

    /// The registration that takes connections for `uuid` (the first registered), if any.
    func registration(for uuid: String) -> Registration? {
        registrations.first { $0.uuid == uuid }
    }

    /// Whether `registration` is still registered.
    func contains(_ registration: Registration) -> Bool {
        registrations.contains(registration)
    }

    /// Drops the registrations of a client that left the bus.
    func clientLeft(_ name: String) {
        let gone = registrations.filter { $0.owner == name }
        registrations.removeAll { $0.owner == name }
        for registration in gone { onRemoved?(registration) }
    }

    /// What bluetoothd does when it exits: `Profile1.Release()` to every registered profile
    /// (no reply expected), then forgets them. Returns how many were released.
    func releaseAll(on connection: DBusConnection) -> Int {
        let all = registrations
        registrations.removeAll()
        for registration in all {
            try? connection.callWithoutReply(
                destination: registration.owner, path: registration.path, interface: "org.bluez.Profile1",
                member: "Release")
            onRemoved?(registration)
        }
        return all.count
    }
}
