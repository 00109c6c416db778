internal import CDBus
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A private connection to a message bus, driven by the main actor.
///
/// libdbus's watches and timeouts are `MainLoop` registrations (epoll and the loop's timer
/// heap), and every wake-up dispatches until libdbus has nothing left, so everything this class reports
/// (replies, signals, incoming method calls, disconnection) arrives on the main actor, in wire
/// order. Nothing blocks: connecting, `Hello`, `RequestName` and `AddMatch` are asynchronous
/// calls. The main queue must be serviced (an `async` `main`, `dispatchMain()`, or an
/// `@MainActor` async test that awaits).
///
/// The process never exits when the bus goes away (`dbus_connection_set_exit_on_disconnect`
/// is off). Instead ``onDisconnect`` is called once, pending calls fail with
/// ``DBusError/Name/disconnected``, and further calls and signals throw it; make a new
/// connection to reconnect (handlers, registrations and match rules do not carry over).
///
/// Owns one libdbus `DBusConnection` (opened with `dbus_connection_open_private`), which it
/// closes and releases when it is deallocated.
@MainActor
public final class DBusConnection {
    /// The default method-call timeout of libdbus (25 s).
    public static let defaultTimeout: Duration = .seconds(25)

    /// The compiled-in system bus address on Debian-family systems.
    public static let defaultSystemBusAddress = "unix:path=/run/dbus/system_bus_socket"

    static let busName = DBusStandard.busName
    static let busPath = DBusStandard.busPath
    static let busInterface = DBusStandard.busInterface

    let handle: DBusConnectionHandle
    private let context: DBusConnectionContext
    private var isDispatching = false
    var signalHandlers: [DBusSignalHandlerEntry] = []
    var nextHandlerID: UInt64 = 1
    var outstandingCalls: [UInt64: DBusPendingReply] = [:]
    var nextCallID: UInt64 = 1
    var trackedNames: [String: DBusTrackedName] = [:]
    var sendHooks: [(id: ObjectIdentifier, hook: @MainActor () -> Void)] = []
    /// When the socket was last read (for the diagnosis a timed-out call carries).
    var lastRead: ContinuousClock.Instant?

    /// The address this connection was opened with.
    public let address: String
    /// The unique name the bus gave this connection (`:1.42`).
    public private(set) var uniqueName: String = ""
    /// Whether the connection is open (false after ``close()`` or a lost bus).
    public private(set) var isConnected: Bool = true
    /// Called once, on the main actor, when the connection is lost (the bus daemon stopped,
    /// the socket broke). Not called after ``close()``.
    public var onDisconnect: (@MainActor (DBusError) -> Void)?

    /// The system bus address as libdbus finds it: `DBUS_SYSTEM_BUS_ADDRESS` when set and not
    /// empty, else ``defaultSystemBusAddress``. Read on every call (libdbus's own lookup caches
    /// it for the life of the process).
    public static var systemBusAddress: String {
        if let value = getenv("DBUS_SYSTEM_BUS_ADDRESS") {
            let address = String(cString: value)
            if !address.isEmpty { return address }
        }
        return defaultSystemBusAddress
    }

