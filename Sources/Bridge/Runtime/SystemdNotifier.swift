public import FoundationEssentials
import SystemCalls

/// The `sd_notify` protocol without libsystemd: datagrams to `$NOTIFY_SOCKET`
/// (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…`). Does nothing when the variable
/// is unset, so the bridge runs the same outside systemd.
public struct SystemdNotifier: Sendable {
    /// The socket path (abstract sockets start with `@`), or `nil` outside systemd.
    public let socketPath: String?
    /// The watchdog interval systemd expects pings within (`WATCHDOG_USEC`), if any.
    public let watchdogInterval: TimeInterval?

    /// Reads `NOTIFY_SOCKET` and `WATCHDOG_USEC` from `environment`.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        if path != nil, let text = environment["WATCHDOG_USEC"], let usec = Double(text), usec > 0 {
            watchdogInterval = usec / 1_000_000
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends `state` (e.g. `"READY=1\nSTATUS=4 boards"`). Returns whether it was sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let message = Array(state.utf8)
        return (try? UnixDatagram.send(message, to: socketPath)) == message.count
    }
}
