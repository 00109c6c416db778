public import FoundationEssentials

/// When a ``GameSession`` asks a board stuck out of sync for a fresh dump of its squares
/// (``SessionOutput/command(_:)`` with `BoardCommand.requestState`).
///
/// An occupancy board (Square Off, Pegasus) that missed one lift or place stays out of
/// sync until someone touches the pieces, although the pieces stand right: its full state
/// brings the session back in sync. The first request goes ``firstDelay`` seconds after the
/// board went out of sync (that is, after the grace period), each further one ``backoff``
/// times later than the one before, at most ``maxAttempts`` per out-of-sync stretch. Back in
/// sync, or after a new link, the count starts afresh.
public struct ResyncPolicy: Hashable, Sendable, Codable {
    /// Seconds from going out of sync to the first request.
    public var firstDelay: TimeInterval
    /// How much longer each wait is than the one before (at least 1).
    public var backoff: Double
    /// The most requests per out-of-sync stretch; 0 never asks.
    public var maxAttempts: Int

    /// A policy: by default 3 s, then 6 s, 12 s and 24 s later (four requests).
    public init(firstDelay: TimeInterval = 3, backoff: Double = 2, maxAttempts: Int = 4) {
        self.firstDelay = firstDelay
        self.backoff = backoff
        self.maxAttempts = maxAttempts
    }

    /// Never asks.
    public static let disabled = ResyncPolicy(maxAttempts: 0)

    /// The default for boards on `inputPath`: occupancy boards ask, the others (whose every
    /// report is complete, or who report moves) do not.
    public static func standard(for inputPath: TrackerInputPath) -> ResyncPolicy {
        inputPath == .occupancy ? ResyncPolicy() : .disabled
    }

    /// Whether the policy ever asks.
    public var isEnabled: Bool { maxAttempts > 0 }

    /// The wait before request `attempt` (1-indexed), counted from going out of sync for the
    /// first and from the previous request for the others; `nil` past ``maxAttempts``.
    public func delay(beforeAttempt attempt: Int) -> TimeInterval? {
        guard attempt >= 1, attempt <= maxAttempts else { return nil }
        var delay = max(0, firstDelay)
        for _ in 1..<attempt { delay *= max(1, backoff) }
        return delay
    }
}

/// Where one out-of-sync stretch stands: requests made, and when the next one is due.
struct ResyncSchedule: Hashable, Sendable {
    /// Requests made in this stretch.
    var attempts = 0
    /// When the next request is due, or `nil` (none running, or all made).
    var deadline: TimeInterval?
    /// Whether a stretch is running.
    var isRunning = false
}
