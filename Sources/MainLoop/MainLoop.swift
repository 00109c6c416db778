import CMainQueue
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one loop that serves every descriptor registered through ``DescriptorWatch``: one
/// level-triggered epoll instance (``EpollPoller``) and its handlers, on the main actor.
///
/// Two ways to drive it, one set of registrations:
/// - **The daemon owns the main thread** (``activate()`` then ``run()``): the main thread
///   waits in one `epoll_wait` for the registered descriptors and for libdispatch's main-queue
///   wake-up descriptor; it runs the handlers of ready descriptors directly and drains the
///   main queue (main-actor tasks, timers, signal sources) when libdispatch asks for it —
///   the same hooks swift-corelibs-foundation's `RunLoop` uses. With `dispatchMain()`,
///   libdispatch would watch every descriptor from its manager thread and hand each event to
///   a worker thread that runs the main queue: two thread wake-ups per event, most of the
///   bridge's CPU at 64 boards streaming ten notifications a second.
/// - **Hosted** (tests, tools, `boardsim`: whoever drains the main queue is not this loop):
///   the epoll instance's own descriptor is watched by one Dispatch read source on the main
///   queue, made once and never cancelled; each time it fires, the ready handlers run.
///
/// Either way no descriptor gets a Dispatch source of its own. libdispatch keys its
/// registrations by descriptor number and unregisters a cancelled source later, on its
/// queue: per-descriptor sources that came and went (sockets of links that drop and come
/// back) now and then left a registration under a number that a new descriptor then took,
/// and that descriptor's source never fired — an RFCOMM link's end of file, waiting unread
/// while the transport believed the link was up (#28, and the RFCOMM flake of stop 40). An
/// epoll registration is added and removed synchronously, under the caller's control.
@MainActor
public enum MainLoop {
    private static var poller: EpollPoller<@MainActor () -> Void>?
    /// The hosted mode's read source on the poller's descriptor (`nil` once ``run()`` owns the thread).
    private static var hostedSource: (any DispatchSourceRead)?
    private static var ownsThread = false

    /// Whether ``activate()`` succeeded: the main thread is this loop's (``run()``).
    public static var isActive: Bool { ownsThread }

    /// When the loop last woke for ready descriptors: while a descriptor's handler runs, the
    /// instant the input it reads was known to have arrived (or earlier). `nil` before the
    /// first wake-up. What the handler does about that input takes at least the time since:
    /// the bridge measures a move's handling from here.
    public static var wokeAt: ContinuousClock.Instant? { poller?.lastWake }

    /// When the input being handled reached the kernel, as its reader learned it (a
    /// datagram's receive timestamp): known for the span of its reader's handler only
    /// (``handlingInput(readAt:waited:_:)``), `nil` otherwise. Earlier than ``wokeAt`` when
    /// the input waited behind another descriptor's long handler: what the input says
    /// happened then, not when the loop got to it.
    public static var inputReceivedAt: ContinuousClock.Instant? {
        // Worked out when asked (an input that changes nothing is never asked about).
        guard inputWaited >= 0, let inputReadAt else { return nil }
        return inputReadAt - .nanoseconds(inputWaited)
    }
    private static var inputReadAt: ContinuousClock.Instant?
    private static var inputWaited: Int64 = -1

    /// Runs `body` (a reader handing on one input) with ``inputReceivedAt`` the input's
    /// arrival: `waited` nanoseconds before `readAt` (a negative `waited`: unknown), then
    /// restores it.
    public static func handlingInput(readAt: ContinuousClock.Instant, waited: Int64, _ body: () -> Void) {
        let outer = (inputReadAt, inputWaited)
        (inputReadAt, inputWaited) = (readAt, waited)
        defer { (inputReadAt, inputWaited) = outer }
        body()
    }

    /// Makes the main thread this loop's: call once, on the main thread, then call ``run()``.
    /// Descriptors registered before stay registered. Returns `false` (and changes nothing)
    /// when no epoll instance can be had.
    @discardableResult
    public static func activate() -> Bool {
        if ownsThread { return true }
        guard let poller = poller ?? EpollPoller<@MainActor () -> Void>() else { return false }
        let wakeUp = _dispatch_get_main_queue_handle_4CF()
        guard
            poller.add(
                wakeUp,
                handler: {
                    // Reset the eventfd first: work enqueued while draining wakes us again.
                    _ = cmq_eventfd_reset(wakeUp)
                    _dispatch_main_queue_callback_4CF(nil)
                })
        else { return false }
        // The epoll descriptor is never closed: cancelling its source leaves nothing stale.
        hostedSource?.cancel()
        hostedSource = nil
        self.poller = poller
        ownsThread = true
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

    /// Registers `fd` with the loop (``DescriptorWatch`` only), starting the hosted mode if
    /// nothing drives the loop yet. Returns the registration's generation, `nil` when the
    /// kernel refuses the descriptor.
    static func add(_ fd: Int32, writable: Bool = false, handler: @escaping @MainActor () -> Void) -> UInt32? {
        guard let poller = poller ?? startHosted() else { return nil }
        return poller.register(fd, writable: writable, handler: handler)
    }

    /// Unregisters `fd` if it is still the registration `generation` (``DescriptorWatch`` only).
    static func remove(_ fd: Int32, generation: UInt32) {
        poller?.remove(fd, generation: generation)
    }

    /// The hosted mode: the poller's descriptor watched by one Dispatch source on the main queue.
    private static func startHosted() -> EpollPoller<@MainActor () -> Void>? {
        guard let created = EpollPoller<@MainActor () -> Void>() else { return nil }
        let source = DispatchSource.makeReadSource(fileDescriptor: created.descriptor, queue: .main)
        source.setEventHandler {
            // Level-triggered: while more is ready than one batch, the source fires again.
            MainActor.assumeIsolated { _ = created.poll(timeoutMilliseconds: 0, invoke: { handler in handler() }) }
        }
        source.resume()
        hostedSource = source
        poller = created
        return created
    }
}
