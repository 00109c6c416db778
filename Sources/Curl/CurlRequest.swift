/// An HTTP request for ``CurlClient``.
public struct CurlRequest: Sendable {
    /// The URL (`http://` or `https://`).
    public var url: String
    /// The method (`GET`, `POST`, …).
    public var method: String
    /// Header lines, in order (`("Authorization", "Bearer …")`).
    public var headers: [(name: String, value: String)]
    /// The body (empty for none).
    public var body: [UInt8]
    /// The longest the whole exchange may take, in seconds.
    public var timeout: Double
    /// The longest connecting may take, in seconds.
    public var connectTimeout: Double
    /// The most response body bytes kept; a longer body fails the request.
    public var maxResponseBytes: Int

    /// A request; by default a `GET` with a 10 s limit (3 s to connect) and a 1 MiB body.
    public init(
        url: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: Double = 10, connectTimeout: Double = 3, maxResponseBytes: Int = 1 << 20
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// What the server answered.
public struct CurlResponse: Sendable, Equatable {
    /// The status code (`200`, `429`, …).
    public var status: Int
    /// The response's header lines, names as sent.
    public var headers: [CurlHeader]
    /// The body.
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One response header line.
public struct CurlHeader: Sendable, Equatable {
    /// The name, as sent.
    public var name: String
    /// The value, without surrounding spaces.
    public var value: String
}

/// Why a request got no response: libcurl's code (`CURLcode`), the call that failed and
/// libcurl's own words.
public struct CurlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `CURLcode` (`7`: could not connect, `28`: timed out, …).
    public var code: Int32
    /// The libcurl function that failed.
    public var function: String
    /// libcurl's message for it.
    public var message: String

    /// `function: message (code)`.
    public var description: String { "\(function): \(message) (\(code))" }
}
