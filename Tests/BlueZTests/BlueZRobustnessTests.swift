import BlueZ
import BoardKit
import Chess
import DBus
import Foundation
import TestSupport
import Testing

@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZRobustnessTests {
    /// A new boardsim is a power-cycled board too; Chessnut's reconnect handshake opens its
    /// session again, so the piece stream shows the moves played after the restart.
    @Test func aRestartOfBlueZIsSurvived() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.chessnut, policy: BoardReconnectPolicy(maxAttempts: 30, delays: [0.3]))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })

        await fixture.killBoardsim()
        let lost = await eventually {
            recorder.events.contains { if case .disconnected(let error) = $0 { error != nil } else { false } }
                && fixture.manager.state == .waitingForBlueZ
        }
        #expect(lost, "\(recorder.events)\n\(fixture.log.text)")
        #expect(fixture.manager.model.devices.isEmpty)
        #expect(fixture.log.contains("org.bluez left the bus"))
        if case .reconnecting = transport.state {} else { Issue.record("state \(transport.state)") }

        try await fixture.startBoardsim()
        let back = await eventually(timeout: .seconds(40)) { recorder.count { $0 == .ready } == 2 }
        #expect(back, "\(recorder.events)\n\(fixture.log.text)")
        #expect(fixture.manager.state == .ready)
        let moves = SimulatedBoards.randomGame(plies: 4, seed: 11)
        try await fixture.play("chessnut", moves, pace: 0.05)
        var position = Position.starting
        for move in moves { position = position.applying(try #require(position.legalMove(uci: move))) }
        let expected = position.snapshot
        let shown = await eventually {
            recorder.events.last { if case .pieces = $0 { true } else { false } } == .pieces(expected)
        }
        #expect(shown, "\(recorder.events.suffix(3))\n\(fixture.log.text)")
        transport.disconnect()
    }

    @Test func aVanishedBusIsLoggedAndEndsInDisconnected() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut])
        defer { fixture.stop() }
        fixture.manager.start()
        var settings = SimulatorFixture.settings
        settings.connectTimeout = 0.5
        let transport = try fixture.transport(
            .chessnut, policy: BoardReconnectPolicy(maxAttempts: 2, delays: [0.1]), settings: settings)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })

        fixture.daemon.kill()
        let gaveUp = await eventually { transport.state == .disconnected }
        #expect(gaveUp, "\(transport.state)\n\(fixture.log.text)")
        if case .busUnavailable = fixture.manager.state {} else { Issue.record("manager \(fixture.manager.state)") }
        #expect(fixture.log.contains("lost the D-Bus connection", level: .error))
        #expect(recorder.count { if case .disconnected(let error) = $0 { error != nil } else { false } } == 1)
        #expect(transport.lastError == BlueZLinkError.busUnavailable.description)
        // The manager keeps trying to reach the bus, logging each failure.
        #expect(await eventually { fixture.log.contains("is not usable") })
    }

    @Test func anAdapterPoweredOffAndOnAgainGetsItsBoardBack() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.pegasus])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(
            .dgtPegasus, policy: BoardReconnectPolicy(maxAttempts: 40, delays: [0.25]))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        let statuses = StatusRecorder(transport)
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        try await fixture.setPowered("hci0", false)
        #expect(await eventually { fixture.manager.radioState(forAdapter: "hci0") == .poweredOff })
        // The reconnect waits for power, showing it, and spends no attempts meanwhile (at
        // most the one under way when the power went).
        #expect(await eventually { transport.state == .poweredOff }, "\(statuses.states)")
        // While it waits for power the transport does nothing one could observe, so this is
        // a span of time, but on the transport's own scheduler: attempts spent meanwhile would
        // each be paced by a 0.25 s timer there, and six of those fit before this one fires.
        #expect(await fixture.manager.scheduler.sleep(1.5))
        #expect(transport.state == .poweredOff)
        #expect((transport.status.reconnectAttempt ?? 0) <= 2, "\(statuses.states)")
        try await fixture.setPowered("hci0", true)
        let back = await eventually(timeout: .seconds(30)) { recorder.count { $0 == .ready } == 2 }
        #expect(back, "\(recorder.events)\n\(fixture.log.text)")
        #expect(transport.state == .connected)
        let states = statuses.states
        let off = try #require(states.lastIndex(of: .poweredOff))
        #expect(states[off...].contains { if case .reconnecting = $0 { true } else { false } }, "\(states)")
        #expect(!states.contains(.disconnected), "\(states)")
        let violations = try await fixture.violations("pegasus")
        #expect(violations["total"] == 0, "\(violations)")
        transport.disconnect()
    }

    @Test func aBoardSwitchedOffIsFoundAgainWhenItReturns() async throws {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.millennium])
        defer { fixture.stop() }
        fixture.manager.start()
        let transport = try fixture.transport(.millennium, policy: BoardReconnectPolicy(maxAttempts: 40, delays: [0.2]))
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        let statuses = StatusRecorder(transport)
        transport.start()
        #expect(await eventually { recorder.events.contains(.ready) })
        try await fixture.setPresent("millennium", false)
        #expect(await eventually { statuses.states.contains(.reconnecting(attempt: 2)) })
        try await fixture.setPresent("millennium", true)
        let back = await eventually(timeout: .seconds(30)) { recorder.count { $0 == .ready } == 2 }
        #expect(back, "\(statuses.states)\n\(fixture.log.text)")
        transport.disconnect()
    }
}

