import BoardKit
import DBus
import FakeBlueZ
import TestSupport
import Testing

/// Discovery sessions, filters, advertisement reports and their signals (§2.1, §3.2).
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DiscoveryTests {
    static let hci0 = "/org/bluez/hci0"

    @Test func firstSightingAnnouncesATypedDevice() async throws {
        var board = SimFixture.chessnut
        board.manufacturerData = ["0x04b8": "0102"]
        board.serviceData = ["180f": "64"]
        board.txPower = 4
        board.rssi = -48
        let fixture = try await SimFixture(boards: [board])
        defer { fixture.close() }
        let path = try await fixture.discover("AA:BB:CC:00:00:01")
        let signals = fixture.signals.messages
        let discovering = signals.firstIndex {
            SignalRecorder.sets($0, path: Self.hci0, interface: SimFixture.adapter, "Discovering", .bool(true))
        }
        let addedIndex = try #require(signals.firstIndex { SignalRecorder.isAdded($0, path) })
        #expect(discovering.map { $0 < addedIndex } == true)
        let interfaces = try #require(signals[addedIndex].body.last?.interfacesAndPropertiesValue)
        let device = try #require(interfaces["org.bluez.Device1"])
        #expect(interfaces["org.freedesktop.DBus.Introspectable"] == [:])
        #expect(interfaces["org.freedesktop.DBus.Properties"] == [:])
        let expected: [String: String] = [
            "Address": "s", "AddressType": "s", "Name": "s", "Alias": "s", "Adapter": "o", "RSSI": "n",
            "UUIDs": "as", "ManufacturerData": "a{qv}", "ServiceData": "a{sv}", "Paired": "b", "Bonded": "b",
            "Trusted": "b", "Blocked": "b", "LegacyPairing": "b", "Connected": "b", "ServicesResolved": "b",
            "TxPower": "n",
        ]
        for (name, signature) in expected {
            #expect(device[name]?.typeSignature == signature, "Device1.\(name)")
        }
        #expect(device["RSSI"] == .int16(-48))
        #expect(device["ManufacturerData"]?.uint16DictionaryValue?[0x04B8]?.bytesValue == [1, 2])
        #expect(
            device["ServiceData"]?.stringDictionaryValue?["0000180f-0000-1000-8000-00805f9b34fb"]?.bytesValue == [0x64])
        #expect(device["UUIDs"]?.stringArrayValue == ["0000180f-0000-1000-8000-00805f9b34fb"])
        #expect(device["Name"] == .string("Chessnut Air"))
        // Nothing about the device was signalled before it was announced.
        #expect(!signals[..<addedIndex].contains { $0.path == path })
    }

    @Test func sessionsArePerSender() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let other = try await DBusConnection(address: fixture.daemon.address)
        defer { other.close() }
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StartDiscovery")
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StartDiscovery", on: other)
        let twice = await capturedError { _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StartDiscovery") }
        #expect(twice == DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StopDiscovery")
        #expect(try await fixture.property("Discovering", SimFixture.adapter, Self.hci0) == .bool(true))
        let stray = await capturedError { _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StopDiscovery") }
        #expect(stray == DBusError(name: "org.bluez.Error.Failed", message: "No discovery started"))
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StopDiscovery", on: other)
        #expect(try await fixture.property("Discovering", SimFixture.adapter, Self.hci0) == .bool(false))
    }

    @Test(arguments: [
        DBusValue.propertyDictionary(["Colour": .string("red")]),
        .propertyDictionary(["RSSI": .int32(-60)]),
        .propertyDictionary(["RSSI": .int16(-60), "Pathloss": .uint16(10)]),
        .propertyDictionary(["RSSI": .int16(50)]),
        .propertyDictionary(["Transport": .string("radio")]),
        .propertyDictionary(["UUIDs": .strings(["not-a-uuid"])]),
        .propertyDictionary(["DuplicateData": .string("yes")]),
    ])
    func badFiltersAreInvalidArguments(_ filter: DBusValue) async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let error = await capturedError {
            _ = try await fixture.call(Self.hci0, SimFixture.adapter, "SetDiscoveryFilter", [filter])
        }
        #expect(
            error == DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call"))
    }

    @Test func filtersSelectWhatIsReported() async throws {
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus])
        defer { fixture.close() }
        let chessnut = SimFixture.devicePath("AA:BB:CC:00:00:01")
        let filters = try await fixture.call(Self.hci0, SimFixture.adapter, "GetDiscoveryFilters")
        #expect(filters.first?.stringArrayValue?.contains("Pattern") == true)
        _ = try await fixture.call(
            Self.hci0, SimFixture.adapter, "SetDiscoveryFilter",
            [
                .propertyDictionary([
                    "Transport": .string("le"), "DuplicateData": .bool(false), "Pattern": .string("DGT"),
                ])
            ])
        try await fixture.discover("AA:BB:CC:00:00:02")
        // Both boards advertise every round; three rounds later the Chessnut is still
        // unreported (each round weighs it before the Pegasus, whose RSSI change we see).
        try await fixture.advertisingRounds(3, counter: "pegasus")
        #expect(fixture.signals.firstIndex { SignalRecorder.isAdded($0, chessnut) } == nil)
        // An empty filter clears it; the next rounds report the Chessnut.
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "SetDiscoveryFilter", [.propertyDictionary([:])])
        #expect(await eventually { fixture.signals.firstIndex { SignalRecorder.isAdded($0, chessnut) } != nil })
    }

    @Test func rssiChangesFollowTheThreshold() async throws {
        // The Pegasus counts advertisement rounds.
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus])
        defer { fixture.close() }
        let path = try await fixture.discover("AA:BB:CC:00:00:01")
        func rssiSignals() -> [DBusValue] {
            fixture.signals.messages.compactMap {
                SignalRecorder.changes($0, path: path, interface: SimFixture.device)?["RSSI"]
            }
        }
        try fixture.sim.setRSSI(board: "air", -55)  // 5 dBm: below BlueZ's 8 dBm threshold
        // Three rounds report the Chessnut at -55 before the Pegasus, whose RSSI change we see.
        try await fixture.advertisingRounds(3, counter: "pegasus")
        #expect(rssiSignals().isEmpty)
        try fixture.sim.setRSSI(board: "air", -40)
        #expect(await eventually { rssiSignals() == [.int16(-40)] })

        // Stopping invalidates RSSI; the next discovery re-reports it.
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StopDiscovery")
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.invalidated($0, path: path, interface: SimFixture.device) == ["RSSI"]
                }
            })
        let rssiError = await capturedError { _ = try await fixture.property("RSSI", SimFixture.device, path) }
        #expect(rssiError?.name == DBusError.Name.invalidArgs)
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StartDiscovery")
        #expect(await eventually { rssiSignals() == [.int16(-40), .int16(-40)] })
    }

    @Test func anRSSIFilterReportsEveryChange() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        _ = try await fixture.call(
            Self.hci0, SimFixture.adapter, "SetDiscoveryFilter", [.propertyDictionary(["RSSI": .int16(-100)])])
        let path = try await fixture.discover("AA:BB:CC:00:00:01")
        try fixture.sim.setRSSI(board: "air", -58)
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets($0, path: path, interface: SimFixture.device, "RSSI", .int16(-58))
                }
            })
    }

    @Test(arguments: [false, true])
    func advertisedDataIsSignalledOnChangeOrAlwaysWithDuplicateData(_ duplicateData: Bool) async throws {
        var board = SimFixture.chessnut
        board.manufacturerData = ["0x04b8": "0102"]
        // The Pegasus counts advertisement rounds.
        let fixture = try await SimFixture(boards: [board, SimFixture.pegasus])
        defer { fixture.close() }
        _ = try await fixture.call(
            Self.hci0, SimFixture.adapter, "SetDiscoveryFilter",
            [.propertyDictionary(["DuplicateData": .bool(duplicateData)])])
        let path = try await fixture.discover("AA:BB:CC:00:00:01")
        func manufacturerSignals() -> Int {
            fixture.signals.messages.filter {
                SignalRecorder.changes($0, path: path, interface: SimFixture.device)?["ManufacturerData"] != nil
            }.count
        }
        if duplicateData {
            #expect(await eventually { manufacturerSignals() >= 2 })
        } else {
            // Three rounds report the Chessnut's unchanged data before the Pegasus, whose RSSI
            // change we see.
            try await fixture.advertisingRounds(3, counter: "pegasus")
            #expect(manufacturerSignals() == 0)
        }
    }

    @Test func departedClientsLoseTheirSessions() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let other = try await DBusConnection(address: fixture.daemon.address)
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StartDiscovery", on: other)
        #expect(fixture.sim.adapterStatuses.first?.discovering == true)
        other.close()
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets($0, path: Self.hci0, interface: SimFixture.adapter, "Discovering", .bool(false))
                }
            })
        #expect(fixture.sim.adapterStatuses.first?.sessions == 0)
    }

    @Test func temporaryDevicesExpireAfterDiscovery() async throws {
        var behavior = SimFixture.fast
        behavior.temporaryTimeout = 1
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus], behavior: behavior)
        defer { fixture.close() }
        let chessnut = try await fixture.discover("AA:BB:CC:00:00:01")
        let pegasus = SimFixture.devicePath("AA:BB:CC:00:00:02")
        #expect(await eventually { fixture.signals.firstIndex { SignalRecorder.isAdded($0, pegasus) } != nil })
        _ = try await fixture.call(pegasus, SimFixture.device, "Connect")  // connecting makes it permanent
        // A round after the Connect restarts the Chessnut's timeout, not the Pegasus's (it is
        // connected): a timeout of the Pegasus would end at least a round before the
        // Chessnut's, so its InterfacesRemoved would come before the Chessnut's.
        try await fixture.advertisingRounds(1, counter: "air")
        _ = try await fixture.call(Self.hci0, SimFixture.adapter, "StopDiscovery")
        #expect(
            await eventually(timeout: .seconds(60)) {
                fixture.signals.firstIndex { SignalRecorder.isRemoved($0, chessnut) } != nil
            })
        #expect(fixture.signals.firstIndex { SignalRecorder.isRemoved($0, pegasus) } == nil)
    }
}
