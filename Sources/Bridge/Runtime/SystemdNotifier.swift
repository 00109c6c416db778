#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

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
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { messageBuffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, messageBuffer.baseAddress, messageBuffer.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == message.count
    }
}
