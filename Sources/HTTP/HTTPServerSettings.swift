/// Where and how an ``HTTPServer`` listens, and the bounds it keeps.
public struct HTTPServerSettings: Sendable, Equatable {
    /// The address to listen on, IPv4 or IPv6 text (default `127.0.0.1`).
    public var address: String
    /// The port; 0 picks a free one (see ``HTTPServer/port``).
    public var port: UInt16
    /// At most this many connections at once (further ones are refused).
    public var connectionLimit: Int
    /// At most this many connections from one client address.
    public var perClientLimit: Int
    /// Connections kept for clients that hold few (fewer than ``reservedPerClient``): once
    /// only this many slots are left, an address that holds that many already is refused, so
    /// that idle or half-open connections from a few addresses never lock a new client out
    /// (an arbiter's browser). Default: an eighth of ``connectionLimit``.
    public var reservedConnections: Int
    /// How many connections an address may hold and still get a reserved slot.
    public static let reservedPerClient = 4
    /// Seconds of silence after which a connection is closed (slowloris); event streams
    /// are exempt (they are fed with comments instead).
    public var connectionTimeout: Int
    /// Bytes of memory per connection for the request line and headers; larger headers
    /// are answered with 431 or 413.
    public var headerLimit: Int
    /// The largest request body accepted; larger ones are answered with 413.
    public var bodyLimit: Int
    /// PEM certificate and key for HTTPS (GnuTLS), or `nil` for plain HTTP.
    public var tls: TLS?

    /// The certificate and key of an HTTPS server, as PEM text.
    public struct TLS: Sendable, Equatable {
        /// The certificate chain (PEM).
        public var certificatePEM: String
        /// The private key (PEM).
        public var keyPEM: String

        /// Creates the pair.
        public init(certificatePEM: String, keyPEM: String) {
            self.certificatePEM = certificatePEM
            self.keyPEM = keyPEM
        }
    }

    /// The defaults, or the given values.
    public init(
        address: String = "127.0.0.1", port: UInt16 = 0, connectionLimit: Int = 256, perClientLimit: Int = 32,
        connectionTimeout: Int = 10, headerLimit: Int = 32 * 1024, bodyLimit: Int = 64 * 1024, tls: TLS? = nil
    ) {
        self.address = address
        self.port = port
        self.connectionLimit = connectionLimit
        self.perClientLimit = perClientLimit
        reservedConnections = connectionLimit / 8
        self.connectionTimeout = connectionTimeout
        self.headerLimit = headerLimit
        self.bodyLimit = bodyLimit
        self.tls = tls
    }
}

/// Why a server could not start.
public enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The address is not IPv4 or IPv6 text, or the port cannot be bound.
    case cannotListen(address: String, port: UInt16)
    /// TLS was asked for but libmicrohttpd was built without it.
    case tlsUnsupported
    /// The server started but has no epoll descriptor to watch.
    case noEventDescriptor

    /// A readable message.
    public var description: String {
        switch self {
        case .cannotListen(let address, let port): "cannot listen on \(address) port \(port)"
        case .tlsUnsupported: "this libmicrohttpd has no TLS support"
        case .noEventDescriptor: "libmicrohttpd gave no epoll descriptor"
        }
    }
}
