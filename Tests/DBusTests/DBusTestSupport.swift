import DBus
import Testing
import TestSupport

/// Polls `condition` on the main actor (sleeping between tries, which lets the main queue run
/// the D-Bus sources) until it holds or `timeout` passes; returns whether it held.
@MainActor
func eventually(timeout: Duration = .seconds(10), _ condition: @MainActor () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Collects what handlers deliver, for assertions.
@MainActor
final class Inbox<Element> {
    private(set) var items: [Element] = []

    func append(_ item: Element) {
        items.append(item)
    }

    /// Waits until at least `count` items arrived; returns them (or what arrived by the timeout).
    func waitFor(count: Int, timeout: Duration = .seconds(10)) async -> [Element] {
        _ = await eventually(timeout: timeout) { items.count >= count }
        return items
    }
}

/// A private bus with two connections on it, torn down by `close()`.
@MainActor
final class BusFixture {
    let daemon: PrivateDBusDaemon
    let server: DBusConnection
    let client: DBusConnection

    init() async throws {
        daemon = try PrivateDBusDaemon()
        do {
            server = try await DBusConnection(address: daemon.address)
            client = try await DBusConnection(address: daemon.address)
        } catch {
            daemon.stop()
            throw error
        }
    }

    func close() {
        client.close()
        server.close()
        daemon.stop()
    }
}
