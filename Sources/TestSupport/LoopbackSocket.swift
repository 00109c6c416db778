#if canImport(Glibc)
    import Glibc
#endif

/// IPv4 addresses for tests' own sockets: binding and connecting a TCP socket on a loopback
/// address without spelling out `sockaddr_in` each time.
public enum LoopbackSocket {
    /// A new TCP socket (close-on-exec), or a negative value.
    public static func tcp() -> Int32 {
        socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Binds `descriptor` to `host:port` (`port` 0: any free one); whether it worked.
    public static func bind(_ descriptor: Int32, host: String = "127.0.0.1", port: UInt16 = 0) -> Bool {
        withAddress(host: host, port: port) { Glibc.bind(descriptor, $0, $1) == 0 }
    }

    /// Connects `descriptor` to `host:port`; whether it worked.
    public static func connect(_ descriptor: Int32, host: String = "127.0.0.1", port: UInt16) -> Bool {
        withAddress(host: host, port: port) { Glibc.connect(descriptor, $0, $1) == 0 }
    }

    private static func withAddress(
        host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Bool
    ) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
