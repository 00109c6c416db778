import DBus
import Foundation
import Testing

@testable import BlueZ

@Suite struct BlueZObjectModelTests {
    static let adapter = "/org/bluez/hci0"
    static let device = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_01"
    static let service = device + "/service000c"
    static let notify = service + "/char000d"
    static let write = service + "/char0010"

    /// A tree as GetManagedObjects returns it (variants removed), with BlueZ's empty standard
    /// interfaces.
    static var tree: [String: [String: [String: DBusValue]]] {
        [
            "/org/bluez": ["org.bluez.AgentManager1": [:], "org.bluez.ProfileManager1": [:]],
            adapter: [
                "org.freedesktop.DBus.Introspectable": [:],
                "org.bluez.Adapter1": [
                    "Address": .string("00:11:22:33:44:55"), "Powered": .bool(true), "Discovering": .bool(false),
                    "Roles": .strings(["central"]),
                ],
                "org.freedesktop.DBus.Properties": [:],
            ],
            device: [
                "org.bluez.Device1": [
                    "Address": .string("AA:BB:CC:DD:EE:01"), "Name": .string("ChessUp 1"),
                    "Alias": .string("ChessUp 1"), "Adapter": .objectPath(adapter), "RSSI": .int16(-52),
                    "UUIDs": .strings(["6E400001-B5A3-F393-E0A9-E50E24DCCA9E"]), "Connected": .bool(true),
                    "ServicesResolved": .bool(true),
                    "ManufacturerData": .uint16Dictionary([(0x1234, .bytes([1, 2]))]),
                ]
            ],
            service: [
                "org.bluez.GattService1": [
                    "UUID": .string("6e400001-b5a3-f393-e0a9-e50e24dcca9e"), "Device": .objectPath(device),
                    "Primary": .bool(true),
                ]
            ],
            notify: [
                "org.bluez.GattCharacteristic1": [
                    "UUID": .string("6e400003-b5a3-f393-e0a9-e50e24dcca9e"), "Service": .objectPath(service),
                    "Flags": .strings(["notify"]), "Value": .bytes([]), "Notifying": .bool(false),
                ]
            ],
            write: [
                "org.bluez.GattCharacteristic1": [
                    "UUID": .string("6e400002-b5a3-f393-e0a9-e50e24dcca9e"), "Service": .objectPath(service),
                    "Flags": .strings(["write", "write-without-response"]), "MTU": .uint16(247),
                ]
            ],
        ]
    }

    @Test func objectsOfAdaptersNotListedAreIgnored() throws {
        var everything = BlueZObjectModel()
        _ = everything.load(Self.tree)
        #expect(everything.adapters.count == 1)

        var hci1Only = BlueZObjectModel(onlyAdapters: ["hci1"])
        let update = hci1Only.load(Self.tree)
        #expect(update.issues.isEmpty)
        #expect(hci1Only.adapters.isEmpty && hci1Only.devices.isEmpty && hci1Only.characteristics.isEmpty)
        // Later signals about hci0 are ignored too; hci1's objects are kept.
        let added = hci1Only.interfacesAdded(
            path: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_02",
            interfaces: ["org.bluez.Device1": ["Address": .string("AA:BB:CC:DD:EE:02")]])
        #expect(added.changes.isEmpty)
        _ = hci1Only.interfacesAdded(
            path: "/org/bluez/hci1", interfaces: ["org.bluez.Adapter1": ["Powered": .bool(true)]])
        _ = hci1Only.interfacesAdded(
            path: "/org/bluez/hci1/dev_AA_BB_CC_DD_EE_03",
            interfaces: ["org.bluez.Device1": ["Address": .string("AA:BB:CC:DD:EE:03")]])
        #expect(hci1Only.adapters.values.map(\.name) == ["hci1"])
        #expect(hci1Only.devices.values.map(\.address) == ["AA:BB:CC:DD:EE:03"])
        _ = hci1Only.load(Self.tree)
        #expect(hci1Only.adapters.isEmpty, "a reload keeps the restriction")
    }

    @Test func loadsAGetManagedObjectsReply() throws {
        var model = BlueZObjectModel()
        let update = model.load(Self.tree)
        #expect(update.issues.isEmpty)
        let adapter = try #require(model.adapters[Self.adapter])
        #expect(adapter.name == "hci0" && adapter.powered && adapter.address == "00:11:22:33:44:55")
        let device = try #require(model.devices[Self.device])
        #expect(device.address == "AA:BB:CC:DD:EE:01")
        #expect(device.advertisedName == "ChessUp 1")
        #expect(device.rssi == -52)
        #expect(device.uuids == ["6e400001-b5a3-f393-e0a9-e50e24dcca9e"])
        #expect(device.connected && device.servicesResolved)
        #expect(model.services(ofDevice: Self.device).map(\.path) == [Self.service])
        #expect(model.characteristics(ofDevice: Self.device).map(\.path) == [Self.notify, Self.write])
        #expect(model.characteristics[Self.write]?.mtu == 247)
        #expect(update.changes.contains(.deviceAdded(Self.device)))
    }

