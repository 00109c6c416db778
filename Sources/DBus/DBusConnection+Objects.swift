internal import CDBus

extension DBusConnection {
    /// Exports an object: method calls to `path` (and, with `subtree`, to every path below it
    /// that has no registration of its own) go to `handler` as ``DBusMethodInvocation``s.
    ///
    /// Uses `dbus_connection_try_register_object_path` (or `…_register_fallback`). Calls to a
    /// path nobody registered are answered by libdbus with
    /// `org.freedesktop.DBus.Error.UnknownObject`; the handler itself answers unknown methods
    /// (``DBusError/noSuchMethod(_:name:)`` gives libdbus's text). `org.freedesktop.DBus.Peer`
    /// is answered by libdbus. Handlers run on the main actor while the connection
    /// dispatches; they must not block (answer later instead).
    ///
    /// - Throws: ``DBusError/Name/objectPathInUse`` when the path is taken,
    ///   ``DBusError/Name/invalidArgs`` for an invalid path.
    public func registerObject(
        at path: String, subtree: Bool = false, handler: @escaping @MainActor (DBusMethodInvocation) -> Void
    ) throws(DBusError) {
        guard DBusNames.isValidObjectPath(path) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid object path '\(path)'")
        }
        guard isConnected else { throw DBusError.notConnected }
        let registration = DBusObjectRegistration(connection: self, handler: handler)
        let data = Unmanaged.passRetained(registration).toOpaque()
        var vtable = DBusObjectPathVTable()
        vtable.message_function = { _, message, data in
            guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let registration = Unmanaged<DBusObjectRegistration>.fromOpaque(data).takeUnretainedValue()
            nonisolated(unsafe) let borrowed = message
            return MainActor.assumeIsolated {
                registration.handle(borrowed) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
        }
        vtable.unregister_function = { _, data in
            guard let data else { return }
            Unmanaged<DBusObjectRegistration>.fromOpaque(data).release()
        }
        do throws(DBusError) {
            let registered = try withCError { error in
                subtree
                    ? dbus_connection_try_register_fallback(handle.pointer, path, &vtable, data, &error)
                    : dbus_connection_try_register_object_path(handle.pointer, path, &vtable, data, &error)
            }
            guard registered != 0 else {
                throw DBusError(name: DBusError.Name.noMemory, message: "Could not register \(path)")
            }
        } catch {
            Unmanaged<DBusObjectRegistration>.fromOpaque(data).release()
            throw error
        }
    }

    /// Removes the registration at `path` (`dbus_connection_unregister_object_path`); does
    /// nothing if there is none.
    public func unregisterObject(at path: String) {
        guard DBusNames.isValidObjectPath(path) else { return }
        _ = dbus_connection_unregister_object_path(handle.pointer, path)
    }
}

/// The user data of one object-path registration: the Swift handler. Retained by libdbus,
/// released by the vtable's unregister function.
@MainActor
final class DBusObjectRegistration {
    private weak var connection: DBusConnection?
    private let handler: @MainActor (DBusMethodInvocation) -> Void

    init(connection: DBusConnection, handler: @escaping @MainActor (DBusMethodInvocation) -> Void) {
        self.connection = connection
        self.handler = handler
    }

    /// Passes method calls to the handler; other messages (signals addressed to the same path)
    /// are left to libdbus.
    func handle(_ pointer: OpaquePointer) -> Bool {
        guard let connection, dbus_message_get_type(pointer) == DBusMessageTypeCode.methodCall else { return false }
        let handle = DBusMessageHandle(retaining: pointer)
        handler(DBusMethodInvocation(message: handle.decode(), handle: handle, connection: connection))
        return true
    }
}
