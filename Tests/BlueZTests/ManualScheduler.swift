@testable import BlueZ

/// A scheduler whose clock only moves when a test advances it.
@MainActor
final class ManualScheduler: BlueZScheduler {
    private struct Entry {
        let id: Int
        let due: Double
        let action: @MainActor () -> Void
    }

    private(set) var now: Double = 0
    private var entries: [Entry] = []
    private var nextID = 0

    func schedule(after delay: Double, _ action: @escaping @MainActor () -> Void) -> BlueZTimer {
        nextID += 1
        let id = nextID
        entries.append(Entry(id: id, due: now + max(0, delay), action: action))
        return BlueZTimer { [weak self] in self?.entries.removeAll { $0.id == id } }
    }

    /// Pending timers.
    var pendingCount: Int { entries.count }

    /// Moves the clock forward by `seconds`, running every timer that falls due, in order.
    func advance(by seconds: Double) {
        let target = now + seconds
        while let next = entries.filter({ $0.due <= target }).min(by: { ($0.due, $0.id) < ($1.due, $1.id) }) {
            entries.removeAll { $0.id == next.id }
            now = max(now, next.due)
            next.action()
        }
        now = target
    }
}
