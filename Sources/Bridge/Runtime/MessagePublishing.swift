public import Contract
import FoundationEssentials

/// Where board sessions and the bridge hand their messages: the MQTT side (a queueing
/// client that delivers in order after a broker outage), or a recorder in tests.
@MainActor
public protocol MessagePublishing: AnyObject {
    /// Publishes `message` (or queues it until the broker is reachable).
    func publish(_ message: OutgoingMessage)

    /// Publishes `message`, which answers an input that reached the process at `origin` (a
    /// board's frame): the MQTT side measures the time until the message is handed to the
    /// broker's socket (``MoveHandlingLatency``). Without that side, the same as
    /// ``publish(_:)``.
    func publish(_ message: OutgoingMessage, origin: ContinuousClock.Instant?)
}

extension MessagePublishing {
    /// ``publish(_:)``: a publisher that measures nothing ignores `origin`.
    public func publish(_ message: OutgoingMessage, origin: ContinuousClock.Instant?) {
        publish(message)
    }
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
