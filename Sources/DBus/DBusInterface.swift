/// A named argument of a method or signal, for introspection and signature checks.
public struct DBusArgument: Hashable, Sendable {
    /// The argument's name (documentation only).
    public var name: String
    /// Its single complete type, e.g. `a{sv}`.
    public var signature: String

    /// An argument `name` of type `signature`.
    public init(_ name: String, _ signature: String) {
        self.name = name
        self.signature = signature
    }
}

/// A method an exported interface offers. ``DBusObjectTree`` routes a call to the interface's
/// handler only when the name and the input signature match (otherwise the caller gets
/// `UnknownMethod`, as from BlueZ's gdbus).
public struct DBusMethodDescription: Hashable, Sendable {
    /// The method name.
    public var name: String
    /// The input arguments.
    public var inArguments: [DBusArgument]
    /// The output arguments.
    public var outArguments: [DBusArgument]

    /// A method `name` taking `inArguments` and returning `outArguments`.
    public init(_ name: String, in inArguments: [DBusArgument] = [], out outArguments: [DBusArgument] = []) {
        self.name = name
        self.inArguments = inArguments
        self.outArguments = outArguments
    }

    /// The signature a call must have, e.g. `a{sv}` for `SetDiscoveryFilter`.
    public var inSignature: String { inArguments.map(\.signature).joined() }
}

/// A signal an exported interface emits (for introspection).
public struct DBusSignalDescription: Hashable, Sendable {
    /// The signal name.
    public var name: String
    /// Its arguments.
    public var arguments: [DBusArgument]

    /// A signal `name` carrying `arguments`.
    public init(_ name: String, _ arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// One interface of one object exported through a ``DBusObjectTree``: its methods, signals,
/// initial properties, and the Swift code behind them.
///
/// ```swift
/// var device = DBusInterface(name: "org.bluez.Device1", properties: ["Connected": .bool(false)])
/// device.methods = [DBusMethodDescription("Connect"), DBusMethodDescription("Disconnect")]
/// device.writableProperties = ["Trusted"]
/// device.methodHandler = { invocation in invocation.reply() }
/// try tree.addInterface(device, at: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")
/// ```
public struct DBusInterface {
    /// The interface name, e.g. `org.bluez.Device1`.
    public var name: String
    /// The methods; calls to others are answered `UnknownMethod` without reaching the handler.
    public var methods: [DBusMethodDescription]
    /// The signals (introspection only; emit them with ``DBusObjectTree/emitSignal(path:interface:member:body:)``).
    public var signals: [DBusSignalDescription]
    /// The initial properties, in the order `GetAll` and `InterfacesAdded` list them. Plain
    /// values (not variants). A property that does not "exist" right now is simply absent.
    public var properties: [(String, DBusValue)]
    /// Properties that `Properties.Set` may change (all others answer `PropertyReadOnly`).
    public var writableProperties: Set<String>
    /// Called for each call of one of ``methods``; must answer the invocation (now or later).
    public var methodHandler: (@MainActor (DBusMethodInvocation) -> Void)?
    /// Called by `Properties.Set` with the object path, property name and new value after the
    /// tree checked that the property is writable, exists and keeps its type. Throw a
    /// ``DBusError`` to refuse (it is the reply; any other error becomes
    /// `org.freedesktop.DBus.Error.Failed`); return to accept: the tree then stores the value,
    /// which queues a `PropertiesChanged`, and replies.
    public var propertySetHandler: (@MainActor (String, String, DBusValue) throws -> Void)?

    /// An interface `name` with initial `properties` (in order); set the other fields as needed.
    public init(name: String, properties: KeyValuePairs<String, DBusValue> = [:]) {
        self.name = name
        self.methods = []
        self.signals = []
        self.properties = properties.map { ($0.key, $0.value) }
        self.writableProperties = []
    }

    /// An interface with every field given.
    public init(
        name: String, methods: [DBusMethodDescription], signals: [DBusSignalDescription] = [],
        properties: [(String, DBusValue)], writableProperties: Set<String> = [],
        methodHandler: (@MainActor (DBusMethodInvocation) -> Void)? = nil,
        propertySetHandler: (@MainActor (String, String, DBusValue) throws -> Void)? = nil
    ) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
        self.writableProperties = writableProperties
        self.methodHandler = methodHandler
        self.propertySetHandler = propertySetHandler
    }

    /// Whether the interface has (or may have) properties; gdbus adds
    /// `org.freedesktop.DBus.Properties` to an object once it has such an interface.
    var hasProperties: Bool { !properties.isEmpty || !writableProperties.isEmpty }
}
