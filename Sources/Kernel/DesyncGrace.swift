public import FoundationEssentials

/// The grace-period timer between "the board shows something unexplained" and
/// "the board is out of sync", fed by explicit timestamps.
///
/// The grace runs from the first unexplained observation; later unexplained
/// observations do not restart it, an explained one cancels it.
public struct DesyncGrace: Hashable, Sendable, Codable {
    /// How long an unexplained difference may last before it counts as out of sync.
    public var duration: TimeInterval
    /// When the current unexplained stretch began, or `nil` when there is none.
    public private(set) var since: TimeInterval?

    /// A timer with the given grace.
    public init(duration: TimeInterval) {
        self.duration = duration
    }

    /// When the grace expires, or `nil` when no unexplained stretch is running.
    public var deadline: TimeInterval? {
        since.map { $0 + max(0, duration) }
    }

    /// Records an unexplained observation at `time`; returns whether the grace has expired.
    public mutating func unexplained(at time: TimeInterval) -> Bool {
        if since == nil { since = time }
        return isExpired(at: time)
    }

    /// Whether an unexplained stretch is running and its grace has expired at `time`.
    public func isExpired(at time: TimeInterval) -> Bool {
        guard let deadline else { return false }
        return time >= deadline
    }

    /// Ends the unexplained stretch (the board is explained again).
    public mutating func cancel() {
        since = nil
    }
}
