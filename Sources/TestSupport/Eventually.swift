import Dispatch

/// Polls `condition` on the main actor until it holds or `timeout` passes; returns whether
/// it held. Sleeping between tries lets the main queue run the D-Bus and MQTT sources,
/// timers and the simulator, so the awaited work makes progress.
@MainActor
public func eventually(timeout: Duration = .seconds(10), _ condition: @MainActor () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Polls an asynchronous `condition` (one that asks another process, say) every `interval`
/// until it holds or `timeout` passes; returns whether it held.
public nonisolated(nonsending) func eventuallyAsync(
    timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(50), _ condition: () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while await !condition() {
        guard clock.now < deadline else { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// Returns once a block enqueued on the main queue now has run, that is after every block
/// already enqueued there (Dispatch sources' handlers, libdbus's scheduled dispatches, a
/// task's continuation queued earlier): a barrier for "whatever was queued has happened".
public func mainQueueTurn() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { continuation.resume() }
    }
}
