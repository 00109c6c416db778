/// Calls to the bus daemon and the standard interfaces of remote objects.
extension DBusConnection {
    /// Asks the bus for `name` (`RequestName`).
    ///
    /// - Returns: how it went; the connection owns the name when this is
    ///   ``DBusRequestNameReply/primaryOwner`` or ``DBusRequestNameReply/alreadyOwner``.
    /// - Throws: the bus's error (e.g. `…Error.AccessDenied` from its policy).
    public func requestName(
        _ name: String, flags: DBusRequestNameFlags = []
    ) async throws(DBusError)
        -> DBusRequestNameReply
    {
        try checkBusName(name)
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags.rawValue)])
        guard let code = reply.first?.uint32Value, let result = DBusRequestNameReply(rawValue: code) else {
            throw DBusError(name: DBusError.Name.inconsistentMessage, message: "Unexpected RequestName reply")
        }
        return result
    }

    /// Gives up `name` (`ReleaseName`).
    public func releaseName(_ name: String) async throws(DBusError) -> DBusReleaseNameReply {
        try checkBusName(name)
        let reply = try await callBus("ReleaseName", [.string(name)])
        guard let code = reply.first?.uint32Value, let result = DBusReleaseNameReply(rawValue: code) else {
            throw DBusError(name: DBusError.Name.inconsistentMessage, message: "Unexpected ReleaseName reply")
        }
        return result
    }

    /// The unique name owning `name` (`GetNameOwner`), or `nil` when nobody owns it.
    public func nameOwner(of name: String) async throws(DBusError) -> String? {
        try checkBusName(name)
        do throws(DBusError) {
            return try await callBus("GetNameOwner", [.string(name)]).first?.stringValue
        } catch  where error.name == DBusError.Name.nameHasNoOwner {
            return nil
        }
    }

    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects` of `destination`'s manager at
    /// `path`: object path → interface → property → value (variants removed).
    ///
    /// - Throws: the peer's error, or ``DBusError/Name/invalidSignature`` when the reply is not
    ///   an `a{oa{sa{sv}}}`.
    public func managedObjects(
        destination: String, path: String = "/"
    ) async throws(DBusError)
        -> [String: [String: [String: DBusValue]]]
    {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.objectManagerInterface,
            member: "GetManagedObjects")
        guard reply.count == 1, let objects = reply[0].managedObjectsValue else {
            throw unexpectedReply("a{oa{sa{sv}}}", reply)
        }
        return objects
    }

    /// `org.freedesktop.DBus.Properties.Get`: one property's value (variant removed).
    public func property(
        _ name: String, interface: String, path: String, destination: String
    ) async throws(DBusError)
        -> DBusValue
    {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "Get",
            body: [.string(interface), .string(name)])
        guard reply.count == 1, let value = reply[0].variantValue else { throw unexpectedReply("v", reply) }
        return value
    }

    /// `org.freedesktop.DBus.Properties.GetAll`: every property of `interface` (variants
    /// removed).
    public func allProperties(
        interface: String, path: String, destination: String
    ) async throws(DBusError)
        -> [String: DBusValue]
    {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "GetAll",
            body: [.string(interface)])
        guard reply.count == 1, let properties = reply[0].stringDictionaryValue else {
            throw unexpectedReply("a{sv}", reply)
        }
        return properties
    }

    /// `org.freedesktop.DBus.Properties.Set` (`value` is wrapped in a variant).
    public func setProperty(
        _ name: String, to value: DBusValue, interface: String, path: String, destination: String
    ) async throws(DBusError) {
        _ = try await call(
            destination: destination, path: path, interface: DBusStandard.propertiesInterface, member: "Set",
            body: [.string(interface), .string(name), .variant(value)])
    }

    private func callBus(_ member: String, _ body: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: member, body: body)
    }

    private func checkBusName(_ name: String) throws(DBusError) {
        guard DBusNames.isValidBusName(name) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid bus name '\(name)'")
        }
    }

    private func unexpectedReply(_ expected: String, _ reply: [DBusValue]) -> DBusError {
        DBusError(
            name: DBusError.Name.invalidSignature,
            message: "Expected a reply of type '\(expected)', got '\(DBusValue.signature(of: reply))'")
    }
}

/// Flags of `RequestName`.
public struct DBusRequestNameFlags: OptionSet, Hashable, Sendable {
    /// The raw `u` value sent to the bus.
    public let rawValue: UInt32

    /// Flags from their raw value.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Let another connection that asks with ``replaceExisting`` take the name over.
    public static let allowReplacement = DBusRequestNameFlags(rawValue: 1)
    /// Take the name over from an owner that allowed replacement.
    public static let replaceExisting = DBusRequestNameFlags(rawValue: 2)
    /// Fail instead of waiting in the queue when the name is taken (what BlueZ does).
    public static let doNotQueue = DBusRequestNameFlags(rawValue: 4)
}

/// The answer to `RequestName`.
public enum DBusRequestNameReply: UInt32, Hashable, Sendable {
    /// The connection now owns the name.
    case primaryOwner = 1
    /// The name is taken; the connection waits in its queue.
    case inQueue = 2
    /// The name is taken and the connection did not queue (``DBusRequestNameFlags/doNotQueue``).
    case exists = 3
    /// The connection already owned the name.
    case alreadyOwner = 4
}

/// The answer to `ReleaseName`.
public enum DBusReleaseNameReply: UInt32, Hashable, Sendable {
    /// The name was released.
    case released = 1
    /// Nobody owned the name.
    case nonExistent = 2
    /// Another connection owns the name.
    case notOwner = 3
}
