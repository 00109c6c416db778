import CMainQueue
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's own event loop on the main thread, in place of `dispatchMain()`.
///
/// With `dispatchMain()`, libdispatch watches every descriptor from its manager thread and
/// hands each event to a worker thread that runs the main queue: two thread wake-ups per
/// event. At 64 boards streaming ten notifications a second each that hand-off is most of
/// the bridge's CPU. This loop instead waits in one `epoll_wait` on the main thread for the
/// descriptors registered through ``ReadableWatch`` (the boards' notification sockets) and
/// for libdispatch's main-queue wake-up descriptor; it runs the handlers of ready
/// descriptors directly and drains the main queue (main-actor tasks, timers, signal
/// sources, Dispatch sources of other descriptors) when libdispatch asks for it — the same
/// hooks swift-corelibs-foundation's `RunLoop` uses.
///
/// Only the executable calls ``activate()`` and ``run()``. Without them (tests, tools),
/// ``ReadableWatch`` falls back to Dispatch read sources on the main queue.
@MainActor
public enum MainLoop {
    private static var poller: EpollPoller<@MainActor () -> Void>?

    /// Whether ``activate()`` succeeded: descriptors are watched by this loop.
    public static var isActive: Bool { poller != nil }

    /// Makes this loop the one that watches descriptors registered from now on; call once,
    /// on the main thread, before anything registers, then call ``run()``. Returns `false`
    /// (and changes nothing) when no epoll instance can be had.
    @discardableResult
    public static func activate() -> Bool {
        if poller != nil { return true }
        guard let created = EpollPoller<@MainActor () -> Void>() else { return false }
        let wakeUp = _dispatch_get_main_queue_handle_4CF()
        guard
            created.add(
                wakeUp,
                handler: {
                    // Reset the eventfd first: work enqueued while draining wakes us again.
                    _ = cmq_eventfd_reset(wakeUp)
                    _dispatch_main_queue_callback_4CF(nil)
                })
        else { return false }
        poller = created
        return true
    }

    /// Runs the loop forever (the process ends with `exit`). Calls ``activate()`` first if
    /// needed; without an epoll instance it falls back to `dispatchMain()`.
    public static func run() -> Never {
        guard activate(), let poller else { dispatchMain() }
        while true {
            // A failing epoll_wait would otherwise spin: it means the loop's own descriptor
            // is broken, a programming error; systemd restarts the bridge.
            // The handlers are main-actor closures called from the main actor: no run-time
            // isolation check per event.
            guard poller.poll(timeoutMilliseconds: -1, invoke: { handler in handler() }) >= 0 else {
                fatalError("MainLoop: epoll_wait failed (errno \(errno))")
            }
        }
    }

    /// Registers `fd` with the loop (``ReadableWatch`` only).
    static func add(_ fd: Int32, handler: @escaping @MainActor () -> Void) -> Bool {
        guard let poller else { return false }
        return poller.add(fd, handler: handler)
    }

    /// Unregisters `fd` (``ReadableWatch`` only).
    static func remove(_ fd: Int32) {
        poller?.remove(fd)
    }
}
