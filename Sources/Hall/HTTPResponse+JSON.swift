import HTTP
import JSON

extension HTTPResponse {
    /// A JSON answer of the hall's API: never cached, never sniffed as another type.
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [
                ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
            ], body: value.encoded())
    }
}
