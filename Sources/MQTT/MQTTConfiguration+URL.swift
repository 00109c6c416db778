extension MQTTConfiguration {
    /// A configuration for the broker at `url`, with defaults for everything else.
    ///
    /// Accepted: `mqtt://host`, `mqtt://host:port`, `mqtts://host[:port]`, IPv6 hosts in
    /// brackets (`mqtt://[::1]:1883`), an optional trailing `/`. The default port is 1883
    /// for `mqtt` and 8883 for `mqtts`; `mqtts` turns TLS on with system CAs (adjust
    /// ``tls`` afterwards).
    ///
    /// User names and passwords in the URL (`mqtt://user:pass@host`) are **rejected**: the
    /// server URL is logged and shown in the bridge's published info, so a password in it
    /// would leak. Set ``username`` and ``password`` instead. The error shows the URL with
    /// its user part replaced by `***`.
    public init(url: String, clientID: String) throws(MQTTConfigurationError) {
        let address = try MQTTServerAddress(parsing: url)
        self.init(
            host: address.host, port: address.port, tls: address.usesTLS ? MQTTTLSConfiguration() : nil,
            clientID: clientID)
    }
}

/// A broker's address: the parts of an `mqtt://` / `mqtts://` server URL.
///
/// The one parser of server URLs: ``MQTTConfiguration/init(url:clientID:)`` uses it, and so
/// does the bridge's configuration file reader (`mqtt.url`).
public struct MQTTServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: UInt16
    /// Whether the connection uses TLS (`mqtts://`).
    public var usesTLS: Bool

    /// An address from its parts.
    public init(host: String, port: UInt16, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// The server URL, `mqtt://host:port` or `mqtts://host:port` (IPv6 hosts in brackets).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }

    /// Parses a server URL; see ``MQTTConfiguration/init(url:clientID:)`` for what is
    /// accepted. A user name or password in the URL is rejected, and the error shows the
    /// URL with its user part replaced by `***`.
    public init(parsing url: String) throws(MQTTConfigurationError) {
        let text = url.trimmingWhitespace()
        guard let separator = text.firstRange(of: "://") else { throw .invalidURL(text) }
        let scheme = text[..<separator.lowerBound].lowercased()
        switch scheme {
        case "mqtt": usesTLS = false
        case "mqtts": usesTLS = true
        default: throw .unsupportedScheme(String(text[..<separator.lowerBound]))
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") {
            let hostPart = authority[authority.index(after: at)...]
            throw .credentialsInURL("\(scheme)://***@\(hostPart)\(tail)")
        }
        guard tail.isEmpty || tail == "/" else { throw .unexpectedPath(text) }

        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text) }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL(text) }
                portText = after.dropFirst()
            }
            guard hostText.contains(":"), hostText.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
            else { throw .invalidHost(String(hostText)) }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .invalidHost(String(authority)) }
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            let allowed = hostText.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-._".contains($0) }
            guard allowed else { throw .invalidHost(String(hostText)) }
        }
        guard !hostText.isEmpty else { throw .missingHost(text) }
        host = String(hostText)
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                let value = Int(portText), (1...65_535).contains(value)
            else { throw .invalidPort(String(portText)) }
            port = UInt16(value)
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
