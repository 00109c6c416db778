import DBus
import TestSupport
import Testing

@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusConnectionTests {
    @Test func connectsAndGetsUniqueName() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        #expect(bus.server.uniqueName.hasPrefix(":"))
        #expect(bus.client.uniqueName.hasPrefix(":"))
        #expect(bus.server.uniqueName != bus.client.uniqueName)
        #expect(bus.server.isConnected)
    }
}