    @Test func propertiesChangedUpdatesAndInvalidates() throws {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.propertiesChanged(
            path: Self.device, interface: "org.bluez.Device1",
            changed: ["Connected": .bool(false), "ServicesResolved": .bool(false)], invalidated: ["RSSI"])
        #expect(update.changes == [.deviceChanged(Self.device, ["Connected", "ServicesResolved", "RSSI"])])
        let device = try #require(model.devices[Self.device])
        #expect(!device.connected && !device.servicesResolved && device.rssi == nil)
    }

    @Test func valueChangesAreNotifications() {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.propertiesChanged(
            path: Self.notify, interface: "org.bluez.GattCharacteristic1", changed: ["Value": .bytes([0xA3, 1, 2])],
            invalidated: [])
        #expect(update.changes == [.value(path: Self.notify, bytes: Data([0xA3, 1, 2]))])
        #expect(update.changes.first?.devicePath == Self.device)
    }

    @Test func wrongTypesAreSkippedAndReported() throws {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.propertiesChanged(
            path: Self.device, interface: "org.bluez.Device1",
            changed: ["Connected": .string("yes"), "RSSI": .string("-40"), "Name": .uint32(7)], invalidated: [])
        #expect(update.issues.count == 3)
        #expect(update.issues.allSatisfy { $0.level == .warning && $0.description.contains(Self.device) })
        let device = try #require(model.devices[Self.device])
        #expect(device.connected && device.rssi == -52 && device.name == "ChessUp 1", "previous values kept")
        let value = model.propertiesChanged(
            path: Self.notify, interface: "org.bluez.GattCharacteristic1", changed: ["Value": .string("x")],
            invalidated: [])
        #expect(value.changes.isEmpty && value.issues.count == 1)
    }

    @Test func missingIdentityFallsBackToThePathOrIsSkipped() throws {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        // No Address/Adapter: both come from the path.
        let added = model.interfacesAdded(
            path: "/org/bluez/hci0/dev_11_22_33_44_55_66",
            interfaces: ["org.bluez.Device1": ["Connected": .bool(false)]])
        #expect(added.issues.isEmpty)
        let device = try #require(model.devices["/org/bluez/hci0/dev_11_22_33_44_55_66"])
        #expect(device.address == "11:22:33:44:55:66" && device.adapterPath == Self.adapter)
        // Nothing to identify it: skipped.
        let odd = model.interfacesAdded(path: "/org/bluez/hci0/weird", interfaces: ["org.bluez.Device1": [:]])
        #expect(odd.changes.isEmpty && odd.issues.count == 1)
        #expect(model.devices["/org/bluez/hci0/weird"] == nil)
        // A characteristic without UUID: skipped.
        let char = model.interfacesAdded(
            path: Self.service + "/char0020", interfaces: ["org.bluez.GattCharacteristic1": ["Flags": .strings([])]])
        #expect(char.changes.isEmpty && char.issues.count == 1)
    }

    @Test func changesForUnknownObjectsAreIgnored() {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.propertiesChanged(
            path: "/org/bluez/hci0/dev_00_00_00_00_00_00", interface: "org.bluez.Device1",
            changed: ["Connected": .bool(true)], invalidated: [])
        #expect(update.changes.isEmpty)
        #expect(update.issues.map(\.level) == [.debug])
    }

    @Test func removingADeviceRemovesItsGATTObjects() {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.interfacesRemoved(
            path: Self.device, interfaces: ["org.freedesktop.DBus.Properties", "org.bluez.Device1"])
        #expect(update.changes == [.deviceRemoved(Self.device)])
        #expect(model.devices.isEmpty && model.services.isEmpty && model.characteristics.isEmpty)
    }

    @Test func removingAnAdapterRemovesItsDevices() {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.interfacesRemoved(path: Self.adapter, interfaces: ["org.bluez.Adapter1"])
        #expect(update.changes == [.deviceRemoved(Self.device), .adapterRemoved(Self.adapter)])
        #expect(model.devices.isEmpty && model.adapters.isEmpty)
    }