/// A hand-made `org.bluez` that answers whatever the test wants: for bad input.
@MainActor
final class StubBlueZ {
    let daemon: PrivateDBusDaemon
    let connection: DBusConnection
    var managedObjects: @MainActor (DBusMethodInvocation) -> Void = { $0.reply([.string("nonsense")]) }
    var connect: @MainActor (DBusMethodInvocation) -> Void = { $0.reply([.string("surprise")]) }
    private(set) var calls: [String] = []

    static let adapter = "/org/bluez/hci0"
    static let device = "/org/bluez/hci0/dev_AA_BB_CC_00_00_01"

    init() async throws {
        daemon = try await PrivateDBusDaemon()
        do {
            connection = try await DBusConnection(address: daemon.address)
            _ = try await connection.requestName("org.bluez", flags: [.doNotQueue])
        } catch {
            daemon.stop()
            throw error
        }
        try connection.registerObject(at: "/", subtree: true) { [weak self] invocation in
            guard let self else { return }
            self.calls.append("\(invocation.path) \(invocation.member)")
            switch invocation.member {
            case "GetManagedObjects": self.managedObjects(invocation)
            case "Connect": self.connect(invocation)
            case "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery", "Disconnect": invocation.reply()
            default: invocation.fail(DBusError.noSuchMethod(invocation.message))
            }
        }
    }

    /// An adapter, a Chessnut without an Address property (the path gives it), and a device
    /// object nothing can identify.
    static var tree: DBusValue {
        .managedObjects([
            (adapter, [("org.bluez.Adapter1", [("Powered", .bool(true)), ("Address", .string("00:11:22:33:44:55"))])]),
            (
                device,
                [
                    (
                        "org.bluez.Device1",
                        [("Name", .string("Chessnut Air")), ("Connected", .bool(false)), ("RSSI", .int16(-40))]
                    )
                ]
            ),
            ("/org/bluez/hci0/mystery", [("org.bluez.Device1", [("Name", .string("?"))])]),
        ])
    }

    /// Two Chessnuts on one adapter.
    static var twoBoards: DBusValue {
        .managedObjects([
            (adapter, [("org.bluez.Adapter1", [("Powered", .bool(true))])]),
            (device, [("org.bluez.Device1", [("Name", .string("Chessnut Air")), ("Connected", .bool(false))])]),
            (
                "/org/bluez/hci0/dev_AA_BB_CC_00_00_02",
                [("org.bluez.Device1", [("Name", .string("Chessnut Air")), ("Connected", .bool(false))])]
            ),
        ])
    }

    func emit(path: String, interface: String, member: String, _ body: [DBusValue]) throws {
        try connection.emitSignal(path: path, interface: interface, member: member, body: body)
    }

    func stop() {
        connection.close()
        daemon.stop()
    }
}

@MainActor
@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
struct BlueZBadInputTests {
    @Test func unexpectedRepliesAndMalformedSignalsAreLoggedNotFatal() async throws {
        let stub = try await StubBlueZ()
        defer { stub.stop() }
        let log = LogCollector()
        let manager = BlueZManager(
            busAddress: stub.daemon.address, settings: BlueZManagerSettings(busRetryDelays: [0.1, 0.2]),
            logger: log.logger)
        defer { manager.stop() }
        manager.start()
        #expect(await eventually { log.contains("GetManagedObjects failed", level: .warning) })
        #expect(manager.state != .ready)

        try stub.emit(
            path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded", [.string("x")])
        try stub.emit(
            path: StubBlueZ.adapter, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            [.uint32(1)])
        #expect(
            await eventually {
                log.contains("malformed InterfacesAdded") && log.contains("malformed PropertiesChanged")
            })

        stub.managedObjects = { $0.reply([StubBlueZ.tree]) }
        #expect(await eventually { manager.state == .ready }, "\(log.text)")
        #expect(manager.model.devices[StubBlueZ.device]?.address == "AA:BB:CC:00:00:01")
        #expect(manager.model.devices.count == 1)
        #expect(log.contains("has no usable Address/Adapter"))

        // Wrong types and unknown objects.
        try stub.emit(
            path: StubBlueZ.device, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            [.string("org.bluez.Device1"), .propertyDictionary(["Connected": .string("yes")]), .strings([])])
        try stub.emit(
            path: "/org/bluez/hci0/dev_00_00_00_00_00_09", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged",
            [.string("org.bluez.Device1"), .propertyDictionary(["Connected": .bool(true)]), .strings([])])
        #expect(await eventually { log.contains("property Connected has type 's'", level: .warning) })
        #expect(manager.model.devices[StubBlueZ.device]?.connected == false)
        #expect(await eventually { log.contains("for unknown object /org/bluez/hci0/dev_00_00_00_00_00_09") })

        // An unknown device token.
        var settings = SimulatorFixture.settings
        settings.servicesTimeout = 0.3
        settings.connectTimeout = 2
        let transport = try BlueZBoardTransport(manager: manager, family: .chessnut, settings: settings, label: "stub")
        transport.connect(DiscoveredBoardDevice(id: UUID(), name: "ghost", rssi: -50, token: "/org/bluez/hci0/dev_00"))
        #expect(transport.state == .disconnected)
        #expect(transport.lastError?.contains("unknown device ghost") == true)

        // Connect answers with an unexpected body, then nothing happens: ServicesResolved times out.
        transport.connect(DiscoveredBoardDevice(id: UUID(), name: "Chessnut Air", rssi: -40, token: StubBlueZ.device))
        #expect(await eventually { transport.state == .disconnected && transport.lastError != nil })
        #expect(transport.lastError?.contains("timed out: ServicesResolved") == true, "\(transport.lastError ?? "")")
        // The clean-up Disconnect is sent as the state changes; it reaches the stub a moment later.
        #expect(
            await eventually { stub.calls.contains("\(StubBlueZ.device) Disconnect") }, "a failed attempt cleans up")

