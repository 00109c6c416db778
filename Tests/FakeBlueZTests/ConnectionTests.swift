import BoardKit
import DBus
import FakeBlueZ
import TestSupport
import Testing

/// `Device1.Connect`/`Disconnect`, GATT announcement, injected failures, drops and removal
/// (§3.3, §4.3).
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct ConnectionTests {
    static let chessnut = "AA:BB:CC:00:00:01"
    static let devicePath = SimFixture.devicePath(chessnut)
    static let stateService = devicePath + "/service000f"
    static let stateCharacteristic = stateService + "/char0010"
    static let stateCCCD = stateCharacteristic + "/desc0012"

    @Test func connectAnnouncesGATTBeforeServicesResolved() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.discover(Self.chessnut)
        _ = try await fixture.call("/org/bluez/hci0", SimFixture.adapter, "StopDiscovery")
        let before = fixture.signals.messages.count
        _ = try await fixture.call(path, SimFixture.device, "Connect")
        // Connected=true is signalled before the Connect reply.
        let connected = fixture.signals.firstIndex(after: before - 1) {
            SignalRecorder.sets($0, path: path, interface: SimFixture.device, "Connected", .bool(true))
        }
        #expect(connected != nil, "\(fixture.signals.summary)")
        let resolved = await eventually {
            fixture.signals.firstIndex {
                SignalRecorder.sets($0, path: path, interface: SimFixture.device, "ServicesResolved", .bool(true))
            } != nil
        }
        try #require(resolved, "\(fixture.signals.summary)")
        let signals = fixture.signals.messages
        let resolvedIndex = try #require(
            signals.firstIndex {
                SignalRecorder.sets($0, path: path, interface: SimFixture.device, "ServicesResolved", .bool(true))
            })
        let added = signals.indices.filter { signals[$0].member == "InterfacesAdded" && $0 > before }
        let addedPaths = added.compactMap { signals[$0].body.first?.objectPathValue }
        #expect(addedPaths.contains(Self.stateService))
        #expect(addedPaths.contains(Self.stateCharacteristic))
        #expect(addedPaths.contains(Self.stateCCCD))
        #expect(added.allSatisfy { $0 < resolvedIndex })
        // Parent before child.
        for (position, child) in addedPaths.enumerated() {
            let parent = String(child[..<(child.lastIndex(of: "/") ?? child.endIndex)])
            if let parentPosition = addedPaths.firstIndex(of: parent) { #expect(parentPosition < position) }
        }
        // UUIDs updated between the objects and ServicesResolved.
        let uuids = try #require(
            signals.firstIndex { SignalRecorder.changes($0, path: path, interface: SimFixture.device)?["UUIDs"] != nil }
        )
        #expect(uuids > (added.last ?? 0) && uuids < resolvedIndex)
        let uuidList = SignalRecorder.changes(signals[uuids], path: path, interface: SimFixture.device)?["UUIDs"]
        #expect(uuidList?.stringArrayValue?.contains("1b7e8261-2877-41c3-b46e-cf057c562023") == true)

        // Types and handles of the GATT objects.
        let objects = try await fixture.managedObjects()
        let service = try #require(objects[Self.stateService]?["org.bluez.GattService1"])
        #expect(service["UUID"] == .string("1b7e8261-2877-41c3-b46e-cf057c562023"))
        #expect(service["Device"] == .objectPath(path))
        #expect(service["Primary"] == .bool(true))
        #expect(service["Handle"] == .uint16(0x000F))
        let characteristic = try #require(objects[Self.stateCharacteristic]?[SimFixture.characteristic])
        #expect(characteristic["Service"] == .objectPath(Self.stateService))
        #expect(characteristic["Flags"] == .strings(["notify"]))
        #expect(characteristic["Value"] == .bytes([]))
        #expect(characteristic["Notifying"] == .bool(false))
        #expect(characteristic["MTU"] == .uint16(185))
        #expect(characteristic["Handle"] == .uint16(0x0010))
        #expect(characteristic["NotifyAcquired"] == .bool(false))
        let descriptor = try #require(objects[Self.stateCCCD]?["org.bluez.GattDescriptor1"])
        #expect(descriptor["UUID"] == .string("00002902-0000-1000-8000-00805f9b34fb"))
        #expect(descriptor["Characteristic"] == .objectPath(Self.stateCharacteristic))
    }

    /// A second Connect to the same device is `InProgress`; one to another device of the
    /// adapter waits its turn (the kernel queues LE connects) and succeeds.
    @Test func overlappingConnectsAreInProgressOrQueued() async throws {
        var behavior = SimFixture.fast
        // Long enough for the monitor's look and two round trips on a loaded machine.
        behavior.connectDelay = 3
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus], behavior: behavior)
        defer { fixture.close() }
        let first = try await fixture.discover(Self.chessnut)
        let second = SimFixture.devicePath("AA:BB:CC:00:00:02")
        #expect(await eventually { fixture.signals.firstIndex { SignalRecorder.isAdded($0, second) } != nil })
        let monitor = try await BusMonitor(address: fixture.daemon.address)
        defer { monitor.stop() }
        // The simulator has the first Connect pending before the next two arrive.
        let pending = try await fixture.callInFlight(first, SimFixture.device, "Connect", monitor: monitor)
        let sameDevice = await capturedError { _ = try await fixture.call(first, SimFixture.device, "Connect") }
        #expect(sameDevice == DBusError(name: "org.bluez.Error.InProgress", message: "In Progress"))
        let otherDevice = await capturedError { _ = try await fixture.call(second, SimFixture.device, "Connect") }
        #expect(otherDevice == nil)
        #expect(await pending.value == nil)
        #expect(try fixture.sim.status(of: "air").connected)
        #expect(try fixture.sim.status(of: "pegasus").connected)
        // Connecting again when connected succeeds at once (no AlreadyConnected for LE).
        _ = try await fixture.call(first, SimFixture.device, "Connect")
    }

    /// `RadioTimes` reports each connect attempt the radio made, with the times it drew
    /// (what the benchmark's start-up floor is made of): a failed attempt without discovery,
    /// a link with it, each within its configured delay and jitter, numbered for "since".
    @Test func radioTimesReportEveryAttemptWithTheTimesDrawn() async throws {
        var behavior = SimFixture.fast
        behavior.connectJitter = 0.05
        behavior.serviceDiscoveryJitter = 0.02
        let fixture = try await SimFixture(boards: [SimFixture.chessnut, SimFixture.pegasus], behavior: behavior)
        defer { fixture.close() }
        func radioTimes(since mark: UInt64) async throws -> [[DBusValue]] {
            let reply = try await fixture.client.call(
                destination: FakeBlueZ.busName, path: FakeBlueZ.controlPath, interface: FakeBlueZ.controlInterface,
                member: "RadioTimes", body: [.uint64(mark)])
            return (reply.first?.arrayValue ?? []).compactMap(\.structValue)
        }
        #expect(try await radioTimes(since: 0).isEmpty)
        let path = try await fixture.discover(Self.chessnut)
        let second = SimFixture.devicePath("AA:BB:CC:00:00:02")
        #expect(await eventually { fixture.signals.firstIndex { SignalRecorder.isAdded($0, second) } != nil })
        _ = try await fixture.call("/org/bluez/hci0", SimFixture.adapter, "StopDiscovery")
        try fixture.sim.failNextConnects(board: "air", count: 1, outcome: .abort)
        _ = await capturedError { _ = try await fixture.call(path, SimFixture.device, "Connect") }
        // Each attempt is recorded as it ends, in the same turn as its Connect reply.
        _ = try await fixture.call(path, SimFixture.device, "Connect")
        _ = try await fixture.call(second, SimFixture.device, "Connect")

        let records = try await radioTimes(since: 0)
        try #require(records.count == 3, "\(records)")
        #expect(records.map { $0[0] } == [.uint64(1), .uint64(2), .uint64(3)])
        #expect(records.allSatisfy { $0[1] == .string("hci0") })
        #expect(
            records.map { $0[2] } == [.string(Self.chessnut), .string(Self.chessnut), .string("AA:BB:CC:00:00:02")])
        for record in records {
            let connect = try #require(record[3].doubleValue)
            #expect(connect >= 0.01 && connect <= 0.06, "\(record)")
        }
        #expect(records[0][4] == .double(-1), "the failed attempt has no discovery")
        for record in records.dropFirst() {
            let discovery = try #require(record[4].doubleValue)
            #expect(discovery >= 0.01 && discovery <= 0.03, "\(record)")
        }
        #expect(try await radioTimes(since: 2).map { $0[0] } == [.uint64(3)])
    }

    @Test(arguments: [
        (
            ConnectOutcome.abort, DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"),
            true
        ),
        (.oldAbort, DBusError(name: "org.bluez.Error.Failed", message: "Software caused connection abort"), true),
        (.timeout, DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"), false),
        (.inProgress, DBusError(name: "org.bluez.Error.InProgress", message: "In Progress"), false),
        (.already, DBusError(name: "org.bluez.Error.Failed", message: "Operation already in progress"), false),
        (.canceled, DBusError(name: "org.bluez.Error.Failed", message: "br-connection-canceled"), false),
        (.ioError, DBusError(name: "org.bluez.Error.Failed", message: "Input/output error"), false),
    ])
    func injectedConnectFailures(
        _ outcome: ConnectOutcome, _ expected: DBusError, _ togglesConnected: Bool
    )
        async throws
    {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.discover(Self.chessnut)
        try fixture.sim.failNextConnects(board: "air", count: 1, outcome: outcome)
        let error = await capturedError { _ = try await fixture.call(path, SimFixture.device, "Connect") }
        #expect(error == expected)
        let connectedChanges = {
            fixture.signals.messages.compactMap {
                SignalRecorder.changes($0, path: path, interface: SimFixture.device)?["Connected"]
            }
        }
        if togglesConnected {
            #expect(
                await eventually { connectedChanges() == [.bool(true), .bool(false)] }, "\(fixture.signals.summary)")
        } else {
            // A round trip after the error: the simulator sends whatever the failed attempt
            // signals before it handles this Get, and its reply follows those signals on
            // our connection.
            #expect(try await fixture.property("Connected", SimFixture.device, path) == .bool(false))
            #expect(connectedChanges().isEmpty, "\(fixture.signals.summary)")
        }
        // Only one failure was queued: the next connect succeeds.
        _ = try await fixture.call(path, SimFixture.device, "Connect")
        #expect(try fixture.sim.status(of: "air").connected)
    }

    @Test func oldBlueZAbortText() async throws {
        var behavior = SimFixture.fast
        behavior.bluezVersion = "5.61"
        let fixture = try await SimFixture(behavior: behavior)
        defer { fixture.close() }
        let path = try await fixture.discover(Self.chessnut)
        try fixture.sim.setPresent(board: "air", false)
        let error = await capturedError { _ = try await fixture.call(path, SimFixture.device, "Connect") }
        #expect(error == DBusError(name: "org.bluez.Error.Failed", message: "Software caused connection abort"))
    }

    @Test func disconnectOrderSince583() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        let before = fixture.signals.messages.count
        _ = try await fixture.call(path, SimFixture.device, "Disconnect")
        let signals = Array(fixture.signals.messages[before...])
        let resolved = signals.firstIndex {
            SignalRecorder.sets($0, path: path, interface: SimFixture.device, "ServicesResolved", .bool(false))
        }
        let disconnected = signals.firstIndex { $0.member == "Disconnected" && $0.path == path }
        let connected = signals.firstIndex {
            SignalRecorder.sets($0, path: path, interface: SimFixture.device, "Connected", .bool(false))
        }
        let order = [resolved, disconnected, connected].compactMap { $0 }
        #expect(order.count == 3 && order == order.sorted(), "\(fixture.signals.summary)")
        if let disconnected {
            #expect(
                signals[disconnected].body == [
                    .string("org.bluez.Reason.Local"), .string("Connection terminated by local host"),
                ])
        }
        // The GATT cache survives; the MTU is gone; Disconnect when idle succeeds.
        let objects = try await fixture.managedObjects()
        #expect(objects[Self.stateCharacteristic] != nil)
        #expect(objects[Self.stateCharacteristic]?[SimFixture.characteristic]?["MTU"] == nil)
        _ = try await fixture.call(path, SimFixture.device, "Disconnect")
    }

    @Test func disconnectOrderBefore583() async throws {
        var behavior = SimFixture.fast
        behavior.bluezVersion = "5.66"
        let fixture = try await SimFixture(behavior: behavior)
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        let before = fixture.signals.messages.count
        _ = try await fixture.call(path, SimFixture.device, "Disconnect")
        let signals = fixture.signals.messages[before...]
        #expect(!signals.contains { $0.member == "Disconnected" })
        let both = signals.first { SignalRecorder.changes($0, path: path, interface: SimFixture.device) != nil }
        let changes = both.flatMap { SignalRecorder.changes($0, path: path, interface: SimFixture.device) }
        #expect(changes == ["ServicesResolved": .bool(false), "Connected": .bool(false)])
    }

    @Test func disconnectCancelsAPendingConnect() async throws {
        var behavior = SimFixture.fast
        // The Disconnect cancels the attempt at once; the delay only has to outlast the wait
        // for the Connect to be pending on a loaded machine.
        behavior.connectDelay = 10
        let fixture = try await SimFixture(behavior: behavior)
        defer { fixture.close() }
        let path = try await fixture.discover(Self.chessnut)
        let monitor = try await BusMonitor(address: fixture.daemon.address)
        defer { monitor.stop() }
        let pending = try await fixture.callInFlight(path, SimFixture.device, "Connect", monitor: monitor)
        _ = try await fixture.call(path, SimFixture.device, "Disconnect")
        #expect(await pending.value == DBusError(name: "org.bluez.Error.Failed", message: "br-connection-canceled"))
    }

    @Test(arguments: [DisconnectReason.remote, .timeout])
    func boardDropsTheLink(_ reason: DisconnectReason) async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        try fixture.sim.dropLink(board: "air", reason: reason)
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    $0.member == "Disconnected" && $0.body == [.string(reason.reasonName), .string(reason.message)]
                }
            })
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets($0, path: path, interface: SimFixture.device, "Connected", .bool(false))
                }
            })
        #expect(try fixture.sim.status(of: "air").connected == false)
    }

    @Test func withoutCacheGATTObjectsGoOnDisconnect() async throws {
        var behavior = SimFixture.fast
        behavior.gattCache = false
        let fixture = try await SimFixture(behavior: behavior)
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        _ = try await fixture.call(path, SimFixture.device, "Disconnect")
        #expect(
            await eventually {
                fixture.signals.firstIndex { SignalRecorder.isRemoved($0, Self.stateCharacteristic) } != nil
            })
        #expect(try await fixture.managedObjects()[Self.stateService] == nil)
        let addedBefore = fixture.signals.messages.filter { SignalRecorder.isAdded($0, Self.stateService) }.count
        _ = try await fixture.call(path, SimFixture.device, "Connect")
        #expect(
            await eventually {
                fixture.signals.messages.filter { SignalRecorder.isAdded($0, Self.stateService) }.count == addedBefore
                    + 1
            })
    }

    @Test(arguments: [true, false])
    func changedServicesAreAnnouncedAgain(whileConnected: Bool) async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        if !whileConnected { _ = try await fixture.call(path, SimFixture.device, "Disconnect") }
        let before = fixture.signals.messages.count
        try fixture.sim.changeServices(board: "air")
        if !whileConnected { _ = try await fixture.call(path, SimFixture.device, "Connect") }
        let isResolved: (DBusMessage) -> Bool = {
            SignalRecorder.sets($0, path: path, interface: SimFixture.device, "ServicesResolved", .bool(true))
        }
        #expect(await eventually { fixture.signals.firstIndex(after: before - 1, where: isResolved) != nil })
        let removed = fixture.signals.firstIndex(after: before - 1) {
            SignalRecorder.isRemoved($0, Self.stateCharacteristic)
        }
        let added = fixture.signals.firstIndex(after: before - 1) {
            SignalRecorder.isAdded($0, Self.stateCharacteristic)
        }
        let resolved = fixture.signals.firstIndex(after: before - 1, where: isResolved)
        let order = [removed, added, resolved].compactMap { $0 }
        #expect(order.count == 3 && order == order.sorted(), "\(fixture.signals.summary)")
    }

    @Test func removeDeviceDisconnectsRepliesThenRemovesChildrenFirst() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        let monitor = try await BusMonitor(address: fixture.daemon.address)
        defer { monitor.stop() }
        let before = fixture.signals.messages.count
        _ = try await fixture.call("/org/bluez/hci0", SimFixture.adapter, "RemoveDevice", [.objectPath(path)])
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    $0.member == "InterfacesRemoved" && $0.body.first?.objectPathValue == path
                }
            })
        // bluetoothd answers from device_remove_connection, after the disconnect's signals, and
        // only then removes the device (#29): in the order the bus routed them.
        let routed = monitor.messages
        let exchange = try #require(monitor.callAndReply(member: "RemoveDevice", path: "/org/bluez/hci0"))
        let between = routed[exchange.call..<exchange.reply].map { $0.field("member") ?? "" }
        #expect(between.contains("Disconnected") && !between.contains("InterfacesRemoved"), "\(between)")
        #expect(routed[exchange.reply...].contains { $0.field("member") == "InterfacesRemoved" })
        let signals = Array(fixture.signals.messages[before...])
        let disconnected = try #require(
            signals.firstIndex { $0.member == "Disconnected" }, "\(fixture.signals.summary)")
        let removed = signals.enumerated().filter { $0.element.member == "InterfacesRemoved" }
        let removedPaths = removed.compactMap { $0.element.body.first?.objectPathValue }
        #expect(removed.allSatisfy { $0.offset > disconnected })
        #expect(removedPaths.last == path)
        let cccd = try #require(removedPaths.firstIndex(of: Self.stateCCCD))
        let characteristic = try #require(removedPaths.firstIndex(of: Self.stateCharacteristic))
        let service = try #require(removedPaths.firstIndex(of: Self.stateService))
        #expect(cccd < characteristic && characteristic < service)
        // bluetoothd tears the GATT objects down in handle order (gatt-client.c: the services
        // queue, each characteristic after its descriptors, each service after them; #29).
        let gatt = removedPaths.filter { $0.hasPrefix(path + "/service") }
        let services = gatt.filter { !$0.contains("/char") }
        #expect(services.count > 3 && services == services.sorted(), "\(services)")
        for (index, removed) in gatt.enumerated() {
            // Everything removed before an object is of a lower handle or its own child.
            #expect(gatt[..<index].allSatisfy { $0 < removed || $0.hasPrefix(removed + "/") }, "\(gatt)")
        }
        #expect(try await fixture.managedObjects().keys.contains { $0.hasPrefix(path) } == false)
        let again = await capturedError {
            _ = try await fixture.call("/org/bluez/hci0", SimFixture.adapter, "RemoveDevice", [.objectPath(path)])
        }
        #expect(again == DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist"))
        // The board still advertises: a new scan finds it again.
        try await fixture.discover(Self.chessnut)
    }

    @Test func poweringOffDropsLinksAndConnectsNeedPower() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        let path = try await fixture.connect(Self.chessnut)
        try fixture.sim.setPowered(adapter: "hci0", false)
        #expect(try fixture.sim.status(of: "air").connected == false)
        let error = await capturedError { _ = try await fixture.call(path, SimFixture.device, "Connect") }
        // bluetoothd's LE path: the ATT socket cannot be created (-EIO).
        #expect(error == DBusError(name: "org.bluez.Error.Failed", message: "Input/output error"))
        try fixture.sim.setPowered(adapter: "hci0", true)
        _ = try await fixture.call(path, SimFixture.device, "Connect")
    }
}