    @Test func gattRemovalIsReportedForItsDevice() {
        var model = BlueZObjectModel()
        _ = model.load(Self.tree)
        let update = model.interfacesRemoved(path: Self.notify, interfaces: ["org.bluez.GattCharacteristic1"])
        #expect(update.changes == [.gattRemoved(path: Self.notify, devicePath: Self.device)])
        #expect(model.characteristics[Self.notify] == nil)
    }

    @Test(
        arguments: [
            ("Chessnut Air", "AA:BB:CC:DD:EE:FF", "Chessnut Air"),
            ("AA-BB-CC-DD-EE-FF", "AA:BB:CC:DD:EE:FF", nil),
            ("", "AA:BB:CC:DD:EE:FF", nil),
        ] as [(String, String, String?)])
    func advertisedNameIgnoresTheAddressAlias(alias: String, address: String, expected: String?) {
        let device = BlueZDeviceInfo(
            path: "/org/bluez/hci0/dev_AA", adapterPath: "/org/bluez/hci0", address: address, alias: alias)
        #expect(device.advertisedName == expected)
    }
}

@Suite struct BlueZPathTests {
    @Test func devicePathsAndAddresses() {
        let path = BlueZPath.devicePath(adapterPath: "/org/bluez/hci1", address: "aa:bb:cc:dd:ee:0f")
        #expect(path == "/org/bluez/hci1/dev_AA_BB_CC_DD_EE_0F")
        #expect(BlueZPath.address(fromDevicePath: path + "/service000c/char000d") == "AA:BB:CC:DD:EE:0F")
        #expect(BlueZPath.devicePath(of: path + "/service000c/char000d") == path)
        #expect(BlueZPath.adapterName(of: path) == "hci1")
        #expect(BlueZPath.adapterPath(of: path) == "/org/bluez/hci1")
        #expect(BlueZPath.parent(of: "/org/bluez") == "/org")
        #expect(BlueZPath.parent(of: "/org") == "/")
    }

    @Test(arguments: [
        "/", "/org/bluez", "/org/bluez/hci0", "/org/bluez/hci0/dev_XX", "/com/example/hci0/dev_AA_BB_CC_DD_EE_FF",
    ])
    func pathsWithoutADeviceGiveNoAddress(path: String) {
        #expect(BlueZPath.address(fromDevicePath: path) == nil)
    }
}

@Suite struct BlueZErrorKindTests {
    @Test(
        arguments: [
            ("org.bluez.Error.InProgress", "In Progress", BlueZErrorKind.inProgress),
            ("org.bluez.Error.Failed", "Operation already in progress", .inProgress),
            ("org.bluez.Error.Failed", "le-connection-abort-by-local", .connectionAborted),
            ("org.bluez.Error.Failed", "Software caused connection abort", .connectionAborted),
            ("org.bluez.Error.Failed", "br-connection-canceled", .connectionAborted),
            ("org.bluez.Error.Failed", "Not connected", .notConnected),
            ("org.bluez.Error.NotConnected", "Not Connected", .notConnected),
            ("org.bluez.Error.Failed", "Input/output error", .other),
            ("org.bluez.Error.NotReady", "Resource Not Ready", .notReady),
            ("org.freedesktop.DBus.Error.AccessDenied", "Rejected send message", .accessDenied),
            ("org.bluez.Error.NotAuthorized", "", .accessDenied),
            ("org.freedesktop.DBus.Error.UnknownObject", "Method \"Connect\" doesn't exist\n", .objectGone),
            ("org.bluez.Error.DoesNotExist", "Does Not Exist", .objectGone),
            ("org.freedesktop.DBus.Error.NoReply", "", .timeout),
            ("org.freedesktop.DBus.Error.ServiceUnknown", "", .serviceGone),
            ("org.freedesktop.DBus.Error.Disconnected", "", .serviceGone),
            ("org.boardbridge.DBus.Error.Cancelled", "", .cancelled),
            ("org.bluez.Error.NotSupported", "", .other),
        ] as [(String, String, BlueZErrorKind)])
    func classification(name: String, message: String, expected: BlueZErrorKind) {
        #expect(BlueZErrorKind(DBusError(name: name, message: message)) == expected)
    }

    @Test func onlyBusyAndAbortsAreTransient() {
        #expect(BlueZErrorKind.inProgress.isTransientConnectFailure)
        #expect(BlueZErrorKind.connectionAborted.isTransientConnectFailure)
        #expect(!BlueZErrorKind.objectGone.isTransientConnectFailure)
        #expect(!BlueZErrorKind.timeout.isTransientConnectFailure)
    }
}
