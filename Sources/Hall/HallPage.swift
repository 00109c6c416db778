import HTTP

/// The page: one HTML document with its CSS and JavaScript, compiled into the binary
/// (`Resources/hall.html`, SwiftPM `embedInCode`), so a hall without internet works. The
/// scripts that extend it (`Resources/hall-health.js`) are put in before its `</body>`.
enum HallPage {
    static let response = HTTPResponse(
        status: 200,
        headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'"
            ),
        ], body: document)
}

extension HallPage {
    /// The page's scripts, in order, each after the page's own.
    static let extensions = [PackageResources.hall_health_js]

    /// `hall.html` with every extension in a `<script>` before its last `</body>`.
    static var document: [UInt8] {
        let page = PackageResources.hall_html
        let end = Array("</body>".utf8)
        let scripts = extensions.flatMap { Array("<script>\n".utf8) + $0 + Array("</script>\n".utf8) }
        guard
            let at = stride(from: page.count - end.count, through: 0, by: -1).first(where: {
                Array(page[$0..<$0 + end.count]) == end
            })
        else { return page + scripts }
        return Array(page[..<at]) + scripts + Array(page[at...])
    }
}
