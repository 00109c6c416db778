import Adapters
import BoardKit
import DBus
import FakeBlueZ
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// GATT I/O: writes reaching the firmware, notifications, sessions and BlueZ's errors (§4).
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct GattTests {
    static let chessnut = "AA:BB:CC:00:00:01"
    static let device = SimFixture.devicePath(chessnut)
    static let state = device + "/service000f/char0010"
    static let write = device + "/service0013/char0014"
    static let response = device + "/service0013/char0016"
    static let manufacturerName = device + "/service000a/char000b"
    static let startSession: [UInt8] = [0x21, 0x01, 0x00]

    /// Values notified on `path`, in order.
    static func values(_ fixture: SimFixture, _ path: String) -> [[UInt8]] {
        fixture.signals.messages.compactMap {
            SignalRecorder.changes($0, path: path, interface: SimFixture.characteristic)?["Value"]?.bytesValue
        }
    }

    func connectAndSubscribe(_ fixture: SimFixture) async throws {
        try await fixture.connect(Self.chessnut)
        _ = try await fixture.call(Self.state, SimFixture.characteristic, "StartNotify")
        _ = try await fixture.call(Self.response, SimFixture.characteristic, "StartNotify")
    }

    func writeValue(_ fixture: SimFixture, _ bytes: [UInt8], type: String = "request") async throws(DBusError) {
        _ = try await fixture.call(
            Self.write, SimFixture.characteristic, "WriteValue",
            [.bytes(bytes), .propertyDictionary(["type": .string(type)])])
    }

    @Test(arguments: BoardFamily.bluetoothLE)
    func everyFamilyExposesItsProfile(_ family: BoardFamily) async throws {
        let board = BoardConfiguration(family: family, address: Self.chessnut, id: "board")
        let fixture = try await SimFixture(boards: [board])
        defer { fixture.close() }
        let device = try await fixture.connect(Self.chessnut)
        let profile = AdapterFactory.profile(for: family, advertisedName: board.effectiveName)
        let objects = try await fixture.managedObjects()
        let services = objects.compactMap { $0.value["org.bluez.GattService1"]?["UUID"]?.stringValue }
        #expect(services.contains(profile.serviceUUID))
        for uuid in profile.notifyCharacteristicUUIDs {
            let path = try await fixture.characteristicPath(uuid, device: device)
            let flags = objects[path]?[SimFixture.characteristic]?["Flags"]?.stringArrayValue ?? []
            #expect(flags.contains("notify"), "\(uuid)")
            #expect(objects.keys.contains { $0.hasPrefix(path + "/desc") }, "CCCD of \(uuid)")
            _ = try await fixture.call(path, SimFixture.characteristic, "StartNotify")
        }
        let write = try await fixture.characteristicPath(profile.writeCharacteristicUUID, device: device)
        let flags = objects[write]?[SimFixture.characteristic]?["Flags"]?.stringArrayValue ?? []
        #expect(flags.contains("write") && flags.contains("write-without-response"))
        let mtu = objects[write]?[SimFixture.characteristic]?["MTU"]?.uint16Value
        #expect(mtu == UInt16(board.effectiveMTU))
        // ChessUp alone has the standard Battery Service (reference §2.1): a readable,
        // notifying Battery Level with the board's battery.
        #expect(services.contains("0000180f-0000-1000-8000-00805f9b34fb") == (family == .chessUp))
        if family == .chessUp {
            let level = try await fixture.characteristicPath("00002a19-0000-1000-8000-00805f9b34fb", device: device)
            let flags = objects[level]?[SimFixture.characteristic]?["Flags"]?.stringArrayValue ?? []
            #expect(flags.contains("read") && flags.contains("notify"))
            let value = try await fixture.call(
                level, SimFixture.characteristic, "ReadValue", [.propertyDictionary([:])])
            #expect(value == [.bytes([UInt8(board.battery)])])
        }
        // Every path ends in a four-digit lower-case hex handle.
        for path in objects.keys where path.hasPrefix(device + "/") {
            let tail = path.suffix(4)
            #expect(tail.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(path)")
        }
    }

    @Test func startSessionGetsAckAndStateFrames() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        #expect(try await fixture.property("Notifying", SimFixture.characteristic, Self.state) == .bool(true))
        try await writeValue(fixture, Self.startSession)
        #expect(await eventually { Self.values(fixture, Self.response).contains([0x23, 0x01, 0x00]) })
        #expect(await eventually { !Self.values(fixture, Self.state).isEmpty })
        let frame = try #require(Self.values(fixture, Self.state).first)
        #expect(frame.count == 38)
        #expect(Array(frame.prefix(2)) == [0x01, 0x24])
        // Streaming: the same state again and again, each its own signal.
        #expect(await eventually { Self.values(fixture, Self.state).count >= 3 })
        let frames = Self.values(fixture, Self.state)
        #expect(frames[1].prefix(34) == frames[2].prefix(34))
        // The write is logged with its time and type.
        let writes = try fixture.sim.writes(board: "air")
        #expect(writes.map(\.bytes) == [Self.startSession])
        #expect(writes.first?.type == "request")
        #expect(writes.first?.characteristic == "1b7e8272-2877-41c3-b46e-cf057c562023")
        #expect((writes.first?.time ?? 0) > 0, "seconds since the simulator started")
    }

    @Test func moveShowsUpInTheStateStream() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        try await writeValue(fixture, Self.startSession)
        try await fixture.sim.play(["e2e4"], on: "air")
        let expected = BoardSnapshot(fenPlacement: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR")
        #expect(try fixture.sim.placement(board: "air") == expected?.fenPlacement)
        #expect(
            try fixture.sim.trackedPosition(board: "air").hasPrefix("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"))
        let wire = try #require(expected.map { ChessnutWire.boardBytes($0) })
        #expect(
            await eventually { Self.values(fixture, Self.state).contains { Array($0.dropFirst(2).prefix(32)) == wire } }
        )
        await #expect(throws: FakeBlueZError.illegalMove("e2e4", index: 0)) {
            try await fixture.sim.play(["e2e4"], on: "air")
        }
    }

    @Test func stopNotifyEndsTheSession() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        try await writeValue(fixture, Self.startSession)
        #expect(await eventually { !Self.values(fixture, Self.state).isEmpty })
        _ = try await fixture.call(Self.state, SimFixture.characteristic, "StopNotify")
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets(
                        $0, path: Self.state, interface: SimFixture.characteristic, "Notifying", .bool(false))
                }
            })
        let count = Self.values(fixture, Self.state).count
        // Three stream intervals later: the board's next three state frames were dropped
        // for want of a session (not sent), and a round trip after them brings in any
        // signal the simulator sent before it handled the Get.
        let dropped = try fixture.sim.violations(board: "air").droppedNotifications
        #expect(
            await eventually(timeout: .seconds(60)) {
                (try? fixture.sim.violations(board: "air").droppedNotifications) ?? 0 >= dropped + 3
            })
        #expect(try await fixture.property("Notifying", SimFixture.characteristic, Self.state) == .bool(false))
        #expect(Self.values(fixture, Self.state).count == count)
        #expect(try fixture.sim.violations(board: "air").droppedNotifications > 0)
        let again = await capturedError {
            _ = try await fixture.call(Self.state, SimFixture.characteristic, "StopNotify")
        }
        #expect(again == DBusError(name: "org.bluez.Error.Failed", message: "No notify session started"))
    }

    @Test func departedClientsLoseTheirNotifySessions() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await fixture.connect(Self.chessnut)
        let other = try await DBusConnection(address: fixture.daemon.address)
        _ = try await fixture.call(Self.state, SimFixture.characteristic, "StartNotify", on: other)
        #expect(try await fixture.property("Notifying", SimFixture.characteristic, Self.state) == .bool(true))
        other.close()
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets(
                        $0, path: Self.state, interface: SimFixture.characteristic, "Notifying", .bool(false))
                }
            })
    }

    @Test func sessionsSurviveAReconnect() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        _ = try await fixture.call(Self.device, SimFixture.device, "Disconnect")
        #expect(try await fixture.property("Notifying", SimFixture.characteristic, Self.state) == .bool(true))
        _ = try await fixture.call(Self.device, SimFixture.device, "Connect")
        #expect(
            await eventually {
                fixture.signals.messages.filter {
                    SignalRecorder.sets(
                        $0, path: Self.device, interface: SimFixture.device, "ServicesResolved", .bool(true))
                }.count == 2
            })
        try await writeValue(fixture, Self.startSession)
        #expect(await eventually { Self.values(fixture, Self.response).contains([0x23, 0x01, 0x00]) })
    }

    @Test func acquiredSocketsCarryNotificationsAndWrites() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await fixture.connect(Self.chessnut)
        let characteristic = SimFixture.characteristic
        let objects = try await fixture.managedObjects()
        #expect(objects[Self.response]?[characteristic]?["NotifyAcquired"] == .bool(false))
        #expect(objects[Self.write]?[characteristic]?["WriteAcquired"] == .bool(false))
        #expect(objects[Self.write]?[characteristic]?["NotifyAcquired"] == nil)

        let notify = try await fixture.call(Self.response, characteristic, "AcquireNotify", [.propertyDictionary([:])])
        let notifyFD = try #require(notify.first?.unixFDValue)
        defer { close(notifyFD) }
        #expect(notify.last == .uint16(185))
        let write = try await fixture.call(Self.write, characteristic, "AcquireWrite", [.propertyDictionary([:])])
        let writeFD = try #require(write.first?.unixFDValue)
        #expect(try await fixture.property("NotifyAcquired", characteristic, Self.response) == .bool(true))
        #expect(try await fixture.property("WriteAcquired", characteristic, Self.write) == .bool(true))
        let startNotify = await capturedError {
            _ = try await fixture.call(Self.response, characteristic, "StartNotify")
        }
        #expect(startNotify == DBusError(name: "org.bluez.Error.NotPermitted", message: "Notify acquired"))
        #expect(
            await capturedError { try await writeValue(fixture, Self.startSession) }
                == DBusError(name: "org.bluez.Error.NotPermitted", message: "Write acquired"))

        // A datagram on the write socket is a write command; the ack comes as a datagram.
        let sent = Self.startSession.withUnsafeBytes { send(writeFD, $0.baseAddress, $0.count, 0) }
        #expect(sent == 3)
        var received: [UInt8] = []
        let gotAck = await eventually {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { received = Array(buffer[0..<count]) }
            return !received.isEmpty
        }
        #expect(gotAck)
        #expect(received == [0x23, 0x01, 0x00])
        #expect(try fixture.sim.writes(board: "air").map(\.type) == ["command"])
        #expect(Self.values(fixture, Self.response).isEmpty)  // Value is not updated meanwhile

        // Closing the write socket releases it; a disconnect closes the notify socket (EOF).
        close(writeFD)
        #expect(
            await eventually {
                fixture.signals.messages.contains {
                    SignalRecorder.sets($0, path: Self.write, interface: characteristic, "WriteAcquired", .bool(false))
                }
            })
        _ = try await fixture.call(Self.device, SimFixture.device, "Disconnect")
        let eof = await eventually {
            var byte: UInt8 = 0
            return recv(notifyFD, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }
        #expect(eof)
        #expect(try await fixture.property("NotifyAcquired", characteristic, Self.response) == .bool(false))
    }

    @Test func ioWithoutALinkFails() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await fixture.connect(Self.chessnut)
        _ = try await fixture.call(Self.device, SimFixture.device, "Disconnect")
        let notConnected = DBusError(name: "org.bluez.Error.Failed", message: "Not connected")
        #expect(await capturedError { try await writeValue(fixture, Self.startSession) } == notConnected)
        let read = await capturedError {
            _ = try await fixture.call(
                Self.manufacturerName, SimFixture.characteristic, "ReadValue", [.propertyDictionary([:])])
        }
        #expect(read == notConnected)
        // StartNotify while disconnected is armed for the next link.
        _ = try await fixture.call(Self.state, SimFixture.characteristic, "StartNotify")
    }

    /// gatt-client.c checks the characteristic's write lock before the write type: while a
    /// request write waits for its response, a command is `InProgress` too.
    @Test func writesWhileARequestIsPendingAreInProgress() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        // The response is held until the checks are made (a time-based delay let a loaded
        // machine answer the first write before the second was tried).
        fixture.sim.holdsWriteResponses = true
        let first = Task { @MainActor in
            await capturedError { try await writeValue(fixture, [0x0B, 0x04, 0, 0, 0, 0]) }
        }
        // The request reached the board (logged on arrival); its response is held.
        let arrived = await eventually(timeout: .seconds(60)) { (try? fixture.sim.writes(board: "air").count) == 1 }
        try #require(arrived)
        let second = await capturedError { try await writeValue(fixture, [0x0B, 0x04, 0, 0, 0, 0]) }
        #expect(second == DBusError(name: "org.bluez.Error.InProgress", message: "In Progress"))
        let command = await capturedError { try await writeValue(fixture, Self.startSession, type: "command") }
        #expect(command == DBusError(name: "org.bluez.Error.InProgress", message: "In Progress"))
        fixture.sim.releaseWriteResponses()
        #expect(await first.value == nil)
        #expect(await capturedError { try await writeValue(fixture, Self.startSession, type: "command") } == nil)
        #expect(try fixture.sim.writes(board: "air").map(\.type) == ["request", "command"])
    }

    @Test func readsAndRefusals() async throws {
        let fixture = try await SimFixture()
        defer { fixture.close() }
        try await fixture.connect(Self.chessnut)
        let reply = try await fixture.call(
            Self.manufacturerName, SimFixture.characteristic, "ReadValue", [.propertyDictionary([:])])
        #expect(reply == [.bytes(Array("Chessnut".utf8))])
        #expect(Self.values(fixture, Self.manufacturerName) == [Array("Chessnut".utf8)])
        let offset = try await fixture.call(
            Self.manufacturerName, SimFixture.characteristic, "ReadValue",
            [.propertyDictionary(["offset": .uint16(5)])])
        #expect(offset == [.bytes(Array("nut".utf8))])
        func failure(
            _ path: String, _ member: String, _ body: [DBusValue], _ interface: String = SimFixture.characteristic
        )
            async -> DBusError?
        {
            await capturedError { _ = try await fixture.call(path, interface, member, body) }
        }
        #expect(
            await failure(Self.manufacturerName, "ReadValue", [.propertyDictionary(["offset": .uint16(99)])])
                == DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid offset"))
        #expect(
            await failure(Self.manufacturerName, "ReadValue", [.propertyDictionary(["offset": .uint32(1)])])
                == DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call"))
        #expect(
            await failure(Self.manufacturerName, "WriteValue", [.bytes([1]), .propertyDictionary([:])])
                == DBusError(name: "org.bluez.Error.NotAuthorized", message: "Operation Not Authorized"))
        #expect(
            await failure(Self.state, "ReadValue", [.propertyDictionary([:])])
                == DBusError(name: "org.bluez.Error.NotPermitted", message: "Read not permitted"))
        #expect(
            await failure(Self.write, "StartNotify", [])
                == DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported"))
        #expect(
            await failure(
                Self.state + "/desc0012", "WriteValue", [.bytes([1, 0]), .propertyDictionary([:])],
                "org.bluez.GattDescriptor1")
                == DBusError(name: "org.bluez.Error.NotPermitted", message: "Write not permitted"))
        let cccd = try await fixture.call(
            Self.state + "/desc0012", "org.bluez.GattDescriptor1", "ReadValue", [.propertyDictionary([:])])
        #expect(cccd == [.bytes([0, 0])])
    }

    @Test(arguments: [BehaviorConfiguration.OversizePolicy.truncate, .refuse])
    func notificationsLongerThanTheMTUAreCut(_ policy: BehaviorConfiguration.OversizePolicy) async throws {
        var board = SimFixture.chessnut
        board.mtu = 23
        var behavior = SimFixture.fast
        behavior.oversizeNotifications = policy
        let fixture = try await SimFixture(boards: [board], behavior: behavior)
        defer { fixture.close() }
        try await connectAndSubscribe(fixture)
        try await writeValue(fixture, Self.startSession)
        #expect(await eventually { Self.values(fixture, Self.response).contains([0x23, 0x01, 0x00]) })
        #expect(await eventually { (try? fixture.sim.violations(board: "air").oversizeNotifications) ?? 0 > 0 })
        switch policy {
        case .truncate:
            #expect(await eventually { !Self.values(fixture, Self.state).isEmpty })
            #expect(Self.values(fixture, Self.state).allSatisfy { $0.count == 20 })
        case .refuse:
            // Three state frames were refused; a round trip after them brings in any signal
            // the simulator sent before it handled the Get.
            #expect(
                await eventually(timeout: .seconds(60)) {
                    (try? fixture.sim.violations(board: "air").oversizeNotifications) ?? 0 >= 3
                })
            #expect(try await fixture.property("Notifying", SimFixture.characteristic, Self.state) == .bool(true))
            #expect(Self.values(fixture, Self.state).isEmpty)
        }
    }
}

