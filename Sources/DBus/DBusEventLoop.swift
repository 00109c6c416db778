internal import CDBus
import Dispatch

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
/// one Dispatch read source, created when the watch is enabled and cancelled only when it
/// is disabled or removed: toggles that do not change the state leave it alone. The write
/// watch gets no Dispatch source at all: while it is enabled, a pump on the main queue lets
/// libdbus write (the socket is non-blocking) and tries again a millisecond later until the
/// outgoing queue is empty. Cancelling and re-creating muxed read/write sources on the same
/// descriptor at every outgoing message (libdbus toggles the write watch for each one) can
/// lose an epoll registration in libdispatch on Linux, which left replies unsent until a
/// call timed out; the pump avoids that churn entirely.
///
/// Stored in the watch itself (`dbus_watch_set_data`), released when libdbus frees the watch.
final class DBusWatchSource: @unchecked Sendable {
    private let watch: OpaquePointer
    private let context: DBusConnectionContext
    private var readSource: (any DispatchSourceProtocol)?
    private var isPumpingWrites = false

    init(watch: OpaquePointer, context: DBusConnectionContext) {
        self.watch = watch
        self.context = context
    }

    deinit {
        cancel()
    }

    /// Matches the read source and the write pump to the watch's enabled state and flags.
    func update() {
        let enabled = dbus_watch_get_enabled(watch) != 0
        let descriptor = dbus_watch_get_unix_fd(watch)
        let flags = dbus_watch_get_flags(watch)
        let wantsRead = enabled && descriptor >= 0 && flags & DBUS_WATCH_READABLE.rawValue != 0
        if wantsRead, readSource == nil {
            // The source watches a duplicate that only its cancel handler closes. libdbus
            // closes its own descriptor right after removing the watch, before libdispatch has
            // unregistered the cancelled source; the next connection got the same number, its
            // new source joined the stale registration and never fired: `Hello` timed out with
            // the bus's `OK` (37 bytes) unread and nothing ever read (#28).
            // Without a descriptor to spare (EMFILE), libdbus's own is watched.
            let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
            let source = DispatchSource.makeReadSource(
                fileDescriptor: duplicate >= 0 ? duplicate : descriptor, queue: .main)
            source.setEventHandler { [weak self] in self?.handle(DBUS_WATCH_READABLE.rawValue) }
            if duplicate >= 0 { source.setCancelHandler { _ = close(duplicate) } }
            readSource = source
            source.resume()
        } else if !wantsRead, let source = readSource {
            source.cancel()
            readSource = nil
        }
        if enabled, descriptor >= 0, flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
            scheduleWritePump(after: 0)
        }
    }

    func cancel() {
        readSource?.cancel()
        readSource = nil
    }

    private func scheduleWritePump(after milliseconds: Int) {
        guard !isPumpingWrites else { return }
        isPumpingWrites = true
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in
            guard let self else { return }
            self.isPumpingWrites = false
            guard dbus_watch_get_enabled(self.watch) != 0 else { return }
            self.handle(DBUS_WATCH_WRITABLE.rawValue)
            // Still enabled: the socket was full; try again shortly.
            if dbus_watch_get_enabled(self.watch) != 0 { self.scheduleWritePump(after: 1) }
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

/// The Dispatch timer of one `DBusTimeout` (a pending call's deadline, the authentication
/// timeout…). Stored in the timeout (`dbus_timeout_set_data`).
final class DBusTimeoutSource: @unchecked Sendable {
    private let timeout: OpaquePointer
    private let context: DBusConnectionContext
    private var timer: (any DispatchSourceTimer)?

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
        let interval = DispatchTimeInterval.milliseconds(Int(max(0, dbus_timeout_get_interval(timeout))))
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.fire() }
        self.timer = timer
        timer.resume()
    }

    func cancel() {
        timer?.cancel()
        timer = nil
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
/// cancel Dispatch sources and never call back into libdbus's connection functions.
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
