import HTTP

/// The page: one HTML document with its CSS and JavaScript, compiled into the binary
/// (`Resources/hall.html`, SwiftPM `embedInCode`), so a hall without internet works.
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
        ], body: PackageResources.hall_html)
}
