public import Contract
import FoundationEssentials

/// Where board sessions and the bridge hand their messages: the MQTT side (a queueing
/// client that delivers in order after a broker outage), or a recorder in tests.
@MainActor
public protocol MessagePublishing: AnyObject {
    /// Publishes `message` (or queues it until the broker is reachable).
    func publish(_ message: OutgoingMessage)
}

/// Wall-clock seconds for the sessions. One time base across restarts (persisted clocks
/// and timestamps stay meaningful), injected so tests control time.
public struct SessionClock: Sendable {
    /// Seconds since 1970.
    public var now: @Sendable () -> Double

    /// A clock reading `now`.
    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The wall clock.
    public static let wall = SessionClock(now: { Date().timeIntervalSince1970 })
}
