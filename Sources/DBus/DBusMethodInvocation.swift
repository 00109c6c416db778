/// An incoming method call waiting for its answer.
///
/// The handler of an exported object receives one and answers it exactly once, now or later:
/// ``reply(_:)`` with the return values, or ``fail(_:)`` with a D-Bus error. Keep the object
/// to answer later (a deferred reply, e.g. BlueZ's `Connect`). If it is released unanswered,
/// the caller gets `org.freedesktop.DBus.Error.Failed` ("no reply") at once instead of waiting
/// for its timeout. To simulate a peer that never answers, keep the invocation alive.
@MainActor
public final class DBusMethodInvocation {
    /// The call: sender, path, interface, member and arguments.
    public let message: DBusMessage
    /// Whether ``reply(_:)`` or ``fail(_:)`` was called.
    public private(set) var isAnswered = false
    private let handle: DBusMessageHandle
    private weak var connection: DBusConnection?

    init(message: DBusMessage, handle: DBusMessageHandle, connection: DBusConnection) {
        self.message = message
        self.handle = handle
        self.connection = connection
    }

    isolated deinit {
        guard !isAnswered else { return }
        fail(DBusError(name: DBusError.Name.failed, message: "The method handler did not reply"))
    }

    /// The object path called.
    public var path: String { message.path }
    /// The interface called (empty if the caller gave none).
    public var interface: String { message.interface }
    /// The method called.
    public var member: String { message.member }
    /// The arguments.
    public var body: [DBusValue] { message.body }
    /// The caller's unique bus name.
    public var sender: String { message.sender }

    /// Answers with `values` (a method return). Pending changes of attached
    /// ``DBusObjectTree``s go out first. A body that fails ``DBusValue/validate()`` is
    /// answered with `org.freedesktop.DBus.Error.Failed` naming the problem instead. Later
    /// answers are ignored; so is any answer when the caller asked for none.
    public func reply(_ values: [DBusValue] = []) {
        guard !isAnswered else { return }
        isAnswered = true
        guard !message.noReplyExpected, let connection, connection.isConnected,
            let reply = handle.makeReturn()
        else { return }
        do throws(DBusError) {
            try reply.append(values)
            try connection.send(reply)
        } catch {
            sendError(DBusError(name: DBusError.Name.failed, message: "Invalid reply: \(error.message)"))
        }
    }

    /// Answers with an error reply (`name` must be a valid error name, else
    /// `org.freedesktop.DBus.Error.Failed` is sent). Later answers are ignored.
    public func fail(_ error: DBusError) {
        guard !isAnswered else { return }
        isAnswered = true
        guard !message.noReplyExpected else { return }
        sendError(error)
    }

    private func sendError(_ error: DBusError) {
        guard let connection, connection.isConnected, let reply = handle.makeError(error) else { return }
        try? connection.send(reply)
    }
}
