public import BoardKit
public import FoundationEssentials

/// How one attempt to set a link up ended.
public enum LinkAttemptOutcome: Equatable, Sendable {
    /// The link is up: the run ends.
    case connected
    /// It failed (the reason, readable): the next attempt follows, if the policy allows one.
    case failed(String)
    /// The run was stopped (the owner disconnected, or the attempt's task was cancelled).
    case cancelled
}

/// The one reconnect loop of every board link, driven by the spec's ``BoardKit/BoardReconnectPolicy``
/// (`../shared/spec/sync-gate-and-reconnect-policy.txt`).
///
/// A run of attempts: before attempt `n` the policy's `nextDelay(attempt: n)` is asked; `nil`
/// ends the run (``Steps/gaveUp``). Otherwise the owner is told (``Steps/waiting``: its
/// `.reconnecting(attempt:)` state and the delay), ``Steps/prepare`` runs (an adapter that
/// must be powered first), the delay passes on the ``LinkScheduler``, and ``Steps/connect``
/// makes the attempt. `.connected` ends the run; `.failed` is reported (``Steps/failed``) and
/// attempt `n + 1` follows; `.cancelled` ends the run silently.
///
/// A failed first connect is retried the same way, with a policy that never gives up
/// (``BoardKit/BoardReconnectPolicy/retrying(every:)``): one loop and one backoff for both,
/// one runner per link. ``cancel()`` (or a new ``run(_:from:_:)``) ends the run; no step is
/// called after it.
@MainActor
public final class ReconnectRunner {
    /// What a run asks of its link, in the order of one attempt.
    public struct Steps {
        /// Attempt `attempt` waits `delay` seconds before it connects.
        public var waiting: @MainActor (_ attempt: Int, _ delay: TimeInterval) -> Void
        /// Runs before the wait; `false` ends the run (as `.cancelled`).
        public var prepare: @MainActor () async -> Bool
        /// The attempt itself (after the wait).
        public var connect: @MainActor (_ attempt: Int) async -> LinkAttemptOutcome
        /// Attempt `attempt` failed with `reason`.
        public var failed: @MainActor (_ attempt: Int, _ reason: String) -> Void
        /// The policy gave up after `attempts` attempts.
        public var gaveUp: @MainActor (_ attempts: Int) -> Void

        /// The steps of a run; `prepare` does nothing unless given.
        public init(
            waiting: @escaping @MainActor (_ attempt: Int, _ delay: TimeInterval) -> Void,
            prepare: @escaping @MainActor () async -> Bool = { true },
            connect: @escaping @MainActor (_ attempt: Int) async -> LinkAttemptOutcome,
            failed: @escaping @MainActor (_ attempt: Int, _ reason: String) -> Void,
            gaveUp: @escaping @MainActor (_ attempts: Int) -> Void
        ) {
            self.waiting = waiting
            self.prepare = prepare
            self.connect = connect
            self.failed = failed
            self.gaveUp = gaveUp
        }
    }

    private let scheduler: any LinkScheduler
    private var task: Task<Void, Never>?
    private var generation = 0

    /// The attempt under way or waiting (1-indexed), while a run lasts.
    public private(set) var attempt: Int?
    /// While an attempt waits: how long that wait is (seconds).
    public private(set) var nextDelay: TimeInterval?

    /// A runner on `scheduler`'s clock.
    public init(scheduler: any LinkScheduler) {
        self.scheduler = scheduler
    }

    isolated deinit {
        task?.cancel()
    }

    /// Whether a run is under way (from ``run(_:from:_:)`` or the start of
    /// ``attempts(_:from:_:while:)`` until it ends; `false` already when ``Steps/gaveUp`` runs).
    public private(set) var isRunning = false

    /// Starts a run of `policy` at attempt `first` in a task of the runner's own (ending the
    /// run under way). The first attempt is announced (``Steps/waiting``), or the run given
    /// up (``Steps/gaveUp``), before this returns: whoever watches the link's state sees
    /// `.reconnecting` at once after a drop.
    public func run(_ policy: BoardReconnectPolicy, from first: Int = 1, _ steps: Steps) {
        cancel()
        let current = generation
        guard let delay = policy.nextDelay(attempt: first) else { return steps.gaveUp(first - 1) }
        isRunning = true
        attempt = first
        nextDelay = delay
        steps.waiting(first, delay)
        guard current == generation else { return }
        task = Task { [weak self] in
            await self?.attempts(policy, from: first, steps, announced: true) { [weak self] in
                self?.generation == current
            }
            guard let self, self.generation == current else { return }
            self.task = nil
        }
    }

    /// Ends the run (the runner's own, or the one in ``attempts(_:from:_:while:)``); no step is
    /// called after this.
    public func cancel() {
        generation += 1
        task?.cancel()
        task = nil
        isRunning = false
        attempt = nil
        nextDelay = nil
    }

    /// The run itself, in the caller's task (a transport whose other flows share one task):
    /// returns when the link is up, the policy gave up, an attempt was cancelled, or
    /// `isCurrent` turned `false` (or the task was cancelled) — then without another step.
    public func attempts(
        _ policy: BoardReconnectPolicy, from first: Int = 1, _ steps: Steps,
        while isCurrent: @escaping @MainActor () -> Bool
    ) async {
        await attempts(policy, from: first, steps, announced: false, while: isCurrent)
    }

    /// The loop; with `announced`, attempt `first` was announced already (by ``run(_:from:_:)``).
    private func attempts(
        _ policy: BoardReconnectPolicy, from first: Int, _ steps: Steps, announced: Bool,
        while isCurrent: @escaping @MainActor () -> Bool
    ) async {
        let current = generation
        let live = { isCurrent() && current == self.generation && !Task.isCancelled }
        isRunning = true
        defer { if current == generation { stopped() } }
        var number = first
        var announcedFirst = announced
        while live() {
            guard let delay = policy.nextDelay(attempt: number) else {
                stopped()
                return steps.gaveUp(number - 1)
            }
            if !announcedFirst {
                attempt = number
                nextDelay = delay
                steps.waiting(number, delay)
            }
            announcedFirst = false
            guard await steps.prepare(), live() else { return }
            guard await scheduler.sleep(delay), live() else { return }
            let outcome = await steps.connect(number)
            guard live() else { return }
            switch outcome {
            case .connected, .cancelled:
                return
            case .failed(let reason):
                steps.failed(number, reason)
            }
            number += 1
        }
    }

    private func stopped() {
        isRunning = false
        attempt = nil
        nextDelay = nil
    }
}

extension BoardReconnectPolicy {
    /// A schedule that never gives up: the first attempt at once, every later one `delay`
    /// after the previous failed (a first connect, retried until it works).
    public static func retrying(every delay: TimeInterval) -> BoardReconnectPolicy {
        BoardReconnectPolicy(maxAttempts: .max, delays: [0, delay])
    }
}
