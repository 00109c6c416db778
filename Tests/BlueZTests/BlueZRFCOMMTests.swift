import BlueZ
import BoardKit
import DBus
import Foundation
import TestSupport
import Testing

/// The Classic side of the fake, through its control object.
@MainActor
struct ClassicControl {
    let fixture: SimulatorFixture

    @discardableResult
    func call(_ member: String, _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await fixture.control.call(
            destination: "org.bluez", path: "/org/boardbridge/sim/classic",
            interface: "org.boardbridge.ClassicSimulator1", member: member, body: body, timeout: .seconds(30))
    }

    func received(_ id: String) async throws -> String {
        String(decoding: try await call("Received", [.string(id)]).first?.bytesValue ?? [], as: UTF8.self)
    }

    func status(_ id: String) async throws -> [String: DBusValue] {
        try await call("ClassicStatus", [.string(id)]).first?.stringDictionaryValue ?? [:]
    }
}

@MainActor
private func rawText(_ events: [BoardEvent]) -> String {
    events.compactMap { if case .raw(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
        .joined()
}

@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct BlueZRFCOMMTests {
    static let address = "CC:00:00:00:00:01"

    private func setUp() async throws -> (SimulatorFixture, ClassicControl, BlueZSerialProfile) {
        let fixture = try await SimulatorFixture(boards: [SimulatedBoards.chessnut + ",known=true"])
        let control = ClassicControl(fixture: fixture)
        try await control.call(
            "AddClassicBoard", [.string("dgt"), .string(Self.address), .string("DGT_BT_1"), .string("hci0")])
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        _ = await eventually { fixture.manager.model.devices.values.contains { $0.address == Self.address } }
        return (fixture, control, BlueZSerialProfile(manager: fixture.manager))
    }

    private func transport(
        _ fixture: SimulatorFixture, _ profile: BlueZSerialProfile, address: String = address,
        policy: BoardReconnectPolicy = BoardReconnectPolicy(maxAttempts: 3, delays: [0.2])
    ) -> BlueZRFCOMMTransport {
        BlueZRFCOMMTransport(
            manager: fixture.manager, profile: profile, address: address, policy: policy, connectTimeout: 8,
            initialRetryDelay: 0.3
        ) { RawBytesAdapter() }
    }

    @Test func bytesFlowBothWaysThenADropReconnectsAndBytesFlowAgain() async throws {
        let (fixture, control, profile) = try await setUp()
        defer { fixture.stop() }
        let transport = transport(fixture, profile)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { transport.state == .connected })
        #expect(profile.isRegistered)
        let profiles = try await control.call("ListProfiles").first?.arrayValue ?? []
        #expect(profiles.count == 1)
        // The handshake "H" reached the board and came back (echo); a command does too.
        transport.send(.requestState)
        #expect(await eventually { rawText(recorder.events) == "HS" })
        #expect(try await control.received("dgt") == "HS")
        // Board → host without a request.
        try await control.call("SendToHost", [.string("dgt"), .bytes(Array("board".utf8))])
        #expect(await eventually { rawText(recorder.events) == "HSboard" })

        // The board drops the link: down, then ConnectProfile again and the reconnect handshake.
        try await control.call("DropClassicLink", [.string("dgt")])
        #expect(
            await eventually {
                recorder.count { if case .disconnected(error: .some) = $0 { true } else { false } } == 1
            })
        #expect(await eventually { transport.state == .connected && transport.linkCount == 2 })
        #expect(await eventually { rawText(recorder.events) == "HSboardR" })
        transport.send(.requestState)
        #expect(await eventually { rawText(recorder.events) == "HSboardRS" })
        #expect(try await control.status("dgt")["ConnectCount"]?.uint32Value == 2)
        #expect(recorder.count { $0 == .connected } == 2)

        transport.disconnect()
        var connected = true
        for _ in 0..<200 where connected {
            connected = try await control.status("dgt")["Connected"]?.boolValue ?? true
            if connected { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(!connected)
        #expect(transport.state == .disconnected)
    }

    @Test func requestDisconnectionAndReleaseTakeTheLinkDownAndItComesBack() async throws {
        let (fixture, control, profile) = try await setUp()
        defer { fixture.stop() }
        let transport = transport(fixture, profile)
        let recorder = EventRecorder(transport.events)
        defer { recorder.stop() }
        transport.start()
        #expect(await eventually { transport.state == .connected })

        try await control.call("RequestClassicDisconnection", [.string("dgt")])
        #expect(try await control.status("dgt")["RequestDisconnectionCount"]?.uint32Value == 1)
        #expect(await eventually { transport.linkCount == 2 && transport.state == .connected })
        #expect(
            recorder.events.contains(.disconnected(error: "BlueZ requested the disconnection")))

        // bluetoothd releases every profile (as when it exits): the link drops, the profile is
        // registered again on the reconnect.
        let released = try await control.call("ReleaseProfiles").first?.uint32Value
        #expect(released == 1)
        #expect(await eventually { transport.linkCount == 3 && transport.state == .connected })
        #expect(profile.isRegistered)
        #expect((try await control.call("ListProfiles").first?.arrayValue ?? []).count == 1)
        transport.disconnect()
    }

    @Test func aBoardThatStaysAwayExhaustsThePolicy() async throws {
        let (fixture, control, profile) = try await setUp()
        defer { fixture.stop() }
        let transport = transport(fixture, profile, policy: BoardReconnectPolicy(maxAttempts: 2, delays: [0.1]))
        transport.start()
        #expect(await eventually { transport.state == .connected })
        try await control.call("SetClassicPresent", [.string("dgt"), .bool(false)])
        #expect(await eventually { transport.state == .disconnected })
        #expect(transport.lastError?.contains("br-connection-page-timeout") == true)
        // Back in range: start() connects again.
        try await control.call("SetClassicPresent", [.string("dgt"), .bool(true)])
        transport.start()
        #expect(await eventually { transport.state == .connected && transport.linkCount == 2 })
        transport.disconnect()
    }

    @Test func errorsAreClear() async throws {
        let (fixture, control, profile) = try await setUp()
        defer { fixture.stop() }
        // ConnectProfile before any profile is registered: bluetoothd has no service for it.
        let devicePath = "/org/bluez/hci0/dev_CC_00_00_00_00_01"
        await #expect(throws: DBusError.self) {
            try await fixture.control.call(
                destination: "org.bluez", path: devicePath, interface: "org.bluez.Device1",
                member: "ConnectProfile", body: [.string(BlueZSerialProfile.serialPortUUID)])
        }
        do {
            _ = try await fixture.control.call(
                destination: "org.bluez", path: devicePath, interface: "org.bluez.Device1",
                member: "ConnectProfile", body: [.string(BlueZSerialProfile.serialPortUUID)])
        } catch {
            #expect(error.name == "org.bluez.Error.NotAvailable")
            #expect(error.message == "br-connection-profile-unavailable")
        }
        // A second registration of the same object by the same client; an unknown unregister.
        try await profile.register()
        do {
            _ = try await fixture.manager.call(
                path: "/org/bluez", interface: "org.bluez.ProfileManager1", member: "RegisterProfile",
                body: [.objectPath(profile.path), .string("1101"), .propertyDictionary([])])
            Issue.record("a second RegisterProfile succeeded")
        } catch {
            #expect(error.name == "org.bluez.Error.AlreadyExists")
        }
        do {
            _ = try await fixture.manager.call(
                path: "/org/bluez", interface: "org.bluez.ProfileManager1", member: "UnregisterProfile",
                body: [.objectPath("/nothing/here")])
            Issue.record("UnregisterProfile of an unknown object succeeded")
        } catch {
            #expect(error.name == "org.bluez.Error.DoesNotExist")
        }

        // A connection nobody asked for (another client's ConnectProfile): the bridge's profile
        // refuses NewConnection, so bluetoothd's caller gets "refused".
        do {
            _ = try await fixture.control.call(
                destination: "org.bluez", path: devicePath, interface: "org.bluez.Device1",
                member: "ConnectProfile", body: [.string(BlueZSerialProfile.serialPortUUID)])
            Issue.record("an unsolicited connection was accepted")
        } catch {
            #expect(error.name == "org.bluez.Error.Failed")
            #expect(error.message == "br-connection-refused")
        }
        #expect(try await control.status("dgt")["Connected"]?.boolValue == false)

        // A device BlueZ does not know.
        let absent = transport(fixture, profile, address: "CC:00:00:00:00:99")
        absent.start()
        #expect(await eventually { absent.lastError != nil })
        #expect(absent.lastError?.contains("CC:00:00:00:00:99 is not known to BlueZ") == true)
        absent.disconnect()

        // An LE-only board (GATT, no SPP): bluetoothd's BR/EDR profile error.
        let leOnly = transport(fixture, profile, address: "AA:00:00:00:00:01")
        leOnly.start()
        #expect(await eventually { leOnly.lastError != nil })
        #expect(leOnly.lastError?.contains("br-connection-profile-unavailable") == true)
        #expect(leOnly.state == .disconnected)
        leOnly.disconnect()
    }
}

