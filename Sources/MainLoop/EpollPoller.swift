import CMainQueue

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Readiness of file descriptors through one level-triggered `epoll` instance.
///
/// ``add(_:handler:)`` registers a descriptor for reading with a handler of any type;
/// ``poll(timeoutMilliseconds:invoke:)`` waits and passes the handler of every descriptor
/// that is readable, hung up or in error to `invoke` (which calls it; the handler reads and
/// finds out which). Each registration carries a generation number, so that a descriptor
/// removed — and its number reused — while a batch of events is being handled never
/// reaches the wrong handler. Registrations live in an array indexed by descriptor number:
/// no hashing on the path of every event.
///
/// Not thread-safe: one thread registers and polls (``MainLoop`` uses it on the main thread,
/// with main-actor handlers, so calling them needs no run-time isolation check).
public final class EpollPoller<Handler> {
    private struct Registration {
        var generation: UInt32
        var handler: Handler
    }

    /// The epoll instance's own descriptor: readable while a registered descriptor is ready
    /// (so another loop can wait on it; ``MainLoop`` does when it does not own the thread).
    let descriptor: Int32
    // Read on every event. Single-threaded by contract, and no access to it spans a call
    // that could reach it again (``poll(timeoutMilliseconds:invoke:)`` copies a
    // registration out before invoking its handler, which may add or remove descriptors):
    // no run-time exclusivity bookkeeping.
    @exclusivity(unchecked) private var registrations: [Registration?] = []
    private var nextGeneration: UInt32 = 1
    /// The keys `epoll_wait` reports, `batchSize` of them: allocated once, no array access
    /// (and its exclusivity and uniqueness checks) per wake-up.
    private let keys: UnsafeMutablePointer<UInt64>
    private let batchSize: Int32

    /// A poller handling up to `batchSize` (1…64) ready descriptors per wake-up, or `nil` when
    /// the kernel refuses an epoll instance.
    public init?(batchSize: Int = 64) {
        let descriptor = cmq_epoll_create()
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        let capacity = min(64, max(1, batchSize))
        self.batchSize = Int32(capacity)
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
    }

    deinit {
        _ = close(descriptor)
        keys.deallocate()
    }

    /// The number of descriptors registered.
    public private(set) var count = 0

    /// When the last `epoll_wait` that found descriptors ready returned: the start of the
    /// current batch while its handlers run (one monotonic clock read per wake-up).
    public private(set) var lastWake: ContinuousClock.Instant?

    /// Watches `fd` for reading; its `handler` is passed to ``poll(timeoutMilliseconds:invoke:)``
    /// while `fd` is readable (level-triggered), hung up or in error. Returns `false` (and
    /// registers nothing) when the kernel refuses the descriptor. Registering a descriptor
    /// again replaces its handler.
    @discardableResult
    public func add(_ fd: Int32, handler: Handler) -> Bool {
        register(fd, handler: handler) != nil
    }

    /// ``add(_:handler:)`` returning the registration's generation (for
    /// ``remove(_:generation:)``), or `nil` when the kernel refuses the descriptor. With
    /// `writable`, the handler is passed while `fd` can be written to (or hung up) instead.
    func register(_ fd: Int32, writable: Bool = false, handler: Handler) -> UInt32? {
        guard fd >= 0 else { return nil }
        let index = Int(fd)
        let isNew = index >= registrations.count || registrations[index] == nil
        let generation = nextGeneration
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        let key = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        guard cmq_epoll_watch_for(descriptor, fd, key, isNew ? 0 : 1, writable ? 1 : 0) == 0 else { return nil }
        if index >= registrations.count {
            registrations.append(contentsOf: repeatElement(nil, count: index + 1 - registrations.count))
        }
        registrations[index] = Registration(generation: generation, handler: handler)
        if isNew { count += 1 }
        return generation
    }

    /// Stops watching `fd` (call before closing it). Unknown descriptors are ignored.
    public func remove(_ fd: Int32) {
        remove(fd, generation: nil)
    }

    /// Stops watching `fd` if its registration is the one `generation` names (any, for `nil`):
    /// an owner whose descriptor was closed behind its back, and its number given to a new
    /// descriptor that was registered since, leaves the new registration alone.
    func remove(_ fd: Int32, generation: UInt32?) {
        let index = Int(fd)
        guard fd >= 0, index < registrations.count, let registration = registrations[index],
            generation == nil || registration.generation == generation
        else { return }
        registrations[index] = nil
        count -= 1
        _ = cmq_epoll_unwatch(descriptor, fd)
    }

    /// Waits up to `timeoutMilliseconds` (-1: until something is ready; 0: not at all), then
    /// passes the handler of each ready descriptor to `invoke`. Returns how many handlers
    /// were invoked (0 on a timeout or an interrupted wait), or -1 when `epoll_wait` itself
    /// failed (`errno` says why; only a broken epoll descriptor does that).
    @discardableResult
    public func poll(timeoutMilliseconds: Int32, invoke: (Handler) -> Void) -> Int {
        let ready = cmq_epoll_wait(descriptor, keys, batchSize, timeoutMilliseconds)
        if ready < 0 { return errno == EINTR ? 0 : -1 }
        guard ready > 0 else { return 0 }
        lastWake = .now
        var handled = 0
        for index in 0..<Int(min(ready, batchSize)) {
            let key = keys[index]
            let slot = Int(UInt32(truncatingIfNeeded: key))
            guard slot < registrations.count, let registration = registrations[slot],
                registration.generation == UInt32(key >> 32)
            else { continue }
            invoke(registration.handler)
            handled += 1
        }
        return handled
    }
}

extension EpollPoller where Handler == () -> Void {
    /// ``poll(timeoutMilliseconds:invoke:)`` calling each ready descriptor's handler.
    @discardableResult
    public func poll(timeoutMilliseconds: Int32) -> Int {
        poll(timeoutMilliseconds: timeoutMilliseconds) { $0() }
    }
}
