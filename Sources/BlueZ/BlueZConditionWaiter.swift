import BoardLink
import FoundationEssentials

/// Lets async code wait for a condition on the BlueZ model ("ServicesResolved is true",
/// "the board showed up") without polling: every change calls ``evaluate()``, which
/// re-checks every waiting condition. Each wait ends with the condition's value, its error,
/// a timeout, or cancellation.
@MainActor
final class BlueZConditionWaiter {
    private let scheduler: any LinkScheduler
    private var entries: [UInt64: any BlueZWaitEntryProtocol] = [:]
    private var nextID: UInt64 = 0

    init(scheduler: any LinkScheduler) {
        self.scheduler = scheduler
    }

    /// Waits until `check` returns a result (`nil`: not yet). After `timeout` seconds (`nil`:
    /// never) it throws ``BlueZLinkError/timeout(_:)`` naming `what`; a cancelled task gets
    /// ``BlueZLinkError/cancelled``.
    func wait<T: Sendable>(
        timeout: TimeInterval?, what: String, _ check: @escaping @MainActor () -> Result<T, BlueZLinkError>?
    ) async throws(BlueZLinkError) -> T {
        if let result = check() { return try result.get() }
        if Task.isCancelled { throw .cancelled }
        nextID += 1
        let id = nextID
        let entry = BlueZWaitEntry<T>(check: check)
        entries[id] = entry
        let result: Result<T, BlueZLinkError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, BlueZLinkError>, Never>) in
                entry.continuation = continuation
                if let timeout {
                    entry.timer = scheduler.schedule(after: timeout) { entry.finish(.failure(.timeout(what))) }
                }
                if Task.isCancelled { entry.finish(.failure(.cancelled)) }
            }
        } onCancel: {
            Task { @MainActor in entry.finish(.failure(.cancelled)) }
        }
        entries[id] = nil
        return try result.get()
    }

    /// Re-checks every waiting condition.
    func evaluate() {
        for (id, entry) in entries where entry.evaluate() {
            entries[id] = nil
        }
    }

    /// Ends every wait with `error`.
    func failAll(_ error: BlueZLinkError) {
        let current = entries
        entries = [:]
        for entry in current.values { entry.fail(error) }
    }
}

@MainActor
private protocol BlueZWaitEntryProtocol: AnyObject {
    /// Finishes the wait if the condition has a result; returns whether it is over.
    func evaluate() -> Bool
    func fail(_ error: BlueZLinkError)
}

@MainActor
private final class BlueZWaitEntry<T: Sendable>: BlueZWaitEntryProtocol {
    var continuation: CheckedContinuation<Result<T, BlueZLinkError>, Never>?
    var timer: LinkTimer?
    private var finished = false
    private let check: @MainActor () -> Result<T, BlueZLinkError>?

    init(check: @escaping @MainActor () -> Result<T, BlueZLinkError>?) {
        self.check = check
    }

    func evaluate() -> Bool {
        if finished { return true }
        guard continuation != nil, let result = check() else { return false }
        finish(result)
        return true
    }

    func fail(_ error: BlueZLinkError) {
        finish(.failure(error))
    }

    func finish(_ result: Result<T, BlueZLinkError>) {
        guard !finished, let continuation else { return }
        finished = true
        self.continuation = nil
        timer?.cancel()
        timer = nil
        continuation.resume(returning: result)
    }
}
