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
    /// Named arbiter accounts (`hall.arbiters`): each signs arbiter actions with its name,
    /// which the audit log records. ``arbiterPassword`` is one more account, named
    /// ``sharedArbiterName``.
    public var arbiters: [ArbiterAccount] = []
    /// The hall view's address as browsers reach it (`hall.public_url`), for links to it
    /// (Home Assistant's device pages).
    public var publicURL: String?
    /// Where the audit log is kept (`hall.audit_file`); `nil`: `hall-audit.jsonl` in the
    /// top-level `state_directory`.
    public var auditFile: String?
    /// At most this many HTTP connections at once (default 256).
    public var connectionLimit: Int
    /// The rounds broadcast to relays (`hall.broadcast`).
    public var broadcast = BroadcastConfiguration()

    /// The name the audit log gives actions signed with ``arbiterPassword``.
    public static let sharedArbiterName = "arbiter"

    /// One arbiter: the name actions are recorded under, and the password.
    public struct ArbiterAccount: Sendable, Equatable {
        /// The name (1–64 characters, no `:` or control characters).
        public var name: String
        /// The password (at least 8 characters).
        public var password: Secret

        /// Creates an account.
        public init(name: String, password: Secret) {
            self.name = name
            self.password = password
        }
    }

    /// The hall view's address for links: ``publicURL``, else the address it listens on when
    /// that is one a browser elsewhere can use (not loopback, not every address), else `nil`.
    public var viewURL: String? {
        if let publicURL { return publicURL }
        guard !["127.0.0.1", "::1", "0.0.0.0", "::"].contains(address), !address.hasPrefix("127.") else { return nil }
        let host = address.contains(":") ? "[\(address)]" : address
        return "\(tls == nil ? "http" : "https")://\(host):\(port)/"
    }

    /// Every account: the named ones, then the shared password's (``sharedArbiterName``).
    public var arbiterAccounts: [ArbiterAccount] {
        arbiters + (arbiterPassword.map { [ArbiterAccount(name: Self.sharedArbiterName, password: $0)] } ?? [])
    }

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
        "connection_limit", "broadcast", "arbiters", "audit_file", "public_url",
    ]
    static let arbiterKeys = ["name", "password", "password_file", "password_env"]

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
        hall.arbiters = readArbiters(section, reader: reader)
        if let node = section.value("public_url"), let text = reader.string(node, path: section.path("public_url")) {
            if text.hasPrefix("http://") || text.hasPrefix("https://") {
                hall.publicURL = text.hasSuffix("/") ? text : text + "/"
            } else {
                reader.fail(section.path("public_url"), "expected an http:// or https:// URL", at: node.mark)
            }
        }
        if let node = section.value("audit_file"), let text = reader.string(node, path: section.path("audit_file")) {
            if text.isEmpty {
                reader.fail(section.path("audit_file"), "expected a file path", at: node.mark)
            } else {
                hall.auditFile = ConfigFiles.resolve(text, against: reader.baseDirectory)
            }
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

    /// `hall.arbiters`: names unique (and not the shared password's), passwords of 8 characters or more.
    static func readArbiters(_ section: ConfigMapping, reader: ConfigReader) -> [ArbiterAccount] {
        var accounts: [ArbiterAccount] = []
        var seen: [String: String] = [:]
        for (path, node) in section.list("arbiters") ?? [] {
            guard let mapping = reader.mapping(node, path: path, keys: arbiterKeys) else { continue }
            guard let nameNode = mapping.value("name") else {
                reader.fail(mapping.path("name"), "is required", at: mapping.node.mark)
                continue
            }
            guard let name = reader.string(nameNode, path: mapping.path("name")) else { continue }
            guard (1...64).contains(name.count), name.first != " ", name.last != " ",
                !name.unicodeScalars.contains(where: { $0 == ":" || $0.properties.generalCategory == .control })
            else {
                reader.fail(
                    mapping.path("name"),
                    "expected 1 to 64 characters without \":\", control characters or edge spaces",
                    at: nameNode.mark)
                continue
            }
            if name == sharedArbiterName {
                reader.fail(
                    mapping.path("name"), "\"\(sharedArbiterName)\" is the name of hall.arbiter_password's actions",
                    at: nameNode.mark)
                continue
            }
            if let first = seen[name] {
                reader.fail(mapping.path("name"), "\(ConfigReader.quote(name)) is also \(first)", at: nameNode.mark)
                continue
            }
            guard let password = reader.secret(in: mapping, key: "password") else {
                if !mapping.has("password"), !mapping.has("password_file"), !mapping.has("password_env") {
                    reader.fail(mapping.path("password"), "is required", at: mapping.node.mark)
                }
                continue
            }
            if password.reveal().count < 8 {
                reader.fail(
                    reader.secretPath(in: mapping, key: "password"), "must have at least 8 characters",
                    at: reader.secretMark(in: mapping, key: "password"))
                continue
            }
            seen[name] = path
            accounts.append(ArbiterAccount(name: name, password: password))
        }
        return accounts
    }

    /// Dotted IPv4 or colon-separated IPv6 text that a socket can bind to (the web server
    /// binds to an address, not a name).
    static func isIPAddress(_ text: String) -> Bool {
        NumericAddress.family(of: text) != nil
    }
}
