import BoardKit
import DBus
import FakeBlueZ
import TestSupport
import Testing

/// The shape of the exported tree and the D-Bus types of its properties (§1, §2.2, §3.1).
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct ObjectTreeTests {
    @Test func managedObjectsHaveBlueZShapeAndTypes() async throws {
        var known = SimFixture.pegasus
        known.known = true
        let fixture = try await SimFixture(
            boards: [SimFixture.chessnut, known],
            adapters: [AdapterConfiguration(name: "hci0"), AdapterConfiguration(name: "hci1", powered: false)])
        defer { fixture.close() }
        let objects = try await fixture.managedObjects()

        #expect(objects["/"] == nil)
        #expect(objects["/org/boardbridge/sim"] == nil)
        let root = try #require(objects["/org/bluez"])
        #expect(root["org.bluez.AgentManager1"] == [:])
        #expect(root["org.bluez.ProfileManager1"] == [:])
        #expect(root["org.freedesktop.DBus.Introspectable"] == [:])

        let adapter = try #require(objects["/org/bluez/hci0"])
        #expect(adapter["org.freedesktop.DBus.Properties"] == [:])
        #expect(adapter["org.freedesktop.DBus.Introspectable"] == [:])
        let properties = try #require(adapter["org.bluez.Adapter1"])
        let expected: [String: String] = [
            "Address": "s", "AddressType": "s", "Name": "s", "Alias": "s", "Class": "u", "Powered": "b",
            "PowerState": "s", "Discoverable": "b", "DiscoverableTimeout": "u", "Pairable": "b",
            "PairableTimeout": "u", "Discovering": "b", "UUIDs": "as", "Modalias": "s", "Roles": "as",
        ]
        for (name, signature) in expected {
            #expect(properties[name]?.typeSignature == signature, "Adapter1.\(name)")
        }
        #expect(properties["Roles"]?.stringArrayValue?.contains("central") == true)
        #expect(properties["Powered"] == .bool(true))
        #expect(properties["Discovering"] == .bool(false))
        #expect(objects["/org/bluez/hci1"]?["org.bluez.Adapter1"]?["Powered"] == .bool(false))
        #expect(objects["/org/bluez/hci1"]?["org.bluez.Adapter1"]?["PowerState"] == .string("off"))

        // Unknown boards have no object before a scan; known ones do, without RSSI.
        #expect(objects[SimFixture.devicePath("AA:BB:CC:00:00:01")] == nil)
        let device = try #require(objects[SimFixture.devicePath("AA:BB:CC:00:00:02")]?["org.bluez.Device1"])
        #expect(device["Address"] == .string("AA:BB:CC:00:00:02"))
        #expect(device["Adapter"] == .objectPath("/org/bluez/hci0"))
        #expect(device["Name"] == .string("DGT_Pegasus_SIM"))
        #expect(device["Connected"] == .bool(false))
        #expect(device["ServicesResolved"] == .bool(false))
        #expect(device["UUIDs"]?.typeSignature == "as")
        #expect(device["RSSI"] == nil)
    }

    @Test func propertiesInterfaceAnswersLikeGDBus() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        #expect(
            try await fixture.property("Address", SimFixture.adapter, "/org/bluez/hci0") == .string("00:1A:7D:DA:71:10")
        )
        let noProperty = await capturedError {
            _ = try await fixture.property("Colour", SimFixture.adapter, "/org/bluez/hci0")
        }
        #expect(noProperty == DBusError(name: DBusError.Name.invalidArgs, message: "No such property 'Colour'"))
        let readOnly = await capturedError {
            try await fixture.client.setProperty(
                "Address", to: .string("x"), interface: SimFixture.adapter, path: "/org/bluez/hci0",
                destination: FakeBlueZ.busName)
        }
        #expect(readOnly?.name == DBusError.Name.propertyReadOnly)
        let noObject = await capturedError {
            _ = try await fixture.call(SimFixture.devicePath("AA:BB:CC:00:00:01"), SimFixture.device, "Connect")
        }
        #expect(noObject?.name == DBusError.Name.unknownObject)
    }

    @Test func poweringOffThroughPropertiesStopsTheAdapter() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await fixture.client.setProperty(
            "Powered", to: .bool(false), interface: SimFixture.adapter, path: "/org/bluez/hci0",
            destination: FakeBlueZ.busName)
        #expect(try await fixture.property("Powered", SimFixture.adapter, "/org/bluez/hci0") == .bool(false))
        #expect(try await fixture.property("PowerState", SimFixture.adapter, "/org/bluez/hci0") == .string("off"))
        #expect(fixture.sim.adapterStatuses.first?.powered == false)
        let error = await capturedError {
            _ = try await fixture.call("/org/bluez/hci0", SimFixture.adapter, "StartDiscovery")
        }
        #expect(error == DBusError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready"))
    }

    @Test func controlInterfaceListsBoardsOutsideTheTree() async throws {
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus])
        defer { fixture.close() }
        let reply = try await fixture.client.call(
            destination: FakeBlueZ.busName, path: FakeBlueZ.controlPath, interface: FakeBlueZ.controlInterface,
            member: "ListBoards")
        let list = reply.first?.arrayValue ?? []
        let boards = list.compactMap { $0.stringDictionaryValue }
        try #require(boards.count == 2)
        #expect(boards.compactMap { $0["Id"]?.stringValue } == ["air", "pegasus"])
        #expect(boards.first?["Family"] == .string("chessnut"))
        #expect(boards.first?["Placement"] == .string(BoardSnapshot.startingPosition.fenPlacement))
        let missing = await capturedError {
            _ = try await fixture.client.call(
                destination: FakeBlueZ.busName, path: FakeBlueZ.controlPath, interface: FakeBlueZ.controlInterface,
                member: "Placement", body: [.string("nope")])
        }
        #expect(missing?.name == "org.boardbridge.Simulator.Error.NoSuchBoard")
    }

    @Test func agentManagerKeepsAgentsPerSender() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let manager = "org.bluez.AgentManager1"
        _ = try await fixture.call(
            "/org/bluez", manager, "RegisterAgent", [.objectPath("/agent"), .string("NoInputNoOutput")])
        let twice = await capturedError {
            _ = try await fixture.call("/org/bluez", manager, "RegisterAgent", [.objectPath("/agent"), .string("")])
        }
        #expect(twice == DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists"))
        _ = try await fixture.call("/org/bluez", manager, "RequestDefaultAgent", [.objectPath("/agent")])
        _ = try await fixture.call("/org/bluez", manager, "UnregisterAgent", [.objectPath("/agent")])
        let gone = await capturedError {
            _ = try await fixture.call("/org/bluez", manager, "UnregisterAgent", [.objectPath("/agent")])
        }
        #expect(gone == DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist"))
    }

    /// Issue #29 (6): from BlueZ 5.71 the battery provider API is no longer experimental, so
    /// every adapter carries BatteryProviderManager1 (registered before the GATT and
    /// advertising managers); a provider is kept per sender like the other registrations.
    @Test(arguments: [("5.66", false), ("5.72", true), ("5.83", true)])
    func batteryProviderManagerFrom571(version: String, present: Bool) async throws {
        var behavior = SimFixture.fast
        behavior.bluezVersion = version
        let fixture = try await SimFixture(behavior: behavior)
        defer { fixture.close() }
        let manager = "org.bluez.BatteryProviderManager1"
        let adapter = try await fixture.managedObjects()["/org/bluez/hci0"] ?? [:]
        #expect((adapter[manager] != nil) == present, "\(version): \(adapter.keys.sorted())")
        guard present else { return }
        _ = try await fixture.call("/org/bluez/hci0", manager, "RegisterBatteryProvider", [.objectPath("/battery")])
        let twice = await capturedError {
            _ = try await fixture.call("/org/bluez/hci0", manager, "RegisterBatteryProvider", [.objectPath("/battery")])
        }
        #expect(twice == DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists"))
        _ = try await fixture.call("/org/bluez/hci0", manager, "UnregisterBatteryProvider", [.objectPath("/battery")])
        let gone = await capturedError {
            _ = try await fixture.call(
                "/org/bluez/hci0", manager, "UnregisterBatteryProvider", [.objectPath("/battery")])
        }
        #expect(gone == DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist"))
    }
}
