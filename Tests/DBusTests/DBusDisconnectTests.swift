import DBus
import TestSupport
import Testing

/// Losing the bus: reported, survivable, and final for the connection.
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusDisconnectTests {
    @Test func killedDaemonIsReportedAndTheProcessSurvives() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        let reports = bus.clientDisconnects()
        // A call in flight when the bus dies.
        let pending = await bus.unansweredCall(to: echo)
        bus.daemon.kill()
        let report = await reports.waitFor(count: 1)
        #expect(report.map(\.name) == [DBusError.Name.disconnected])
        #expect(!bus.client.isConnected)
        let pendingError = await pending.value
        #expect(pendingError?.name == DBusError.Name.disconnected)
        let later = await capturedError { _ = try await bus.client.callEcho("Echo", on: bus.server) }
        #expect(later?.name == DBusError.Name.disconnected)
        #expect(await eventually { !bus.server.isConnected })
        // Reported once only. The loss is reported from a dispatch of libdbus's local
        // Disconnected message, which libdbus queues after it has dropped the socket and its
        // watches: a second report could only come from a dispatch scheduled by then, a
        // main-queue block enqueued before this turn.
        await mainQueueTurn()
        #expect(reports.items.count == 1)
        // And a fresh bus works in the same process.
        let fresh = try await PrivateDBusDaemon()
        defer { fresh.stop() }
        let reconnected = try await DBusConnection(address: fresh.address)
        defer { reconnected.close() }
        #expect(try await reconnected.nameOwner(of: DBusStandard.busName) == DBusStandard.busName)
    }

    @Test func closeFailsPendingCallsWithoutReporting() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        let reports = bus.clientDisconnects()
        let pending = await bus.unansweredCall(to: echo)
        bus.client.close()
        let error = await pending.value
        #expect(error?.name == DBusError.Name.disconnected)
        #expect(!bus.client.isConnected)
        let afterwards = await capturedError { try bus.client.emitSignal(path: "/x", interface: "a.b", member: "C") }
        #expect(afterwards?.name == DBusError.Name.disconnected)
        // close() makes libdbus queue its local Disconnected message and schedule the
        // dispatch that would report it as a main-queue block, before close() returns: this
        // turn comes after that dispatch.
        await mainQueueTurn()
        #expect(reports.items.isEmpty)
    }

    @Test func releasedConnectionLeavesTheBus() async throws {
        let daemon = try await PrivateDBusDaemon()
        defer { daemon.stop() }
        let observer = try await DBusConnection(address: daemon.address)
        defer { observer.close() }
        var connection: DBusConnection? = try await DBusConnection(address: daemon.address)
        let name = try #require(connection?.uniqueName)
        let owners = Inbox<String?>()
        _ = try await observer.watchNameOwner(name) { owners.append($0) }
        weak let released = connection
        connection = nil
        #expect(released == nil)
        #expect(await owners.waitFor(count: 2) == [name, nil])
    }
}