@Suite(.serialized, .enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct BlueZRFCOMMSharedProfileTests {
    @Test func twoBoardsShareOneProfileAndTheirBytesStaySeparate() async throws {
        let fixture = try await SimulatorFixture(boards: [])
        defer { fixture.stop() }
        let control = ClassicControl(fixture: fixture)
        for (id, address) in [("one", "CC:00:00:00:00:01"), ("two", "CC:00:00:00:00:02")] {
            try await control.call("AddClassicBoard", [.string(id), .string(address), .string(id), .string("hci0")])
        }
        fixture.manager.start()
        #expect(await fixture.manager.waitUntilReady(timeout: 20))
        #expect(await eventually { fixture.manager.model.devices.count == 2 })
        let profile = BlueZSerialProfile(manager: fixture.manager)
        let transports = ["CC:00:00:00:00:01", "CC:00:00:00:00:02"].map { address in
            BlueZRFCOMMTransport(manager: fixture.manager, profile: profile, address: address, connectTimeout: 8) {
                RawBytesAdapter()
            }
        }
        let recorders = transports.map { EventRecorder($0.events) }
        defer { for recorder in recorders { recorder.stop() } }
        for transport in transports { transport.start() }
        #expect(await eventually { transports.allSatisfy { $0.state == .connected } })
        transports[1].send(.requestState)
        transports[1].send(.requestState)
        #expect(await eventually { rawText(recorders[1].events) == "HSS" })
        #expect(rawText(recorders[0].events) == "H")
        #expect(try await control.received("one") == "H")
        #expect(try await control.received("two") == "HSS")
        #expect((try await control.call("ListProfiles").first?.arrayValue ?? []).count == 1)
        for transport in transports { transport.disconnect() }
    }
}
