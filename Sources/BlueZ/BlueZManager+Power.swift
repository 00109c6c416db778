public import BoardKit

/// Adapter power, as board transports show and wait for it.
extension BlueZManager {
    /// Whether no adapter a transport on `name` may use (the named one, or any when `nil`)
    /// is powered: every such adapter is off, or none is there. `false` while BlueZ's
    /// objects are not loaded, since power is then unknown.
    public func isPoweredOff(adapter name: String?) -> Bool {
        guard state == .ready else { return false }
        return !model.adapters.values.contains { (name == nil || $0.name == name) && $0.powered }
    }

    /// The state a transport shows while doing `activity` on `adapter`: at rest (idle,
    /// scanning) the radio's state when it is unusable (``radioState(forAdapter:)``); while
    /// reconnecting, ``BoardTransportState/poweredOff`` as long as the adapter is off (the
    /// reconnect waits for it, see ``waitUntilPowered(adapter:using:)``); else `activity`.
    public func shownState(for activity: BoardTransportState, adapter name: String?) -> BoardTransportState {
        switch activity {
        case .idle, .scanning: radioState(forAdapter: name) ?? activity
        case .reconnecting: isPoweredOff(adapter: name) ? .poweredOff : activity
        default: activity
        }
    }

    /// Returns once ``isPoweredOff(adapter:)`` is `false` (at once when it is), re-checked on
    /// every model change through `waiter`; `false` when the wait was cancelled. No time
    /// limit: a reconnect spends no attempts while the radio is off.
    func waitUntilPowered(adapter name: String?, using waiter: BlueZConditionWaiter) async -> Bool {
        guard isPoweredOff(adapter: name) else { return true }
        do throws(BlueZLinkError) {
            try await waiter.wait(timeout: nil, what: "adapter \(name ?? "any") powered on") {
                [weak self] () -> Result<Void, BlueZLinkError>? in
                guard let self else { return .failure(.cancelled) }
                return self.isPoweredOff(adapter: name) ? nil : .success(())
            }
            return true
        } catch {
            return false
        }
    }
}
