public import FoundationEssentials
import MainLoop

/// A cancellable one-shot timer handed out by a ``LinkScheduler``.
@MainActor
public final class LinkTimer {
    private var onCancel: (@MainActor () -> Void)?

    /// A timer whose cancellation runs `onCancel` (once).
    public init(onCancel: @escaping @MainActor () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the timer; its action will not run. Idempotent.
    public func cancel() {
        let action = onCancel
        onCancel = nil
        action?()
    }
}

/// The time source and timers of a board link (its writer, its reconnect runner, its
/// transport): the event loop in production, a manual clock in tests. Never blocks.
@MainActor
public protocol LinkScheduler: AnyObject {
    /// Monotonic seconds (any origin).
    var now: TimeInterval { get }
    /// Runs `action` on the main actor after `delay` seconds (0 or less: on the next turn).
    func schedule(after delay: TimeInterval, _ action: @escaping @MainActor () -> Void) -> LinkTimer
}

extension LinkScheduler {
    /// Waits `delay` seconds without blocking; returns `false` when the calling task was
    /// cancelled (early).
    public func sleep(_ delay: TimeInterval) async -> Bool {
        if Task.isCancelled { return false }
        let box = LinkSleepBox()
        let finished: Bool = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                box.continuation = continuation
                box.timer = schedule(after: delay) { box.finish(true) }
                if Task.isCancelled { box.finish(false) }
            }
        } onCancel: {
            Task { @MainActor in box.finish(false) }
        }
        return finished
    }
}

/// One sleeping task: resumed exactly once, by the timer or by cancellation.
@MainActor
private final class LinkSleepBox {
    var continuation: CheckedContinuation<Bool, Never>?
    var timer: LinkTimer?

    func finish(_ value: Bool) {
        timer?.cancel()
        timer = nil
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(returning: value)
    }
}

/// The production scheduler: ``MainLoop`` timers (one `timerfd` for all of them), a
/// monotonic clock.
@MainActor
public final class MainLoopScheduler: LinkScheduler {
    private let origin = ContinuousClock.now

    /// A scheduler on the main loop.
    public init() {}

    /// Seconds since this scheduler was created (monotonic).
    public var now: TimeInterval {
        let elapsed = ContinuousClock.now - origin
        let (seconds, attoseconds) = elapsed.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Schedules `action` as a one-shot ``MainLoop`` timer.
    public func schedule(after delay: TimeInterval, _ action: @escaping @MainActor () -> Void) -> LinkTimer {
        let timer = MainLoop.after(delay, action)
        return LinkTimer { timer.cancel() }
    }
}
