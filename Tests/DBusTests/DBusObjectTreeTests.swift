import DBus
import TestSupport
import Testing

/// The exported object tree: ObjectManager, Properties and their signals as BlueZ sends them.
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusObjectTreeTests {
    static let adapter = "/org/bluez/hci0"
    static let device = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"
    static let introspectable = DBusStandard.introspectableInterface
    static let properties = DBusStandard.propertiesInterface

    /// A bus, a tree on the server, and every signal the server sends, as seen by the client.
    @MainActor
    final class Fixture {
        let bus: BusFixture
        let tree: DBusObjectTree
        let signals = Inbox<DBusMessage>()

        init() async throws {
            bus = try await BusFixture()
            tree = try DBusObjectTree(connection: bus.server)
            let signals = self.signals
            _ = try await bus.client.subscribe(DBusMatchRule(sender: bus.server.uniqueName)) { signals.append($0) }
        }

        var client: DBusConnection { bus.client }
        var server: String { bus.server.uniqueName }

        func call(
            _ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = []
        )
            async throws(DBusError) -> [DBusValue]
        {
            try await client.call(destination: server, path: path, interface: interface, member: member, body: body)
        }

        /// Waits until the signals include one sent after everything so far.
        func settledSignals() async throws -> [DBusMessage] {
            try bus.server.emitSignal(path: "/sentinel", interface: "org.example.Test", member: "Sentinel")
            _ = await eventually { signals.items.contains { $0.member == "Sentinel" } }
            return signals.items.filter { $0.member != "Sentinel" }
        }
    }

    static func adapterInterface() -> DBusInterface {
        DBusInterface(name: "org.bluez.Adapter1", properties: ["Powered": .bool(true), "Roles": .strings(["central"])])
    }

    static func deviceInterface(handler: (@MainActor (DBusMethodInvocation) -> Void)? = nil) -> DBusInterface {
        var device = DBusInterface(
            name: "org.bluez.Device1",
            properties: [
                "Address": .string("AA:BB:CC:DD:EE:FF"), "RSSI": .int16(-60), "Connected": .bool(false),
                "ServicesResolved": .bool(false), "Trusted": .bool(false),
            ])
        device.methods = [
            DBusMethodDescription("Connect"), DBusMethodDescription("Disconnect"),
            DBusMethodDescription("Pair", in: [DBusArgument("options", "a{sv}")]),
        ]
        device.signals = [DBusSignalDescription("Disconnected", [DBusArgument("reason", "s")])]
        device.writableProperties = ["Trusted"]
        device.methodHandler = handler
        return device
    }

    @Test func interfacesAddedParentFirstWithStandardInterfaces() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        // Child first, parent second, same main-loop turn: the parent is still announced first.
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device)
        try fixture.tree.addInterface(Self.adapterInterface(), at: Self.adapter)
        let signals = try await fixture.settledSignals()
        #expect(signals.map(\.member) == ["InterfacesAdded", "InterfacesAdded"])
        #expect(signals.map(\.signature) == ["oa{sa{sv}}", "oa{sa{sv}}"])
        #expect(signals.allSatisfy { $0.path == "/" && $0.interface == DBusStandard.objectManagerInterface })
        #expect(signals.map { $0.body.first } == [.objectPath(Self.adapter), .objectPath(Self.device)])
        let deviceInterfaces = try #require(signals.last?.body.last?.dictionaryEntries)
        #expect(
            deviceInterfaces.map(\.key) == [
                .string(Self.introspectable), .string("org.bluez.Device1"), .string(Self.properties),
            ])
        let properties = try #require(signals.last?.body.last?.interfacesAndPropertiesValue)
        #expect(properties[Self.introspectable] == [:])
        #expect(properties[Self.properties] == [:])
        #expect(properties["org.bluez.Device1"]?["RSSI"] == .int16(-60))
    }

    @Test func managedObjectsListEveryObjectBelowTheRoot() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        try fixture.tree.addInterface(Self.adapterInterface(), at: Self.adapter)
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device)
        let reply = try await fixture.call("/", DBusStandard.objectManagerInterface, "GetManagedObjects")
        #expect(reply.map(\.typeSignature) == ["a{oa{sa{sv}}}"])
        #expect(reply.first?.dictionaryEntries?.map(\.key) == [.objectPath(Self.adapter), .objectPath(Self.device)])
        let objects = try await fixture.client.managedObjects(destination: fixture.server)
        #expect(Set(objects.keys) == [Self.adapter, Self.device])
        #expect(
            objects[Self.adapter]?["org.bluez.Adapter1"] == ["Powered": .bool(true), "Roles": .strings(["central"])])
        #expect(objects[Self.device]?["org.bluez.Device1"]?["Address"] == .string("AA:BB:CC:DD:EE:FF"))
        #expect(objects[Self.device]?[Self.properties] == [:])
    }

    @Test func propertyChangesAreBatchedAndInvalidated() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device)
        // Changing a property before the interface is announced sends no PropertiesChanged.
        fixture.tree.setProperty("RSSI", interface: "org.bluez.Device1", path: Self.device, to: .int16(-50))
        fixture.tree.flush()
        fixture.tree.setProperty("Connected", interface: "org.bluez.Device1", path: Self.device, to: .bool(true))
        fixture.tree.setProperty("ServicesResolved", interface: "org.bluez.Device1", path: Self.device, to: .bool(true))
        fixture.tree.setProperty("RSSI", interface: "org.bluez.Device1", path: Self.device, to: nil)
        let signals = try await fixture.settledSignals()
        #expect(signals.map(\.member) == ["InterfacesAdded", "PropertiesChanged"])
        let added = signals[0].body.last?.interfacesAndPropertiesValue
        #expect(added?["org.bluez.Device1"]?["RSSI"] == .int16(-50))
        let changed = signals[1]
        #expect(changed.path == Self.device)
        #expect(changed.interface == Self.properties)
        #expect(changed.signature == "sa{sv}as")
        #expect(changed.body[0] == .string("org.bluez.Device1"))
        #expect(changed.body[1].dictionaryEntries?.map(\.key) == [.string("Connected"), .string("ServicesResolved")])
        #expect(changed.body[1].stringDictionaryValue == ["Connected": .bool(true), "ServicesResolved": .bool(true)])
        #expect(changed.body[2] == .strings(["RSSI"]))
        #expect(fixture.tree.property("RSSI", interface: "org.bluez.Device1", path: Self.device) == nil)
    }

    @Test func flushedChangesAreOneSignalEach() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        var characteristic = DBusInterface(name: "org.bluez.GattCharacteristic1", properties: ["Value": .bytes([])])
        characteristic.methods = []
        let path = Self.device + "/service000c/char000d"
        try fixture.tree.addInterface(characteristic, at: path)
        fixture.tree.flush()
        for byte: UInt8 in [1, 2, 2] {
            fixture.tree.setProperty(
                "Value", interface: "org.bluez.GattCharacteristic1", path: path, to: .bytes([byte]), flush: true)
        }
        let values = try await fixture.settledSignals().filter { $0.member == "PropertiesChanged" }.map {
            $0.body[1].stringDictionaryValue?["Value"]
        }
        #expect(values == [.bytes([1]), .bytes([2]), .bytes([2])])
    }

    @Test func stateSignalsPrecedeTheReply() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        let tree = fixture.tree
        let device = Self.deviceInterface { invocation in
            tree.setProperty("Connected", interface: "org.bluez.Device1", path: invocation.path, to: .bool(true))
            invocation.reply()
        }
        try tree.addInterface(device, at: Self.device)
        // Announced now: the server may read the call before the main queue's flush runs
        // (one loop serves both connections' sockets), and `Connected` would then be part of
        // a late InterfacesAdded rather than a PropertiesChanged.
        tree.flush()
        _ = try await fixture.call(Self.device, "org.bluez.Device1", "Connect")
        // No waiting: the signal was dispatched before the reply resumed this task.
        let last = try #require(fixture.signals.items.last)
        #expect(last.member == "PropertiesChanged")
        #expect(last.body[1].stringDictionaryValue == ["Connected": .bool(true)])
    }

    @Test func removingAnObjectAnnouncesAllItsInterfaces() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        try fixture.tree.addInterface(Self.adapterInterface(), at: Self.adapter)
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device)
        try fixture.tree.addInterface(
            DBusInterface(name: "org.bluez.GattService1", properties: ["Primary": .bool(true)]),
            at: Self.device + "/service000c")
        fixture.tree.flush()
        fixture.tree.removeObject(at: Self.device, includingDescendants: true)
        // Added and removed in the same turn: no signal at all.
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device + "1")
        fixture.tree.removeObject(at: Self.device + "1")
        let removed = try await fixture.settledSignals().filter { $0.member == "InterfacesRemoved" }
        #expect(removed.map(\.signature) == ["oas", "oas"])
        #expect(removed.map { $0.body[0] } == [.objectPath(Self.device + "/service000c"), .objectPath(Self.device)])
        #expect(removed[1].body[1] == .strings([Self.properties, Self.introspectable, "org.bluez.Device1"]))
        #expect(fixture.tree.objectPaths == [Self.adapter])
        let error = await capturedError { _ = try await fixture.call(Self.device, "org.bluez.Device1", "Connect") }
        #expect(error?.name == DBusError.Name.unknownObject)
        #expect(
            error?.message
                == "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist\n")
    }

    @Test func methodsAreRoutedBySignature() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        let calls = Inbox<String>()
        try fixture.tree.addInterface(
            Self.deviceInterface { invocation in
                calls.append(invocation.member)
                invocation.reply([.string(invocation.member)])
            }, at: Self.device)
        #expect(
            try await fixture.call(Self.device, "org.bluez.Device1", "Pair", [.propertyDictionary([:])]) == [
                .string("Pair")
            ])
        let wrongSignature = await capturedError {
            _ = try await fixture.call(Self.device, "org.bluez.Device1", "Pair", [.string("x")])
        }
        #expect(wrongSignature?.name == DBusError.Name.unknownMethod)
        #expect(
            wrongSignature?.message
                == "Method \"Pair\" with signature \"s\" on interface \"org.bluez.Device1\" doesn't exist\n")
        let undeclared = await capturedError { _ = try await fixture.call(Self.device, "org.bluez.Device1", "Remove") }
        #expect(undeclared?.name == DBusError.Name.unknownMethod)
        let otherInterface = await capturedError { _ = try await fixture.call(Self.device, "org.bluez.Battery1", "X") }
        #expect(otherInterface?.name == DBusError.Name.unknownMethod)
        #expect(calls.items == ["Pair"])
    }

    @Test func propertiesInterfaceAnswersLikeBlueZ() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        let writes = Inbox<String>()
        var device = Self.deviceInterface()
        device.writableProperties = ["Trusted", "Blocked"]
        device.propertySetHandler = { path, name, value in
            writes.append("\(path) \(name) \(value)")
            if value == .bool(false) && name == "Trusted" {
                throw DBusError(name: "org.bluez.Error.Failed", message: "refused")
            }
        }
        try fixture.tree.addInterface(device, at: Self.device)
        let client = fixture.client
        let server = fixture.server
        #expect(
            try await client.property("Address", interface: "org.bluez.Device1", path: Self.device, destination: server)
                == .string("AA:BB:CC:DD:EE:FF"))
        let all = try await client.allProperties(interface: "org.bluez.Device1", path: Self.device, destination: server)
        #expect(all["RSSI"] == .int16(-60))
        #expect(
            try await client.allProperties(interface: Self.introspectable, path: Self.device, destination: server)
                == [:])

        func error(_ body: @MainActor () async throws -> Void) async -> DBusError? { await capturedError(body) }
        #expect(
            await error {
                _ = try await client.property(
                    "Nope", interface: "org.bluez.Device1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.invalidArgs, message: "No such property 'Nope'"))
        #expect(
            await error {
                _ = try await client.property(
                    "Address", interface: "org.bluez.Nope1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.invalidArgs, message: "No such interface 'org.bluez.Nope1'"))
        #expect(
            await error {
                _ = try await client.allProperties(interface: "org.bluez.Nope1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.invalidArgs, message: "No such interface 'org.bluez.Nope1'"))
        #expect(
            await error {
                try await client.setProperty(
                    "Address", to: .string("x"), interface: "org.bluez.Device1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.propertyReadOnly, message: "Property 'Address' is not writable"))
        #expect(
            await error {
                try await client.setProperty(
                    "Nope", to: .string("x"), interface: "org.bluez.Device1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.unknownProperty, message: "No such property 'Nope'"))
        #expect(
            await error {
                try await client.setProperty(
                    "Blocked", to: .bool(true), interface: "org.bluez.Device1", path: Self.device, destination: server)
            }
                == DBusError(name: DBusError.Name.unknownProperty, message: "No such property 'Blocked'"))
        #expect(
            await error {
                try await client.setProperty(
                    "Trusted", to: .string("yes"), interface: "org.bluez.Device1", path: Self.device,
                    destination: server)
            }
                == DBusError(name: DBusError.Name.invalidSignature, message: "Invalid signature for 'Trusted'"))
        try await client.setProperty(
            "Trusted", to: .bool(true), interface: "org.bluez.Device1", path: Self.device, destination: server)
        #expect(fixture.tree.property("Trusted", interface: "org.bluez.Device1", path: Self.device) == .bool(true))
        #expect(
            await error {
                try await client.setProperty(
                    "Trusted", to: .bool(false), interface: "org.bluez.Device1", path: Self.device, destination: server)
            }
                == DBusError(name: "org.bluez.Error.Failed", message: "refused"))
        #expect(fixture.tree.property("Trusted", interface: "org.bluez.Device1", path: Self.device) == .bool(true))
        #expect(writes.items.count == 2)
        let changes = try await fixture.settledSignals().filter { $0.member == "PropertiesChanged" }
        #expect(changes.map { $0.body[1] } == [.propertyDictionary(["Trusted": .bool(true)])])
    }

    @Test func introspectionDescribesObjectsAndChildren() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        try fixture.tree.addInterface(Self.deviceInterface(), at: Self.device)
        func introspect(_ path: String) async throws -> String {
            try await fixture.call(path, Self.introspectable, "Introspect").first?.stringValue ?? ""
        }
        let root = try await introspect("/")
        #expect(root.contains("<interface name=\"org.freedesktop.DBus.ObjectManager\">"))
        #expect(root.contains("<node name=\"org\"/>"))
        #expect(try await introspect("/org/bluez").contains("<node name=\"hci0\"/>"))
        let device = try await introspect(Self.device)
        #expect(device.contains("<interface name=\"org.bluez.Device1\">"))
        #expect(device.contains("<method name=\"Pair\">"))
        #expect(device.contains("<arg name=\"options\" type=\"a{sv}\" direction=\"in\"/>"))
        #expect(device.contains("<property name=\"RSSI\" type=\"n\" access=\"read\"/>"))
        #expect(device.contains("<property name=\"Trusted\" type=\"b\" access=\"readwrite\"/>"))
        #expect(device.contains("<signal name=\"Disconnected\">"))
        let nowhere = await capturedError { _ = try await introspect("/elsewhere") }
        #expect(nowhere?.name == DBusError.Name.unknownObject)
    }

    @Test func treeWithoutStandardInterfacesStillAnswersThem() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let tree = try DBusObjectTree(
            connection: bus.server, rootPath: "/org/example", includesStandardInterfaces: false)
        try tree.addInterface(Self.adapterInterface(), at: "/org/example/a")
        let objects = try await bus.client.managedObjects(destination: bus.server.uniqueName, path: "/org/example")
        #expect(
            objects == [
                "/org/example/a": ["org.bluez.Adapter1": ["Powered": .bool(true), "Roles": .strings(["central"])]]
            ])
        #expect(
            try await bus.client.property(
                "Powered", interface: "org.bluez.Adapter1", path: "/org/example/a", destination: bus.server.uniqueName)
                == .bool(true))
        let xml = try await bus.client.call(
            destination: bus.server.uniqueName, path: "/org/example/a", interface: Self.introspectable,
            member: "Introspect")
        #expect(xml.first?.stringValue?.contains("org.bluez.Adapter1") == true)
    }

    @Test func invalidExportsAreRejected() async throws {
        let fixture = try await Fixture()
        defer { fixture.bus.close() }
        let tree = fixture.tree
        #expect(throws: DBusError.self) { try tree.addInterface(Self.adapterInterface(), at: "/") }
        #expect(throws: DBusError.self) { try tree.addInterface(Self.adapterInterface(), at: "bad") }
        #expect(throws: DBusError.self) {
            try tree.addInterface(DBusInterface(name: DBusStandard.propertiesInterface), at: Self.adapter)
        }
        #expect(throws: DBusError.self) {
            try tree.addInterface(
                DBusInterface(name: "x.Y", properties: ["Bad": .array("s", [.byte(1)])]), at: Self.adapter)
        }
        try tree.addInterface(Self.adapterInterface(), at: Self.adapter)
        #expect(throws: DBusError.self) { try tree.addInterface(Self.adapterInterface(), at: Self.adapter) }
        #expect(!tree.setProperty("Powered", interface: "org.bluez.Nope1", path: Self.adapter, to: .bool(false)))
        #expect(throws: DBusError.self) { try DBusObjectTree(connection: fixture.bus.server) }
    }
}
