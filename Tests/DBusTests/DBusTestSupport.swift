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
        daemon = try await PrivateDBusDaemon()
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

    /// Records every disconnect the client reports (``DBusConnection/onDisconnect``).
    func clientDisconnects() -> Inbox<DBusError> {
        let reports = Inbox<DBusError>()
        client.onDisconnect = { reports.append($0) }
        return reports
    }

    /// Calls `Never` on `echo` from the client and waits until the server holds the
    /// invocation; the task ends with the error the call ends with (`nil` if it succeeds).
    func unansweredCall(to echo: EchoObject) async -> Task<DBusError?, Never> {
        let client = client
        let server = server
        let call = Task { @MainActor in await capturedError { _ = try await client.callEcho("Never", on: server) } }
        #expect(await eventually { echo.kept.count == 1 }, "the server never received the call")
        return call
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