/// The answer to a write request shows the board as it stands when the answer goes out:
/// never older than a report sent before it (issue #28: a Millennium set up again while the
/// bridge's `S` waited for its response got the old position's status after the new one's).
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct WriteRequestAnswerTests {
    static let address = "AA:BB:CC:00:28:01"

    @Test func anAnswerIsNeverOlderThanTheReportsBeforeIt() async throws {
        let board = BoardConfiguration(family: .millennium, address: Self.address, id: "mil")
        let fixture = try await SimFixture(boards: [board])
        defer { fixture.close() }
        let device = try await fixture.connect(Self.address)
        let profile = AdapterFactory.profile(for: .millennium, advertisedName: board.effectiveName)
        let notify = try await fixture.characteristicPath(profile.notifyCharacteristicUUIDs[0], device: device)
        let write = try await fixture.characteristicPath(profile.writeCharacteristicUUID, device: device)
        _ = try await fixture.call(notify, SimFixture.characteristic, "StartNotify")

        let status = Array(MillenniumWire.message("S"))
        // The response is held until the lift is made (a time-based delay raced the lift on
        // a loaded machine).
        fixture.sim.holdsWriteResponses = true
        let request = Task { @MainActor in
            try await fixture.call(
                write, SimFixture.characteristic, "WriteValue",
                [.bytes(status), .propertyDictionary(["type": .string("request")])])
        }
        // The request reached the board; while its response is on the way, e2 is lifted.
        let arrived = await eventually { (try? fixture.sim.writes(board: "mil").count) == 1 }
        try #require(arrived)
        _ = try fixture.sim.perform(.lift(.e2), on: "mil")
        fixture.sim.releaseWriteResponses()
        _ = try await request.value
        // A scan after the answer: every report before it is in.
        let sent = try fixture.sim.violations(board: "mil").notificationsSent
        let later = await eventually { (try? fixture.sim.violations(board: "mil").notificationsSent) ?? 0 > sent + 1 }
        try #require(later)
        let reports = GattTests.values(fixture, notify).map { MillenniumWire.text(Data($0)) }.filter {
            $0.hasPrefix("s")
        }
        // e2 is status index 52 (A8 = 0 … H1 = 63); the text starts with "s".
        let e2Occupied = reports.map { Array($0.utf8)[1 + 52] != UInt8(ascii: ".") }
        let firstEmpty = try #require(e2Occupied.firstIndex(of: false), "no report without e2: \(reports)")
        #expect(!e2Occupied[firstEmpty...].contains(true), "a report with e2 after one without: \(e2Occupied)")
    }
}
