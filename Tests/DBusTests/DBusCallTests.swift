import DBus
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Method calls: errors, missing objects, timeouts, deferred and dropped answers.
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusCallTests {
    @Test func handlerErrorArrivesWithNameAndMessage() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let error = await capturedError {
            _ = try await bus.client.callEcho(
                "Fail", on: bus.server, [.string("org.bluez.Error.Failed"), .string("le-connection-abort-by-local")])
        }
        #expect(error == DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"))
    }

    @Test func invalidErrorNameFromHandlerBecomesFailed() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let error = await capturedError {
            _ = try await bus.client.callEcho("Fail", on: bus.server, [.string("not a name"), .string("text")])
        }
        #expect(error == DBusError(name: DBusError.Name.failed, message: "text"))
    }

    /// libdbus answers calls nobody handles itself. Its root node acts as a fallback until
    /// "/" is registered, so without a registration at "/" the answer is `UnknownMethod`;
    /// with one (BlueZ registers its ObjectManager there) it is `UnknownObject`.
    @Test(arguments: [false, true])
    func unhandledCallGetsLibdbusError(rootRegistered: Bool) async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        if rootRegistered {
            try bus.server.registerObject(at: "/") { $0.fail(DBusError.noSuchMethod($0.message)) }
        }
        let error = await capturedError {
            _ = try await bus.client.call(
                destination: bus.server.uniqueName, path: "/org/bluez/hci0/dev_00_11_22_33_44_55",
                interface: "org.bluez.Device1", member: "Connect")
        }
        #expect(error?.name == (rootRegistered ? DBusError.Name.unknownObject : DBusError.Name.unknownMethod))
        #expect(
            error?.message
                == "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist\n")
    }

    @Test func unknownDestinationIsServiceUnknown() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let error = await capturedError {
            _ = try await bus.client.call(
                destination: "org.bluez", path: "/", interface: DBusStandard.objectManagerInterface,
                member: "GetManagedObjects")
        }
        #expect(error?.name == DBusError.Name.serviceUnknown)
    }

    @Test func callTimesOutWithNoReply() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        let error = await capturedError {
            _ = try await bus.client.callEcho("Never", on: bus.server, timeout: .milliseconds(200))
        }
        #expect(error?.name == DBusError.Name.noReply)
        // The diagnosis: the peer was silent (this connection was read: the server's own
        // traffic), nothing waits unread.
        let message = error?.message ?? ""
        #expect(message.contains("[last read from the bus ") && message.contains("; 0 bytes wait unread"), "\(message)")
        // The server kept the call unanswered. Under load the client's 200 ms can pass before
        // the server's turn of the loop reads the call: it is in its socket, so it comes.
        #expect(await eventually { echo.kept.count == 1 })
        // The connection still works afterwards.
        #expect(try await bus.client.callEcho("Echo", on: bus.server, [.uint32(7)]) == [.uint32(7)])
    }

    @Test func deferredReplyArrives() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let reply = try await bus.client.callEcho("Later", on: bus.server, [.string("later")])
        #expect(reply == [.string("later")])
    }

    @Test func droppedInvocationIsAnsweredWithFailed() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let error = await capturedError { _ = try await bus.client.callEcho("Drop", on: bus.server) }
        #expect(error == DBusError(name: DBusError.Name.failed, message: "The method handler did not reply"))
    }

    @Test func cancellingTheTaskCancelsTheCall() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        let task = await bus.unansweredCall(to: echo)
        task.cancel()
        let error = await task.value
        #expect(error?.name == DBusError.Name.cancelled)
    }

    @Test func invalidInputIsRejectedBeforeLibdbus() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let badPath = await capturedError {
            _ = try await bus.client.call(destination: nil, path: "no/slash", interface: nil, member: "X")
        }
        #expect(badPath?.name == DBusError.Name.invalidArgs)
        let badMember = await capturedError {
            _ = try await bus.client.call(destination: nil, path: "/", interface: nil, member: "1x")
        }
        #expect(badMember?.name == DBusError.Name.invalidArgs)
        let badValue = await capturedError {
            _ = try await bus.client.call(
                destination: nil, path: "/", interface: nil, member: "X", body: [.array("s", [.uint32(1)])])
        }
        #expect(badValue?.name == DBusError.Name.invalidArgs)
        let badSignal = await capturedError {
            try bus.client.emitSignal(path: "/x", interface: "nointerface", member: "Y")
        }
        #expect(badSignal?.name == DBusError.Name.invalidArgs)
        #expect(bus.client.isConnected)
    }

    @Test func unixFileDescriptorIsPassed() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        #expect(bus.client.canPassUnixFileDescriptors)
        try bus.server.registerObject(at: "/fd") { invocation in
            // Write through the received duplicate, close it, answer.
            guard let descriptor = invocation.body.first?.unixFDValue else {
                invocation.fail(DBusError(name: DBusError.Name.invalidArgs, message: "no fd"))
                return
            }
            let text = Array("ok".utf8)
            _ = text.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            invocation.reply()
        }
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = try await bus.client.call(
            destination: bus.server.uniqueName, path: "/fd", interface: "org.example.Fd", member: "Take",
            body: [.unixFD(ends[1])])
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = buffer.withUnsafeMutableBufferPointer { read(ends[0], $0.baseAddress, $0.count) }
        #expect(count == 2)
        #expect(Array(buffer.prefix(2)) == Array("ok".utf8))
    }

    @Test func systemBusAddressHonoursEnvironment() async throws {
        let daemon = try await PrivateDBusDaemon()
        defer { daemon.stop() }
        let previous = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon.address, 1)
        let address = DBusConnection.systemBusAddress
        if let previous { setenv("DBUS_SYSTEM_BUS_ADDRESS", previous, 1) } else { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
        #expect(address == daemon.address)
        let connection = try await DBusConnection(address: address)
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
    }

    @Test func unreachableAddressThrows() async {
        let error = await capturedError { _ = try await DBusConnection(address: "unix:path=/nonexistent/bus") }
        #expect(error != nil)
        #expect(error?.name != DBusError.Name.disconnected || error?.message.isEmpty == false)
    }
}
