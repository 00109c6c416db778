/// One HTTP request, as the server hands it to its handler (no C type in it).
public struct HTTPRequest: Sendable, Equatable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The path without the query (`/api/boards`).
    public var path: String
    /// The request headers, names in lower case; a repeated header keeps its last value.
    public var headers: [String: String]
    /// The query arguments (`?a=1`), decoded.
    public var query: [String: String]
    /// The body (at most ``HTTPServerSettings/bodyLimit`` bytes; larger bodies never reach the handler).
    public var body: [UInt8]
    /// The client's address as text.
    public var clientAddress: String

    /// Creates a request (tests, and the server).
    public init(
        method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
        body: [UInt8] = [], clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
        self.clientAddress = clientAddress
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Response headers in order (`Content-Length` is added by the server).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a text body of `contentType`.
    public init(status: Int, contentType: String, text: String, headers: [(name: String, value: String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
    }

    /// A plain-text error or status response (`404 not found`).
    public static func plain(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", text: text + "\n")
    }

    /// Headers compared by name and value, in order.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }
}

/// What a handler answers with.
public enum HTTPReply {
    /// A complete response.
    case response(HTTPResponse)
    /// A never-ending `text/event-stream` response fed through the stream (Server-Sent Events).
    case eventStream(HTTPEventStream)
}