        // Connect fails with an error nobody knows: reported, not retried.
        stub.connect = { $0.fail(DBusError(name: "com.example.Weird", message: "odd")) }
        transport.connect(DiscoveredBoardDevice(id: UUID(), name: "Chessnut Air", rssi: -40, token: StubBlueZ.device))
        #expect(await eventually { transport.lastError?.contains("com.example.Weird: odd") == true })
        #expect(transport.state == .disconnected)
    }

    @Test func accessDeniedMakesTransportsUnauthorized() async throws {
        let stub = try await StubBlueZ()
        defer { stub.stop() }
        stub.managedObjects = {
            $0.fail(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "Rejected send message"))
        }
        let manager = BlueZManager(
            busAddress: stub.daemon.address, settings: BlueZManagerSettings(busRetryDelays: [0.1]))
        defer { manager.stop() }
        let transport = try BlueZBoardTransport(manager: manager, family: .chessUp)
        manager.start()
        #expect(await eventually { if case .unauthorized = manager.state { true } else { false } })
        #expect(transport.state == .unauthorized)
        stub.managedObjects = { $0.reply([StubBlueZ.tree]) }
        #expect(await eventually { manager.state == .ready })
        #expect(transport.state == .idle)
    }

    @Test func noBusAtAllIsRetriedWithoutCrashing() async throws {
        let log = LogCollector()
        let manager = BlueZManager(
            busAddress: "unix:path=/tmp/bb-no-such-bus-\(UUID().uuidString.prefix(8))",
            settings: BlueZManagerSettings(busRetryDelays: [0.05]), logger: log.logger)
        defer { manager.stop() }
        let transport = try BlueZBoardTransport(manager: manager, family: .millennium)
        manager.start()
        #expect(await eventually { if case .busUnavailable = manager.state { true } else { false } })
        #expect(await eventually { log.lines.filter { $0.1.contains("is not usable") }.count >= 2 })
        #expect(transport.state == .poweredOff)
        transport.startScan()
        #expect(transport.state == .poweredOff)
        transport.stopScan()
    }

    @Test func connectsAreSerializedPerAdapter() async throws {
        let stub = try await StubBlueZ()
        defer { stub.stop() }
        stub.managedObjects = { $0.reply([StubBlueZ.twoBoards]) }
        var held: [DBusMethodInvocation] = []
        stub.connect = { held.append($0) }
        let manager = BlueZManager(busAddress: stub.daemon.address)
        defer { manager.stop() }
        manager.start()
        #expect(await manager.waitUntilReady(timeout: 10))
        var settings = SimulatorFixture.settings
        settings.servicesTimeout = 30
        let first = try BlueZBoardTransport(manager: manager, family: .chessnut, settings: settings)
        let second = try BlueZBoardTransport(manager: manager, family: .chessnut, settings: settings)
        first.connect(DiscoveredBoardDevice(id: UUID(), name: "a", rssi: -40, token: StubBlueZ.device))
        second.connect(
            DiscoveredBoardDevice(id: UUID(), name: "b", rssi: -40, token: "/org/bluez/hci0/dev_AA_BB_CC_00_00_02"))
        #expect(await eventually { held.count == 1 })
        // The second transport names its board once its link is set up, right before it asks
        // for the connect slot; a Connect that did not wait would leave in that same turn.
        // The round trip on the manager's connection leaves after it, so the stub holds it
        // by the time the round trip is answered.
        let address = "AA:BB:CC:00:00:02"
        #expect(await eventually { second.status.deviceAddress == address }, "\(second.status)")
        try await manager.callAfterQueuedWork()
        #expect(held.count == 1, "the second Connect waits for the first")
        held[0].fail(DBusError(name: "org.bluez.Error.Failed", message: "Input/output error"))
        #expect(await eventually { held.count == 2 })
        #expect(stub.calls.filter { $0.hasSuffix(" Connect") }.count == 2)
        held[1].reply()
        first.disconnect()
        second.disconnect()
    }
}
