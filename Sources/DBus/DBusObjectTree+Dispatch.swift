/// Answering method calls on a ``DBusObjectTree``.
extension DBusObjectTree {
    func handle(_ invocation: DBusMethodInvocation) {
        let call = invocation.message
        let path = call.path
        let isIntrospect =
            call.interface == DBusStandard.introspectableInterface && call.member == "Introspect"
            && call.signature.isEmpty
        if path == rootPath {
            if isIntrospect {
                invocation.reply([.string(introspectionXML(for: path))])
            } else if call.interface == DBusStandard.objectManagerInterface && call.member == "GetManagedObjects"
                && call.signature.isEmpty
            {
                invocation.reply([managedObjects()])
            } else {
                invocation.fail(DBusError.noSuchMethod(call))
            }
            return
        }
        guard let node = nodes[path] else {
            // Paths between the root and objects answer Introspect (libdbus does that for
            // unregistered parents of registered paths); all else has no object.
            if isIntrospect && hasDescendants(path) {
                invocation.reply([.string(introspectionXML(for: path))])
            } else {
                invocation.fail(DBusError.noSuchMethod(call, name: DBusError.Name.unknownObject))
            }
            return
        }
        // Without the standard interfaces listed, every object still answers them.
        let introspectable =
            !includesStandardInterfaces || node.interface(named: DBusStandard.introspectableInterface) != nil
        let hasProperties =
            !includesStandardInterfaces || node.interface(named: DBusStandard.propertiesInterface) != nil
        if isIntrospect && introspectable {
            invocation.reply([.string(introspectionXML(for: path))])
        } else if call.interface == DBusStandard.propertiesInterface && hasProperties {
            handleProperties(invocation, node)
        } else if let interface = node.interface(named: call.interface), let definition = interface.definition,
            let handler = definition.methodHandler,
            definition.methods.contains(where: { $0.name == call.member && $0.inSignature == call.signature })
        {
            handler(invocation)
        } else {
            invocation.fail(DBusError.noSuchMethod(call))
        }
    }

    /// `Get(ss)`, `GetAll(s)`, `Set(ssv)` with BlueZ's gdbus errors and texts.
    private func handleProperties(_ invocation: DBusMethodInvocation, _ node: DBusTreeNode) {
        let call = invocation.message
        let arguments = call.body
        func noSuchInterface(_ name: String) -> DBusError {
            DBusError(name: DBusError.Name.invalidArgs, message: "No such interface '\(name)'")
        }
        switch (call.member, call.signature) {
        case ("Get", "ss"):
            let interfaceName = arguments[0].stringValue ?? ""
            let name = arguments[1].stringValue ?? ""
            guard let interface = node.interface(named: interfaceName) else {
                invocation.fail(noSuchInterface(interfaceName))
                return
            }
            guard let value = interface.values[name] else {
                invocation.fail(DBusError(name: DBusError.Name.invalidArgs, message: "No such property '\(name)'"))
                return
            }
            invocation.reply([.variant(value)])
        case ("GetAll", "s"):
            let interfaceName = arguments[0].stringValue ?? ""
            guard let interface = node.interface(named: interfaceName) else {
                invocation.fail(noSuchInterface(interfaceName))
                return
            }
            invocation.reply([interface.propertyDictionary])
        case ("Set", "ssv"):
            let interfaceName = arguments[0].stringValue ?? ""
            let name = arguments[1].stringValue ?? ""
            let value = arguments[2].variantValue ?? arguments[2]
            guard let interface = node.interface(named: interfaceName) else {
                invocation.fail(noSuchInterface(interfaceName))
                return
            }
            do throws(DBusError) {
                try set(name, to: value, on: interface, path: node.path)
                invocation.reply()
            } catch {
                invocation.fail(error)
            }
        default:
            invocation.fail(DBusError.noSuchMethod(call))
        }
    }

    private func set(
        _ name: String, to value: DBusValue, on interface: DBusTreeInterface, path: String
    )
        throws(DBusError)
    {
        let writable = interface.definition?.writableProperties.contains(name) ?? false
        guard writable || interface.values[name] != nil else {
            throw DBusError(name: DBusError.Name.unknownProperty, message: "No such property '\(name)'")
        }
        guard writable else {
            throw DBusError(name: DBusError.Name.propertyReadOnly, message: "Property '\(name)' is not writable")
        }
        guard let current = interface.values[name] else {
            throw DBusError(name: DBusError.Name.unknownProperty, message: "No such property '\(name)'")
        }
        guard current.typeSignature == value.typeSignature else {
            throw DBusError(name: DBusError.Name.invalidSignature, message: "Invalid signature for '\(name)'")
        }
        do {
            try interface.definition?.propertySetHandler?(path, name, value)
        } catch let error as DBusError {
            throw error
        } catch {
            throw DBusError(name: DBusError.Name.failed, message: "\(error)")
        }
        setProperty(name, interface: interface.name, path: path, to: value)
    }

    /// The `GetManagedObjects` reply: every object below the root, in creation order.
    func managedObjects() -> DBusValue {
        let entries = nodeOrder.compactMap { path -> DBusDictEntry? in
            guard let node = nodes[path] else { return nil }
            let interfaces = node.interfaces.map { DBusDictEntry(key: .string($0.name), value: $0.propertyDictionary) }
            return DBusDictEntry(key: .objectPath(path), value: .dictionary("s", "a{sv}", interfaces))
        }
        return .dictionary("o", "a{sa{sv}}", entries)
    }

    func hasDescendants(_ path: String) -> Bool {
        let prefix = path == "/" ? "/" : path + "/"
        return nodeOrder.contains { $0.hasPrefix(prefix) && $0 != path }
    }

    /// The names of the next path elements below `path` that lead to objects.
    func childNames(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names: [String] = []
        for objectPath in nodeOrder where objectPath.hasPrefix(prefix) && objectPath != path {
            let rest = objectPath.dropFirst(prefix.count)
            let child = String(rest.prefix { $0 != "/" })
            if !child.isEmpty && !names.contains(child) { names.append(child) }
        }
        return names
    }
}
