/// Emitting the ObjectManager and Properties signals of a ``DBusObjectTree``.
extension DBusObjectTree {
    /// Sends one object's pending signals: added, properties, removed (gdbus's order).
    func processChanges(_ node: DBusTreeNode) {
        pendingNodes.removeAll { $0 == node.path }
        if !node.added.isEmpty { emitInterfacesAdded(node) }
        if node.hasPendingProperties {
            node.hasPendingProperties = false
            for interface in node.interfaces where !interface.pendingChanges.isEmpty {
                emitPropertiesChanged(node, interface)
            }
        }
        if !node.removed.isEmpty { emitInterfacesRemoved(node) }
    }

    /// The last interface of `node` is gone: drop the standard ones too and send what is
    /// pending at once (the object is unregistered, as in gdbus).
    func tearDown(_ node: DBusTreeNode) {
        for name in [DBusStandard.introspectableInterface, DBusStandard.propertiesInterface]
        where node.interface(named: name) != nil {
            node.remove(name)
        }
        nodes[node.path] = nil
        nodeOrder.removeAll { $0 == node.path }
        withoutSendHook { processChanges(node) }
    }

    /// `InterfacesAdded(o, a{sa{sv}})` from the root, after the nearest ancestor's pending one.
    func emitInterfacesAdded(_ node: DBusTreeNode) {
        if let parent = nearestAncestor(of: node.path), !parent.added.isEmpty {
            emitInterfacesAdded(parent)
        }
        let interfaces = node.added.compactMap { name in node.interface(named: name) }
        node.added.removeAll()
        for interface in interfaces { interface.pendingChanges.removeAll() }
        let body: [DBusValue] = [
            .objectPath(node.path),
            .dictionary(
                "s", "a{sv}",
                interfaces.map { DBusDictEntry(key: .string($0.name), value: $0.propertyDictionary) }),
        ]
        send(member: "InterfacesAdded", interface: DBusStandard.objectManagerInterface, path: rootPath, body: body)
    }

    /// `PropertiesChanged(s, a{sv}, as)` for one interface: the pending names that exist now,
    /// then those that no longer do.
    func emitPropertiesChanged(_ node: DBusTreeNode, _ interface: DBusTreeInterface) {
        let names = interface.pendingChanges
        interface.pendingChanges.removeAll()
        var changed: [DBusDictEntry] = []
        var invalidated: [DBusValue] = []
        for name in names {
            if let value = interface.values[name] {
                changed.append(DBusDictEntry(key: .string(name), value: .variant(value)))
            } else {
                invalidated.append(.string(name))
            }
        }
        let body: [DBusValue] = [
            .string(interface.name), .dictionary("s", "v", changed), .array("s", invalidated),
        ]
        send(member: "PropertiesChanged", interface: DBusStandard.propertiesInterface, path: node.path, body: body)
    }

    /// `InterfacesRemoved(o, as)` from the root.
    func emitInterfacesRemoved(_ node: DBusTreeNode) {
        let names = node.removed
        node.removed.removeAll()
        send(
            member: "InterfacesRemoved", interface: DBusStandard.objectManagerInterface, path: rootPath,
            body: [.objectPath(node.path), .strings(names)])
    }

    /// Runs `body` without this tree's send hook (its own signals must not flush the rest).
    func withoutSendHook(_ body: () -> Void) {
        let wasFlushing = isFlushing
        isFlushing = true
        defer { isFlushing = wasFlushing }
        body()
    }

    func nearestAncestor(of path: String) -> DBusTreeNode? {
        var current = Substring(path)
        while let slash = current.lastIndex(of: "/"), slash != current.startIndex {
            current = current[..<slash]
            if let node = nodes[String(current)] { return node }
        }
        return nil
    }

    private func send(member: String, interface: String, path: String, body: [DBusValue]) {
        guard connection.isConnected else { return }
        withoutSendHook {
            try? connection.emitSignal(path: path, interface: interface, member: member, body: body)
        }
    }
}

/// One object of a ``DBusObjectTree``.
@MainActor
final class DBusTreeNode {
    let path: String
    private(set) var interfaces: [DBusTreeInterface] = []
    /// Interfaces added since the last flush, in order (announced by `InterfacesAdded`).
    var added: [String] = []
    /// Interfaces removed since the last flush, most recent first (as gdbus lists them).
    var removed: [String] = []
    var hasPendingProperties = false

    init(path: String) {
        self.path = path
    }

    func interface(named name: String) -> DBusTreeInterface? {
        interfaces.first { $0.name == name }
    }

    func add(_ interface: DBusTreeInterface) {
        interfaces.append(interface)
        added.append(interface.name)
    }

    /// Removes an interface; it is reported as removed unless it was never announced.
    func remove(_ name: String) {
        interfaces.removeAll { $0.name == name }
        if let index = added.firstIndex(of: name) {
            added.remove(at: index)
        } else {
            removed.insert(name, at: 0)
        }
    }
}

/// One interface of a tree object: its definition and current property values.
@MainActor
final class DBusTreeInterface {
    let name: String
    let definition: DBusInterface?
    private(set) var names: [String] = []
    private(set) var values: [String: DBusValue] = [:]
    /// Properties changed since the last flush, in the order of their first change.
    var pendingChanges: [String] = []

    init(definition: DBusInterface) {
        self.name = definition.name
        self.definition = definition
        for (property, value) in definition.properties { set(property, value) }
    }

    /// Introspectable or Properties, listed with no properties.
    init(standard name: String) {
        self.name = name
        self.definition = nil
    }

    var isStandard: Bool { definition == nil }

    static func isStandard(_ name: String) -> Bool {
        name == DBusStandard.introspectableInterface || name == DBusStandard.propertiesInterface
            || name == DBusStandard.objectManagerInterface || name == DBusStandard.peerInterface
    }

    func set(_ property: String, _ value: DBusValue?) {
        if let value {
            if values.updateValue(value, forKey: property) == nil { names.append(property) }
        } else if values.removeValue(forKey: property) != nil {
            names.removeAll { $0 == property }
        }
    }

    var orderedProperties: [(String, DBusValue)] {
        names.compactMap { name in values[name].map { (name, $0) } }
    }

    /// The properties as `a{sv}`.
    var propertyDictionary: DBusValue {
        .dictionary("s", "v", orderedProperties.map { DBusDictEntry(key: .string($0.0), value: .variant($0.1)) })
    }
}