    /// Connects to the bus at `address` (`unix:path=/tmp/x/bus`, a private test bus) and
    /// registers with it (`Hello`), without blocking the main actor.
    ///
    /// - Throws: the libdbus error for an unreachable or malformed address
    ///   (`…Error.FileNotFound`, `…Error.NoServer`, `…Error.BadAddress`), or the failure of
    ///   `Hello` (authentication failures arrive as ``DBusError/Name/disconnected``).
    public init(address: String) async throws(DBusError) {
        dbus_threads_init_default()
        let pointer = try withCError { error in dbus_connection_open_private(address, &error) }
        // libdbus sets the error whenever it returns no connection; this guard is only defensive.
        guard let pointer else { throw DBusError(name: DBusError.Name.failed, message: "Could not open \(address)") }
        dbus_connection_set_exit_on_disconnect(pointer, 0)
        self.address = address
        self.handle = DBusConnectionHandle(pointer: pointer)
        self.context = DBusConnectionContext()
        context.connection = self
        guard installEventLoop(on: pointer, context: context),
            dbus_connection_add_filter(pointer, messageFilter, context.retainedOpaque(), releaseContext) != 0
        else { throw DBusError(name: DBusError.Name.noMemory, message: "Could not install callbacks") }
        // Messages may already be queued (there are none before Hello, but be safe).
        context.scheduleDispatch()
        let reply = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "Hello")
        guard let name = reply.first?.stringValue else {
            throw DBusError(name: DBusError.Name.inconsistentMessage, message: "Hello returned no name")
        }
        uniqueName = name
        _ = dbus_bus_set_unique_name(pointer, name)
    }

    /// Closes the connection (`dbus_connection_close`). Pending calls fail at once with
    /// ``DBusError/Name/disconnected``, handlers stop; ``onDisconnect`` is not called.
    /// Idempotent. Releasing the last reference closes it too.
    public func close() {
        guard isConnected else { return }
        isConnected = false
        dbus_connection_close(handle.pointer)
        failOutstandingCalls()
    }

    /// Whether Unix file descriptors can be passed on this connection (`h` values).
    public var canPassUnixFileDescriptors: Bool {
        dbus_connection_can_send_type(handle.pointer, DBusTypeCode.unixFD) != 0
    }

    // MARK: Sending

    /// Sends a signal from `path` (broadcast, or to `destination` when given).
    ///
    /// The message is queued and written when the socket is writable (the main queue must
    /// run). Pending changes of attached ``DBusObjectTree``s are sent first.
    public func emitSignal(
        path: String, interface: String, member: String, body: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) {
        let message = try DBusMessageHandle.signal(path: path, interface: interface, member: member)
        if let destination {
            guard DBusNames.isValidBusName(destination) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid bus name '\(destination)'")
            }
            _ = dbus_message_set_destination(message.pointer, destination)
        }
        try message.append(body)
        try send(message)
    }

    /// Sends a method call without waiting for (or wanting) a reply.
    public func callWithoutReply(
        destination: String?, path: String, interface: String?, member: String, body: [DBusValue] = []
    ) throws(DBusError) {
        let message = try DBusMessageHandle.methodCall(
            destination: destination, path: path, interface: interface, member: member)
        try message.append(body)
        dbus_message_set_no_reply(message.pointer, 1)
        try send(message)
    }

    /// Queues `message` (after running the send hooks).
    func send(_ message: DBusMessageHandle) throws(DBusError) {
        guard isConnected else { throw DBusError.notConnected }
        try checkUnixFDs(message)
        runSendHooks()
        guard dbus_connection_send(handle.pointer, message.pointer, nil) != 0 else {
            throw DBusError(name: DBusError.Name.noMemory, message: "Could not queue message")
        }
    }

    func checkUnixFDs(_ message: DBusMessageHandle) throws(DBusError) {
        guard dbus_message_contains_unix_fds(message.pointer) != 0, !canPassUnixFileDescriptors else { return }
        throw DBusError(name: DBusError.Name.notSupported, message: "Unix file descriptors cannot be sent here")
    }

    /// Runs the hooks that object trees install to flush pending signals before any message
    /// leaves (BlueZ's ordering: state-change signals precede the reply that completes an
    /// operation).
    func runSendHooks() {
        for entry in sendHooks { entry.hook() }
    }

    func addSendHook(for owner: AnyObject, _ hook: @escaping @MainActor () -> Void) {
        sendHooks.append((ObjectIdentifier(owner), hook))
    }

    func removeSendHook(for owner: AnyObject) {
        sendHooks.removeAll { $0.id == ObjectIdentifier(owner) }
    }

    // MARK: Dispatching

    /// Dispatches queued incoming messages until libdbus reports none left. Never re-entered
    /// (a nested `dbus_connection_dispatch` on the same thread would deadlock).
    func dispatchUntilComplete() {
        guard !isDispatching else { return }
        isDispatching = true
        defer { isDispatching = false }
        while dbus_connection_dispatch(handle.pointer) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    /// Handles libdbus's local `Disconnected` signal.
    func handleDisconnected() {
        guard isConnected else { return }
        isConnected = false
        failOutstandingCalls()
        onDisconnect?(DBusError(name: DBusError.Name.disconnected, message: "The connection to \(address) was lost"))
    }
}

/// Owns the libdbus connection: removes the callbacks, closes it and drops the last
/// reference when the ``DBusConnection`` goes away.
final class DBusConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        removeEventLoop(from: pointer)
        dbus_connection_close(pointer)
        dbus_connection_unref(pointer)
    }
}

/// Runs `body` with an initialised libdbus error and throws it when `body` set it.
func withCError<R>(_ body: (inout CDBus.DBusError) -> R) throws(DBusError) -> R {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let result = body(&error)
    if dbus_error_is_set(&error) != 0 {
        throw DBusError(
            name: error.name.map { String(cString: $0) } ?? DBusError.Name.failed,
            message: error.message.map { String(cString: $0) } ?? "")
    }
    return result
}

/// The connection's message filter: sees every incoming message before object handlers.
/// Signals go to the signal handlers; libdbus's local `Disconnected` signal reports the loss.
let messageFilter: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> DBusHandlerResult = {
    _, message, data in
    guard let message, let context = DBusConnectionContext.from(data) else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    guard dbus_message_get_type(message) == DBusMessageTypeCode.signal else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    // Borrowed for the duration of this call, which runs on the main thread.
    nonisolated(unsafe) let borrowed = message
    context.withConnection { connection in
        connection.handleSignal(DBusMessageHandle(retaining: borrowed))
    }
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
