import Dispatch

/// An exported object tree with an `org.freedesktop.DBus.ObjectManager` at its root, in the
/// style of BlueZ's gdbus (reference/bluez-dbus.md §1): the fake BlueZ builds on it.
///
/// What it answers (for every path at or below ``rootPath``; it registers a fallback there):
/// - `ObjectManager.GetManagedObjects` on the root: every object below it with every
///   interface and its properties (`a{oa{sa{sv}}}`);
/// - `Properties.Get` / `GetAll` / `Set`, with gdbus's errors (`InvalidArgs` "No such
///   interface 'X'" / "No such property 'X'", `UnknownProperty`, `PropertyReadOnly` "Property
///   'X' is not writable", `InvalidSignature` "Invalid signature for 'X'");
/// - `Introspectable.Introspect` on objects, the root and the paths between them;
/// - declared methods of exported interfaces, passed to their ``DBusInterface/methodHandler``;
///   anything else gets libdbus's `UnknownMethod` text, and paths without an object
///   `UnknownObject`.
///
/// What it emits, like gdbus:
/// - Changes are queued and sent together from a main-queue callback ("idle"), or earlier
///   when anything else is sent on the connection (a reply, a signal, a call): so signals
///   describing a state change always precede the reply that completes the operation.
/// - Per object, in this order: `InterfacesAdded` (one signal with every interface added
///   since the last flush; a parent's pending one first), `PropertiesChanged` (one signal per
///   interface with every property changed since, read at send time; properties that no
///   longer exist go into the invalidated list), `InterfacesRemoved`.
/// - No `PropertiesChanged` for an interface that has not been announced yet; an interface
///   removed before it was announced produces no signal at all.
/// - ``setProperty(_:interface:path:to:flush:)`` with `flush: true` sends at once, so each
///   GATT notification (`Value`) is its own signal.
/// - With ``includesStandardInterfaces`` (default), objects list
///   `org.freedesktop.DBus.Introspectable` first and `org.freedesktop.DBus.Properties` after
///   the first interface that has properties, both with empty dictionaries (as BlueZ does);
///   when the last interface of an object goes, `InterfacesRemoved` is sent at once and names
///   them too.
@MainActor
public final class DBusObjectTree {
    /// The connection the tree is exported on.
    public let connection: DBusConnection
    /// The ObjectManager's path (BlueZ: `/`). Objects live strictly below it.
    public let rootPath: String
    /// Whether objects list the Introspectable and Properties interfaces (gdbus does).
    public let includesStandardInterfaces: Bool

    var nodes: [String: DBusTreeNode] = [:]
    var nodeOrder: [String] = []
    var pendingNodes: [String] = []
    private var flushScheduled = false
    var isFlushing = false
    private var isAttached = true

