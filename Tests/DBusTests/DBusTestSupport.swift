import DBus
import TestSupport
import Testing

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

/// The object the call tests talk to: `org.example.Test` at `/test/echo` on the server.
///
/// - `Echo(...)` returns its arguments;
/// - `Fail(ss)` answers with the error named by its arguments;
/// - `Never()` keeps the invocation and never answers;
/// - `Later(...)` answers with its arguments after 50 ms;
/// - `Drop()` releases the invocation unanswered.
@MainActor
final class EchoObject {
    static let path = "/test/echo"
    static let interface = "org.example.Test"
    private(set) var kept: [DBusMethodInvocation] = []
    private(set) var calls: [DBusMessage] = []

    /// Registers the object; the connection keeps it alive.
    init(on connection: DBusConnection) throws {
        try connection.registerObject(at: Self.path) { invocation in
            self.handle(invocation)
        }
    }

    private func handle(_ invocation: DBusMethodInvocation) {
        calls.append(invocation.message)
        switch invocation.member {
        case "Echo":
            invocation.reply(invocation.body)
        case "Fail":
            invocation.fail(
                DBusError(
                    name: invocation.body.first?.stringValue ?? "", message: invocation.body.last?.stringValue ?? ""))
        case "Never":
            kept.append(invocation)
        case "Later":
            Task { @MainActor in
                try? await Task.sleep(for: .milliseconds(50))
                invocation.reply(invocation.body)
            }
        case "Drop":
            break
        default:
            invocation.fail(DBusError.noSuchMethod(invocation.message))
        }
    }
}

extension DBusConnection {
    /// Calls a method of the ``EchoObject`` on `server`.
    func callEcho(
        _ member: String, on server: DBusConnection, _ body: [DBusValue] = [], timeout: Duration? = nil
    ) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: server.uniqueName, path: EchoObject.path, interface: EchoObject.interface, member: member,
            body: body, timeout: timeout)
    }
}

/// Runs `body` and returns the `DBusError` it throws (or `nil`; any other error is recorded
/// as a test issue).
@MainActor
func capturedError(_ body: @MainActor () async throws -> Void) async -> DBusError? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
