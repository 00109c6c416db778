public import HTTP

/// One relay file as last served: its body, strong ETag, when its content last changed,
/// and what it was rendered from (so a poll that finds nothing new costs a lookup).
struct HallBroadcastOutput: Sendable {
    var body: [UInt8]
    var etag: String
    /// When the content last changed (seconds since 1970).
    var lastModified: Double
    /// When it was rendered, and from which version of the round.
    var renderedAt: Double
    var version: UInt64

    /// A strong entity tag: the quoted 64-bit FNV-1a hash of the body, in hex.
    static func etag(of body: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether `If-None-Match: header` matches `etag` (RFC 9110 §13.1.2: `*`, or a list,
    /// compared weakly, so `W/"…"` matches too).
    static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        if header.trimmingSpaces() == "*" { return true }
        return header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingSpaces()
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    /// `Wed, 02 Dec 2026 14:03:11 GMT` (RFC 9110 IMF-fixdate) for `seconds` since 1970.
    static func httpDate(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let second = total - days * 86_400
        // Civil date from days since 1970 (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(second / 3600)):"
            + "\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }
}

extension HallBroadcast {
    /// How long a rendered file of a delayed round is served before it is rendered again
    /// (seconds): what the relay sees trails the delay by at most this, never leads it.
    static let delayedRefresh = 1.0

    /// Answers `GET`/`HEAD /broadcast/<round>/<file>` at `now` (seconds since 1970), with a
    /// strong `ETag`, `Last-Modified`, and `304 Not Modified` for a matching
    /// `If-None-Match`; `nil` when the path is not under `/broadcast/`.
    public mutating func respond(to request: HTTPRequest, at now: Double) -> HTTPResponse? {
        guard request.path.hasPrefix("/broadcast/") || request.path == "/broadcast" else { return nil }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0].isEmpty, let state = rounds[parts[2]] else {
            return .plain(404, "no such broadcast file (see /broadcast/<round>/games.pgn)")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(
                status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8))
        }
        let key = parts[2] + "/" + parts[3]
        var output = outputs[key]
        let stale =
            output.map { cached in
                cached.version != state.version
                    || (state.configuration.delay > 0 && now - cached.renderedAt >= Self.delayedRefresh)
            } ?? true
        if stale {
            guard let text = render(round: parts[2], file: parts[3], at: now) else {
                return .plain(404, "no such broadcast file in round \(parts[2])")
            }
            let body = Array(text.utf8)
            if var cached = output {
                if cached.body != body {
                    cached.body = body
                    cached.etag = HallBroadcastOutput.etag(of: body)
                    cached.lastModified = now
                }
                cached.renderedAt = now
                cached.version = state.version
                output = cached
            } else {
                output = HallBroadcastOutput(
                    body: body, etag: HallBroadcastOutput.etag(of: body), lastModified: now, renderedAt: now,
                    version: state.version)
            }
            outputs[key] = output
        }
        guard let output else { return .plain(500, "no output") }
        let contentType =
            parts[3].hasSuffix(".json") ? "application/json" : "application/x-chess-pgn; charset=utf-8"
        let headers: [(name: String, value: String)] = [
            ("ETag", output.etag), ("Last-Modified", HallBroadcastOutput.httpDate(output.lastModified)),
            ("Cache-Control", "no-cache"), ("Access-Control-Allow-Origin", "*"),
        ]
        if HallBroadcastOutput.matches(request.header("if-none-match"), etag: output.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", contentType)] + headers, body: output.body)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
