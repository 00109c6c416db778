public import BoardLink

/// A scheduler whose clock only moves when a test advances it.
@MainActor
public final class ManualScheduler: LinkScheduler {
    private struct Entry {
        let id: Int
        let due: Double
        let action: @MainActor () -> Void
    }

    /// Seconds since the start (moves only in ``advance(by:)``).
    public private(set) var now: Double = 0
    private var entries: [Entry] = []
    private var nextID = 0

    /// A clock at 0 with no timers.
    public init() {}

    /// Runs `action` when the clock reaches `now + delay`.
    public func schedule(after delay: Double, _ action: @escaping @MainActor () -> Void) -> LinkTimer {
        nextID += 1
        let id = nextID
        entries.append(Entry(id: id, due: now + max(0, delay), action: action))
        return LinkTimer { [weak self] in self?.entries.removeAll { $0.id == id } }
    }

    /// Pending timers.
    public var pendingCount: Int { entries.count }

    /// Moves the clock forward by `seconds`, running every timer that falls due, in order.
    public func advance(by seconds: Double) {
        let target = now + seconds
        while let next = entries.filter({ $0.due <= target }).min(by: { ($0.due, $0.id) < ($1.due, $1.id) }) {
            entries.removeAll { $0.id == next.id }
            now = max(now, next.due)
            next.action()
        }
        now = target
    }
}
