/// A bus match rule (D-Bus specification, "Match Rules"), used twice: sent to the bus with
/// `AddMatch` so that it routes matching signals to this connection, and applied locally to
/// decide which handler gets which signal.
///
/// `nil` fields match anything. Add rules before the initial `GetManagedObjects` so that no
/// change is missed (the bus applies them in the order it receives the calls).
public struct DBusMatchRule: Hashable, Sendable {
    /// The message type; signals unless set otherwise.
    public var kind: DBusMessage.Kind?
    /// The sender: a unique name (`:1.7`) or a well-known name (`org.bluez`), which the bus
    /// resolves to its current owner (this connection tracks that owner for local matching).
    public var sender: String?
    /// The interface.
    public var interface: String?
    /// The member (signal name).
    public var member: String?
    /// The exact object path.
    public var path: String?
    /// An object path and everything below it (`/org/bluez` matches `/org/bluez/hci0/…`).
    public var pathNamespace: String?
    /// The destination (for unicast signals).
    public var destination: String?
    /// The first argument, which must be a string equal to this (NameOwnerChanged's name).
    public var arg0: String?

    /// A rule from its fields; by default it matches every signal.
    public init(
        kind: DBusMessage.Kind? = .signal, sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, pathNamespace: String? = nil, destination: String? = nil, arg0: String? = nil
    ) {
        self.kind = kind
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.destination = destination
        self.arg0 = arg0
    }

    /// The rule as the bus reads it: `type='signal',sender='org.bluez',…`.
    public var ruleString: String {
        var parts: [String] = []
        if let kind {
            let name: String
            switch kind {
            case .methodCall: name = "method_call"
            case .methodReturn: name = "method_return"
            case .error: name = "error"
            case .signal: name = "signal"
            }
            parts.append("type='\(name)'")
        }
        let fields: [(String, String?)] = [
            ("sender", sender), ("interface", interface), ("member", member), ("path", path),
            ("path_namespace", pathNamespace), ("destination", destination), ("arg0", arg0),
        ]
        for (key, value) in fields {
            guard let value else { continue }
            parts.append("\(key)=\(Self.quote(value))")
        }
        return parts.joined(separator: ",")
    }

    /// Whether `message` matches every field except `sender` when that is a well-known name
    /// (whose owner only the connection knows; see ``DBusConnection``).
    func matchesIgnoringWellKnownSender(_ message: DBusMessageHandle) -> Bool {
        if let kind, message.kind != kind { return false }
        if let sender, sender.hasPrefix(":") || sender == DBusStandard.busName, message.sender != sender {
            return false
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            let messagePath = message.path
            let inside =
                pathNamespace == "/" || messagePath == pathNamespace || messagePath.hasPrefix(pathNamespace + "/")
            if !inside { return false }
        }
        if let destination, message.destination != destination { return false }
        if let arg0, message.firstStringArgument != arg0 { return false }
        return true
    }

    /// The sender when it is a well-known name other than the bus's own.
    var wellKnownSender: String? {
        guard let sender, !sender.hasPrefix(":"), sender != DBusStandard.busName else { return nil }
        return sender
    }

    /// Checks the fields' syntax (the bus would reject the rule; locally it could never match).
    func validate() throws(DBusError) {
        func invalid(_ what: String) -> DBusError {
            DBusError(name: DBusError.Name.matchRuleInvalid, message: "Invalid \(what) in match rule")
        }
        if let sender, !DBusNames.isValidBusName(sender) { throw invalid("sender '\(sender)'") }
        if let interface, !DBusNames.isValidInterfaceName(interface) { throw invalid("interface '\(interface)'") }
        if let member, !DBusNames.isValidMemberName(member) { throw invalid("member '\(member)'") }
        if let path, !DBusNames.isValidObjectPath(path) { throw invalid("path '\(path)'") }
        if let pathNamespace, !DBusNames.isValidObjectPath(pathNamespace) {
            throw invalid("path_namespace '\(pathNamespace)'")
        }
        if let destination, !DBusNames.isValidBusName(destination) { throw invalid("destination '\(destination)'") }
        if let arg0, arg0.utf8.contains(0) { throw invalid("arg0") }
    }

    /// Quotes a value: inside '…' everything is literal; an apostrophe is written as '\''.
    private static func quote(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

extension DBusMatchRule {
    /// `NameOwnerChanged` from the bus for `name` (arguments: name, old owner, new owner;
    /// empty strings for "none").
    public static func nameOwnerChanged(_ name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: DBusStandard.busName, interface: DBusStandard.busInterface, member: "NameOwnerChanged",
            path: DBusStandard.busPath, arg0: name)
    }

    /// `PropertiesChanged` from `sender` on objects at or below `pathNamespace`.
    public static func propertiesChanged(sender: String?, pathNamespace: String? = nil) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.propertiesInterface, member: "PropertiesChanged",
            pathNamespace: pathNamespace)
    }

    /// `InterfacesAdded` from `sender`'s object manager at `managerPath`.
    public static func interfacesAdded(sender: String?, managerPath: String = "/") -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.objectManagerInterface, member: "InterfacesAdded",
            path: managerPath)
    }

    /// `InterfacesRemoved` from `sender`'s object manager at `managerPath`.
    public static func interfacesRemoved(sender: String?, managerPath: String = "/") -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandard.objectManagerInterface, member: "InterfacesRemoved",
            path: managerPath)
    }
}
