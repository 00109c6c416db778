internal import CDBus
import Dispatch
import MainLoop

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The object libdbus's connection-level callbacks (watches, timeouts, dispatch status,
/// message filter) receive as user data.
///
/// libdbus holds one retained reference per callback set and releases it through the free
/// function it is given; the context refers to its connection weakly, so the C side never
/// keeps a ``DBusConnection`` alive. It is created on the main actor and only read afterwards.
final class DBusConnectionContext: @unchecked Sendable {
    weak var connection: DBusConnection?

    /// Passes a new +1 reference to C.
    func retainedOpaque() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> DBusConnectionContext? {
        pointer.map { Unmanaged<DBusConnectionContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` on the connection, on the main actor (every libdbus callback of this module
    /// comes from the main thread, where the connection is used).
    func withConnection(_ body: @MainActor (DBusConnection) -> Void) {
        MainActor.assumeIsolated {
            guard let connection else { return }
            body(connection)
        }
    }

    /// Schedules one "dispatch until complete" on the main queue (libdbus forbids dispatching
    /// from inside its status callback).
    func scheduleDispatch() {
        DispatchQueue.main.async { [weak self] in
            self?.withConnection { $0.dispatchUntilComplete() }
        }
    }
}

/// Frees a context reference handed to libdbus.
let releaseContext: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<DBusConnectionContext>.fromOpaque(pointer).release()
}

/// Drives one `DBusWatch` (a file descriptor libdbus wants to poll).
///
/// libdbus gives each socket a read watch and a separate write watch. The read watch gets
/// one ``MainLoop/DescriptorWatch`` (the loop that serves every descriptor), made when the
/// watch is enabled and cancelled only when it is disabled or removed: toggles that do not
/// change the state leave it alone. Registration and removal are synchronous epoll calls, so
/// libdbus closing its socket right after removing the watch leaves nothing behind (with
/// per-descriptor Dispatch sources it left a stale registration that deafened the next
/// connection given the same number, #28). The write watch gets no watch at all: while it
/// is enabled, a pump on the main queue lets libdbus write (the socket is non-blocking) and
/// tries again a millisecond later until the outgoing queue is empty — libdbus toggles the
/// write watch for every outgoing message, and registering and removing a descriptor at
/// that rate would cost more than the pump.
///
/// Stored in the watch itself (`dbus_watch_set_data`), released when libdbus frees the watch.
/// Every libdbus callback of this module comes from the main thread.
final class DBusWatchSource: @unchecked Sendable {
    private let watch: OpaquePointer
    private let context: DBusConnectionContext
    private var readWatch: DescriptorWatch?
    private var isPumpingWrites = false

    init(watch: OpaquePointer, context: DBusConnectionContext) {
        self.watch = watch
        self.context = context
    }

    deinit {
        cancel()
    }

    /// Matches the read watch and the write pump to the watch's enabled state and flags.
    func update() {
        let enabled = dbus_watch_get_enabled(watch) != 0
        let descriptor = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        let wantsRead = enabled && descriptor >= 0 && flags & DBUS_WATCH_READABLE.rawValue != 0
        if wantsRead, readWatch == nil {
            readWatch = MainActor.assumeIsolated {
                DescriptorWatch(descriptor: descriptor, closesDescriptor: false) { [weak self] in
                    self?.handle(DBUS_WATCH_READABLE.rawValue)
                }
            }
        } else if !wantsRead, readWatch != nil {
            cancel()
        }
        if enabled, descriptor >= 0, flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
            scheduleWritePump(after: 0)
        }
    }

    func cancel() {
        guard let readWatch else { return }
        self.readWatch = nil
        MainActor.assumeIsolated { readWatch.cancel() }
    }

    private func scheduleWritePump(after milliseconds: Int) {
        guard !isPumpingWrites else { return }
        isPumpingWrites = true
        MainActor.assumeIsolated {
            _ = MainLoop.after(Double(milliseconds) / 1000) { [weak self] in
                guard let self else { return }
                self.isPumpingWrites = false
                guard dbus_watch_get_enabled(self.watch) != 0 else { return }
                self.handle(DBUS_WATCH_WRITABLE.rawValue)
                // Still enabled: the socket was full; try again shortly.
                if dbus_watch_get_enabled(self.watch) != 0 { self.scheduleWritePump(after: 1) }
            }
        }
    }

    private func handle(_ condition: UInt32) {
        context.withConnection { connection in
            if condition == DBUS_WATCH_READABLE.rawValue { connection.lastRead = .now }
            // May remove or toggle this very watch.
            _ = dbus_watch_handle(self.watch, condition)
            connection.dispatchUntilComplete()
        }
    }

    static func of(_ watch: OpaquePointer) -> DBusWatchSource? {
        dbus_watch_get_data(watch).map { Unmanaged<DBusWatchSource>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The ``MainLoop`` timer of one `DBusTimeout` (a pending call's deadline, the
/// authentication timeout…). Stored in the timeout (`dbus_timeout_set_data`).
final class DBusTimeoutSource: @unchecked Sendable {
    private let timeout: OpaquePointer
    private let context: DBusConnectionContext
    private var timer: LoopTimer?

    init(timeout: OpaquePointer, context: DBusConnectionContext) {
        self.timeout = timeout
        self.context = context
    }

    deinit {
        cancel()
    }

    /// Restarts the timer from now when the timeout is enabled (libdbus's semantics: a
    /// toggled or re-added timeout starts over).
    func update() {
        cancel()
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Double(max(0, dbus_timeout_get_interval(timeout))) / 1000
        timer = MainActor.assumeIsolated {
            MainLoop.every(interval, startingAfter: interval) { [weak self] in self?.fire() }
        }
    }

    func cancel() {
        guard let timer else { return }
        self.timer = nil
        MainActor.assumeIsolated { timer.cancel() }
    }

    private func fire() {
        context.withConnection { connection in
            _ = dbus_timeout_handle(self.timeout)
            connection.dispatchUntilComplete()
        }
    }

    static func of(_ timeout: OpaquePointer) -> DBusTimeoutSource? {
        dbus_timeout_get_data(timeout).map { Unmanaged<DBusTimeoutSource>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Installs the watch, timeout and dispatch-status callbacks of `connection`.
///
/// The add/remove/toggle callbacks run with the connection lock held: they only create or
/// cancel loop watches and timers and never call back into libdbus's connection functions.
func installEventLoop(on connection: OpaquePointer, context: DBusConnectionContext) -> Bool {
    let addWatch: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> dbus_bool_t = { watch, data in
        guard let watch, let context = DBusConnectionContext.from(data) else { return 0 }
        let source = DBusWatchSource(watch: watch, context: context)
        dbus_watch_set_data(watch, Unmanaged.passRetained(source).toOpaque()) { pointer in
            guard let pointer else { return }
            Unmanaged<DBusWatchSource>.fromOpaque(pointer).release()
        }
        source.update()
        return 1
    }
    let removeWatch: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { watch, _ in
        guard let watch else { return }
        DBusWatchSource.of(watch)?.cancel()
    }
    let toggleWatch: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { watch, _ in
        guard let watch else { return }
        DBusWatchSource.of(watch)?.update()
    }
    let addTimeout: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> dbus_bool_t = { timeout, data in
        guard let timeout, let context = DBusConnectionContext.from(data) else { return 0 }
        let source = DBusTimeoutSource(timeout: timeout, context: context)
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(source).toOpaque()) { pointer in
            guard let pointer else { return }
            Unmanaged<DBusTimeoutSource>.fromOpaque(pointer).release()
        }
        source.update()
        return 1
    }
    let removeTimeout: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { timeout, _ in
        guard let timeout else { return }
        DBusTimeoutSource.of(timeout)?.cancel()
    }
    let toggleTimeout: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { timeout, _ in
        guard let timeout else { return }
        DBusTimeoutSource.of(timeout)?.update()
    }
    let dispatchStatus: @convention(c) (OpaquePointer?, DBusDispatchStatus, UnsafeMutableRawPointer?) -> Void = {
        _, status, data in
        guard status == DBUS_DISPATCH_DATA_REMAINS else { return }
        DBusConnectionContext.from(data)?.scheduleDispatch()
    }
    guard
        dbus_connection_set_watch_functions(
            connection, addWatch, removeWatch, toggleWatch, context.retainedOpaque(), releaseContext) != 0,
        dbus_connection_set_timeout_functions(
            connection, addTimeout, removeTimeout, toggleTimeout, context.retainedOpaque(), releaseContext) != 0
    else { return false }
    dbus_connection_set_dispatch_status_function(
        connection, dispatchStatus, context.retainedOpaque(), releaseContext)
    return true
}

/// Removes the callbacks again (before the connection is released), cancelling every source.
func removeEventLoop(from connection: OpaquePointer) {
    dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
    dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
    dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
}
