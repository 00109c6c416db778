import SystemCalls

/// The `hall:` section: the arbiter's hall view (`boardbridge hall`, docs/hall.md).
public struct HallConfiguration: Sendable, Equatable {
    /// The address the web server listens on (default `127.0.0.1`, loopback only).
    public var address: String
    /// The port (default 8080).
    public var port: Int
    /// PEM certificate and key files for HTTPS; `nil` serves plain HTTP.
    public var tls: TLSFiles?
    /// The password for arbiter actions; `nil` (the default) keeps the view read-only.
    public var arbiterPassword: Secret?
    /// At most this many HTTP connections at once (default 256).
    public var connectionLimit: Int
    /// The rounds broadcast to relays (`hall.broadcast`).
    public var broadcast = BroadcastConfiguration()

    /// A certificate and its key, as file paths.
    public struct TLSFiles: Sendable, Equatable {
        /// The PEM certificate (chain).
        public var certificateFile: String
        /// The PEM private key.
        public var keyFile: String

        /// Creates the pair.
        public init(certificateFile: String, keyFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    /// The defaults, or the given values.
    public init(
        address: String = "127.0.0.1", port: Int = 8080, tls: TLSFiles? = nil, arbiterPassword: Secret? = nil,
        connectionLimit: Int = 256
    ) {
        self.address = address
        self.port = port
        self.tls = tls
        self.arbiterPassword = arbiterPassword
        self.connectionLimit = connectionLimit
    }

    static let keys = [
        "address", "port", "tls", "arbiter_password", "arbiter_password_file", "arbiter_password_env",
        "connection_limit", "broadcast",
    ]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> HallConfiguration {
        var hall = HallConfiguration()
        if let node = section.value("address"), let text = reader.string(node, path: section.path("address")) {
            if isIPAddress(text) {
                hall.address = text
            } else {
                reader.fail(section.path("address"), "expected an IPv4 or IPv6 address, got \"\(text)\"", at: node.mark)
            }
        }
        hall.port = section.int("port", in: 1...65_535, default: hall.port)
        hall.connectionLimit = section.int("connection_limit", in: 4...65_536, default: hall.connectionLimit)
        hall.arbiterPassword = reader.secret(in: section, key: "arbiter_password")
        if let password = hall.arbiterPassword, password.reveal().count < 8 {
            reader.fail(
                reader.secretPath(in: section, key: "arbiter_password"), "must have at least 8 characters",
                at: reader.secretMark(in: section, key: "arbiter_password"))
        }
        if let tls = section.mapping("tls", keys: ["cert_file", "key_file"]) {
            func file(_ key: String) -> String? {
                guard let node = tls.value(key) else {
                    reader.fail(tls.path(key), "is required with hall.tls", at: tls.node.mark)
                    return nil
                }
                guard let text = reader.string(node, path: tls.path(key)), !text.isEmpty else { return nil }
                let path = ConfigFiles.resolve(text, against: reader.baseDirectory)
                if let problem = ConfigFiles.readabilityProblem(path) {
                    reader.fail(tls.path(key), "cannot read \(ConfigReader.quote(path)): \(problem)", at: node.mark)
                }
                return path
            }
            if let certificate = file("cert_file"), let key = file("key_file") {
                hall.tls = TLSFiles(certificateFile: certificate, keyFile: key)
            }
        }
        if let section = section.mapping("broadcast", keys: BroadcastConfiguration.keys) {
            hall.broadcast = BroadcastConfiguration.read(section, reader: reader)
        }
        return hall
    }

    /// Dotted IPv4 or colon-separated IPv6 text that a socket can bind to (the web server
    /// binds to an address, not a name).
    static func isIPAddress(_ text: String) -> Bool {
        NumericAddress.family(of: text) != nil
    }
}
