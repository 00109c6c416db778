import Contract
import Foundation
import HTTP
import Testing

@testable import Hall

@Suite("HallRouter: routes, and no arbiter action without the password")
struct HallRouterTests {
    static func post(_ path: String, body: String = "", headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8))
    }

    static func basic(_ password: String) -> String {
        "Basic " + Data("arbiter:\(password)".utf8).base64EncodedString()
    }

    static let good = ["x-boardbridge-hall": "1", "authorization": basic("correct horse"), "host": "hall:8080"]

    @Test("the page, the model, one board and the stream are routed; the rest is 404 or 405")
    func routes() {
        let router = HallRouter(password: nil)
        #expect(router.route(HTTPRequest(method: "GET", path: "/")) == .page)
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/boards")) == .boards)
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/events")) == .events)
        #expect(router.route(HTTPRequest(method: "GET", path: "/api/boards/b-1")) == .board("b-1"))
        guard case .refused(let missing) = router.route(HTTPRequest(method: "GET", path: "/etc/passwd")) else {
            Issue.record("routed")
            return
        }
        #expect(missing.status == 404)
        guard case .refused(let markup) = router.route(HTTPRequest(method: "GET", path: "/api/boards/<b>")) else {
            Issue.record("routed")
            return
        }
        #expect(markup.status == 404)
        guard case .refused(let method) = router.route(HTTPRequest(method: "DELETE", path: "/api/boards/b1")) else {
            Issue.record("routed")
            return
        }
        #expect(method.status == 405)
    }

    @Test("without a configured password every action is refused, whatever the request carries")
    func readOnly() {
        let router = HallRouter(password: nil)
        #expect(!router.actionsEnabled)
        for path in ["/api/boards/b1/acknowledge", "/api/boards/b1/command"] {
            for headers in [[:], Self.good] {
                let route = router.route(Self.post(path, body: #"{"takeback":1}"#, headers: headers))
                guard case .refused(let response) = route else {
                    Issue.record("\(path) got through: \(route)")
                    continue
                }
                #expect(response.status == 403)
            }
        }
    }

    @Test("with a password: the header, the password and the origin are all needed")
    func guarded() {
        let router = HallRouter(password: "correct horse")
        #expect(router.actionsEnabled)
        #expect(
            router.route(Self.post("/api/boards/b1/acknowledge", headers: Self.good))
                == .acknowledge("b1", arbiter: "arbiter"))
        #expect(
            router.route(Self.post("/api/boards/b1/command", body: #"{"takeback":2}"#, headers: Self.good))
                == .command("b1", ["takeback": 2], arbiter: "arbiter"))
        var noHeader = Self.good
        noHeader["x-boardbridge-hall"] = nil
        var wrong = Self.good
        wrong["authorization"] = Self.basic("correct horsf")
        var none = Self.good
        none["authorization"] = nil
        var crossSite = Self.good
        crossSite["origin"] = "https://evil.example"
        var sameSite = Self.good
        sameSite["origin"] = "http://hall:8080"
        let expected = [(noHeader, 403), (wrong, 401), (none, 401), (crossSite, 403)]
        for (headers, status) in expected {
            guard case .refused(let response) = router.route(Self.post("/api/boards/b1/acknowledge", headers: headers))
            else {
                Issue.record("got through with \(headers)")
                continue
            }
            #expect(response.status == status)
        }
        #expect(
            router.route(Self.post("/api/boards/b1/acknowledge", headers: sameSite))
                == .acknowledge("b1", arbiter: "arbiter"))
        for body in [#"{"raw":"00"}"#, #"{"takeback":1,"result":"1-0"}"#, "[]", "nonsense", #"{"leds":"clear"}"#] {
            guard
                case .refused(let response) = router.route(
                    Self.post("/api/boards/b1/command", body: body, headers: Self.good))
            else {
                Issue.record("sent \(body)")
                continue
            }
            #expect(response.status == 400)
        }
    }

    static func credentials(_ user: String, _ password: String) -> [String: String] {
        ["x-boardbridge-hall": "1", "authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    @Test("named accounts sign their actions; the shared password signs as arbiter whatever the user name")
    func namedAccounts() {
        let router = HallRouter(
            accounts: [("Jane Doe", "jane-secret"), ("Max", "max-secret"), ("arbiter", "shared-secret")])
        #expect(router.namedAccounts)
        let path = "/api/boards/b1/command"
        let body = #"{"resolve":{"moves":["e4"],"ply":0}}"#
        #expect(
            router.route(Self.post(path, body: body, headers: Self.credentials("Jane Doe", "jane-secret")))
                == .command("b1", ["resolve": ["moves": ["e4"], "ply": 0]], arbiter: "Jane Doe"))
        #expect(
            router.route(Self.post(path, body: body, headers: Self.credentials("someone", "shared-secret")))
                == .command("b1", ["resolve": ["moves": ["e4"], "ply": 0]], arbiter: "arbiter"))
        // One arbiter's name with another's password, or a name with no account and no shared one.
        for (user, password) in [("Jane Doe", "max-secret"), ("Max", "jane-secret"), ("Jane Doe", "shared-secret")] {
            guard
                case .refused(let response) = router.route(
                    Self.post(path, body: body, headers: Self.credentials(user, password)))
            else {
                Issue.record("\(user) got through with another's password")
                continue
            }
            #expect(response.status == 401)
        }
        let namedOnly = HallRouter(accounts: [("Jane Doe", "jane-secret")])
        guard
            case .refused(let response) = namedOnly.route(
                Self.post(path, body: body, headers: Self.credentials("x", "jane-secret")))
        else {
            Issue.record("an unknown name got through")
            return
        }
        #expect(response.status == 401)
        #expect(!HallRouter(password: "correct horse").namedAccounts)
    }

    @Test("the audit downloads: JSON lines or the report, for a round and a board")
    func auditRoutes() {
        let router = HallRouter(password: nil)
        #expect(
            router.route(HTTPRequest(method: "GET", path: "/api/audit.jsonl", query: ["round": "1"]))
                == .audit(format: .jsonLines, round: "1", board: nil))
        #expect(
            router.route(HTTPRequest(method: "GET", path: "/api/audit.txt", query: ["board": "b2", "round": ""]))
                == .audit(format: .text, round: nil, board: "b2"))
        guard
            case .refused(let response) = router.route(
                HTTPRequest(method: "GET", path: "/api/audit.txt", query: ["board": "<b>"]))
        else {
            Issue.record("a bad board id routed")
            return
        }
        #expect(response.status == 400)
    }
}