    /// Exports an empty tree: registers a fallback handler at `rootPath` and hooks into the
    /// connection so that queued signals go out before any other message.
    ///
    /// - Throws: ``DBusError/Name/objectPathInUse`` when `rootPath` is already registered.
    public init(
        connection: DBusConnection, rootPath: String = "/", includesStandardInterfaces: Bool = true
    )
        throws(DBusError)
    {
        guard DBusNames.isValidObjectPath(rootPath) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid object path '\(rootPath)'")
        }
        self.connection = connection
        self.rootPath = rootPath
        self.includesStandardInterfaces = includesStandardInterfaces
        try connection.registerObject(at: rootPath, subtree: true) { [weak self] invocation in
            guard let self else {
                invocation.fail(DBusError.noSuchMethod(invocation.message, name: DBusError.Name.unknownObject))
                return
            }
            self.handle(invocation)
        }
        connection.addSendHook(for: self) { [weak self] in self?.flush() }
    }

    isolated deinit {
        detach()
    }

    /// Stops exporting: unregisters the root handler and the send hook. Pending signals are
    /// dropped. Idempotent (also done when the tree is released).
    public func detach() {
        guard isAttached else { return }
        isAttached = false
        connection.unregisterObject(at: rootPath)
        connection.removeSendHook(for: self)
    }

    // MARK: Objects

    /// The paths of all objects, in the order they were created.
    public var objectPaths: [String] { nodeOrder }

    /// The interfaces of the object at `path` in their announced order (standard ones
    /// included), or `[]` when there is none.
    public func interfaceNames(at path: String) -> [String] {
        nodes[path]?.interfaces.map(\.name) ?? []
    }

    /// Exports `interface` on the object at `path` (creating the object). Announced with the
    /// next flush, together with every other interface added to that object meanwhile.
    ///
    /// - Throws: ``DBusError/Name/invalidArgs`` for a path not below ``rootPath``, an invalid
    ///   or standard interface name, an interface the object already has, or a property value
    ///   that fails ``DBusValue/validate()``.
    public func addInterface(_ interface: DBusInterface, at path: String) throws(DBusError) {
        guard DBusNames.isValidObjectPath(path), isBelowRoot(path) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Path '\(path)' is not below \(rootPath)")
        }
        guard DBusNames.isValidInterfaceName(interface.name), !DBusTreeInterface.isStandard(interface.name) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Cannot export interface '\(interface.name)'")
        }
        for (name, value) in interface.properties {
            do throws(DBusError) {
                try value.validate()
            } catch {
                throw DBusError(name: error.name, message: "Property '\(name)': \(error.message)")
            }
        }
        let node: DBusTreeNode
        if let existing = nodes[path] {
            guard existing.interface(named: interface.name) == nil else {
                throw DBusError(
                    name: DBusError.Name.invalidArgs, message: "'\(interface.name)' is already exported at \(path)")
            }
            node = existing
        } else {
            node = DBusTreeNode(path: path)
            nodes[path] = node
            nodeOrder.append(path)
            if includesStandardInterfaces {
                node.add(DBusTreeInterface(standard: DBusStandard.introspectableInterface))
            }
        }
        node.add(DBusTreeInterface(definition: interface))
        if includesStandardInterfaces && interface.hasProperties
            && node.interface(named: DBusStandard.propertiesInterface) == nil
        {
            node.add(DBusTreeInterface(standard: DBusStandard.propertiesInterface))
        }
        markPending(node)
    }

    /// Removes one interface from the object at `path`. Its pending property changes are sent
    /// first; `InterfacesRemoved` follows with the next flush, or at once when this was the
    /// object's last interface (the object then disappears). Returns whether it was there.
    @discardableResult
    public func removeInterface(_ name: String, at path: String) -> Bool {
        guard let node = nodes[path], let interface = node.interface(named: name), !interface.isStandard else {
            return false
        }
        if !interface.pendingChanges.isEmpty && !node.added.contains(name) {
            withoutSendHook { emitPropertiesChanged(node, interface) }
        }
        node.remove(name)
        guard node.interfaces.contains(where: { !$0.isStandard }) else {
            tearDown(node)
            return true
        }
        markPending(node)
        return true
    }

    /// Removes every interface of the object at `path` (in reverse order of addition), and
    /// with `includingDescendants` every object below it first, deepest first.
    public func removeObject(at path: String, includingDescendants: Bool = false) {
        if includingDescendants {
            let prefix = path == "/" ? "/" : path + "/"
            let descendants = nodeOrder.filter { $0.hasPrefix(prefix) && $0 != path }
            let deepestFirst = descendants.reversed().sorted { depth(of: $0) > depth(of: $1) }
            for descendant in deepestFirst { removeObject(at: descendant) }
        }
        guard let node = nodes[path] else { return }
        for interface in node.interfaces.reversed() where !interface.isStandard {
            removeInterface(interface.name, at: path)
        }
    }

    // MARK: Properties

    /// The current value of a property, or `nil` when the object, interface or property does
    /// not exist.
    public func property(_ name: String, interface: String, path: String) -> DBusValue? {
        nodes[path]?.interface(named: interface)?.values[name]
    }

    /// The current properties of an interface in order, or `nil` when it is not exported.
    public func properties(interface: String, path: String) -> [(String, DBusValue)]? {
        nodes[path]?.interface(named: interface)?.orderedProperties
    }

    /// Sets (or, with `nil`, removes) a property and queues `PropertiesChanged` for it (even
    /// when the value did not change, like a repeated GATT notification). A removed property is
    /// reported as invalidated. With `flush`, everything queued is sent now.
    ///
    /// With `signals: false` nothing is queued: the new value (or its absence) is only seen
    /// by later `Get`/`GetAll`/`GetManagedObjects` (a gdbus property whose exists test
    /// changed without an emit, e.g. BlueZ's `MTU` across a reconnect).
    ///
    /// Returns `false` (and changes nothing) when the object or interface does not exist or
    /// the value fails ``DBusValue/validate()``.
    @discardableResult
    public func setProperty(
        _ name: String, interface: String, path: String, to value: DBusValue?, flush: Bool = false,
        signals: Bool = true
    )
        -> Bool
    {
        guard let node = nodes[path], let exported = node.interface(named: interface), !exported.isStandard else {
            return false
        }
        if let value {
            guard (try? value.validate()) != nil else { return false }
        }
        exported.set(name, value)
        if signals && !node.added.contains(interface) {
            if !exported.pendingChanges.contains(name) { exported.pendingChanges.append(name) }
            node.hasPendingProperties = true
            markPending(node)
        }
        if flush { self.flush() }
        return true
    }

    // MARK: Signals

    /// Emits a signal from an object (pending changes go first, as for any message).
    public func emitSignal(
        path: String, interface: String, member: String, body: [DBusValue] = []
    )
        throws(DBusError)
    {
        try connection.emitSignal(path: path, interface: interface, member: member, body: body)
    }

    /// Sends everything queued now: per object in the order they first changed,
    /// `InterfacesAdded`, `PropertiesChanged`, `InterfacesRemoved`.
    public func flush() {
        guard !isFlushing else { return }
        isFlushing = true
        defer { isFlushing = false }
        while let path = pendingNodes.first {
            pendingNodes.removeFirst()
            if let node = nodes[path] { processChanges(node) }
        }
    }

    func markPending(_ node: DBusTreeNode) {
        if !pendingNodes.contains(node.path) { pendingNodes.append(node.path) }
        guard !flushScheduled else { return }
        flushScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.flushScheduled = false
                self.flush()
            }
        }
    }

    func isBelowRoot(_ path: String) -> Bool {
        rootPath == "/" ? path != "/" : path.hasPrefix(rootPath + "/")
    }

    func depth(of path: String) -> Int {
        path.utf8.filter { $0 == UInt8(ascii: "/") }.count
    }
}
