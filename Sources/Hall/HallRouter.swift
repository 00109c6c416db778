import Contract
import FoundationEssentials
public import HTTP
public import JSON

/// Maps requests to what the hall does, and guards the arbiter actions. Pure: tested
/// without a socket.
///
/// Actions (`POST /api/boards/<id>/acknowledge`, `POST /api/boards/<id>/command`) are off
/// (403) unless an arbiter account is configured; then they need HTTP Basic credentials of
/// one (the user name an account's name, or any name with the shared password) and the
/// header `X-BoardBridge-Hall: 1`. The account's name signs the action in the audit log. A cross-site form or image
/// cannot set a custom header, and a cross-site script that tries needs a CORS preflight,
/// which this server never grants: that is the CSRF guard. A request whose `Origin` names
/// another host is refused as well.
public struct HallRouter: Sendable {
    /// What a request asks for.
    public enum Route: Equatable, Sendable {
        /// `GET /`: the page.
        case page
        /// `GET /api/boards`: the whole model.
        case boards
        /// `GET /api/boards/<id>`: one board with its PGN and events.
        case board(String)
        /// `GET /api/events`: the event stream.
        case events
        /// `GET /metrics`: every node's health for Prometheus (``HallMetrics``).
        case metrics
        /// `POST /api/boards/<id>/acknowledge`, authorized by `arbiter`.
        case acknowledge(String, arbiter: String)
        /// `POST /api/boards/<id>/command`, authorized by `arbiter`, with one allowed command.
        case command(String, JSONObject, arbiter: String)
        /// `GET /api/audit.jsonl` (`format` `jsonl`) or `/api/audit.txt` (`text`), for the
        /// round and board the query names (all when absent).
        case audit(format: HallAuditFormat, round: String?, board: String?)
        /// Answered at once with this response (404, 405, 401, 403, 400).
        case refused(HTTPResponse)
    }

    /// Who a request acts for.
    enum Authorization: Equatable {
        /// The arbiter of this name.
        case signed(String)
        /// Nobody: answered with this refusal.
        case refused(HTTPResponse)
    }

    /// The commands an arbiter may send (docs/mqtt-contract.md, Commands).
    public static let commands: Set<String> = [
        "position", "takeback", "resolve", "result", "clock", "new_game", "calibrate",
    ]
    /// The header every action must carry.
    public static let actionHeader = "x-boardbridge-hall"

    private let accounts: [(name: String, password: String)]
    private let sharedName: String

    /// A router for `accounts` (none: the hall is read-only); an account named `sharedName`
    /// is the shared password's, taken with any user name.
    public init(accounts: [(name: String, password: String)], sharedName: String = "arbiter") {
        self.accounts = accounts
        self.sharedName = sharedName
    }

    /// A router with one shared password; `nil` keeps the hall read-only.
    public init(password: String?) {
        self.init(accounts: password.map { [(name: "arbiter", password: $0)] } ?? [])
    }

    /// Whether arbiter actions are on.
    public var actionsEnabled: Bool { !accounts.isEmpty }

    /// Whether arbiters sign in with their own names (the page then asks for the name).
    public var namedAccounts: Bool { accounts.contains { $0.name != sharedName } }

    /// Where `request` goes.
    public func route(_ request: HTTPRequest) -> Route {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (request.method, request.path) {
        case ("GET", "/"), ("HEAD", "/"): return .page
        case ("GET", "/api/boards"): return .boards
        case ("GET", "/api/events"): return .events
        case ("GET", "/metrics"): return .metrics
        case ("GET", "/api/audit.jsonl"), ("GET", "/api/audit.txt"):
            let round = request.query["round"].flatMap { $0.isEmpty ? nil : $0 }
            let board = request.query["board"].flatMap { $0.isEmpty ? nil : $0 }
            if let round, round.count > 64 { return .refused(.plain(400, "round name too long")) }
            if let board, (try? Topics.validateBoardID(board)) == nil { return .refused(.plain(400, "bad board id")) }
            return .audit(format: request.path.hasSuffix(".txt") ? .text : .jsonLines, round: round, board: board)
        default: break
        }
        guard parts.count >= 4, parts[0].isEmpty, parts[1] == "api", parts[2] == "boards" else {
            return .refused(.plain(404, "not found"))
        }
        let id = parts[3]
        guard (try? Topics.validateBoardID(id)) != nil else { return .refused(.plain(404, "no such board")) }
        switch (request.method, parts.count, parts.count > 4 ? parts[4] : "") {
        case ("GET", 4, _): return .board(id)
        case ("POST", 5, "acknowledge"):
            switch arbiter(of: request) {
            case .refused(let refusal): return .refused(refusal)
            case .signed(let name): return .acknowledge(id, arbiter: name)
            }
        case ("POST", 5, "command"):
            let name: String
            switch arbiter(of: request) {
            case .refused(let refusal): return .refused(refusal)
            case .signed(let signed): name = signed
            }
            guard let command = parseCommand(request.body) else {
                let names = Self.commands.sorted().joined(separator: ", ")
                return .refused(.plain(400, "expected a JSON object with one of: \(names)"))
            }
            return .command(id, command, arbiter: name)
        case (_, 4, _), (_, 5, "acknowledge"), (_, 5, "command"):
            return .refused(HTTPResponse.plain(405, "method not allowed"))
        default:
            return .refused(.plain(404, "not found"))
        }
    }

    /// `nil` when the request may act; else the refusal.
    func authorize(_ request: HTTPRequest) -> HTTPResponse? {
        if case .refused(let refusal) = arbiter(of: request) { return refusal }
        return nil
    }

    /// The name of the arbiter whose credentials `request` carries, or the refusal.
    func arbiter(of request: HTTPRequest) -> Authorization {
        guard actionsEnabled else {
            return .refused(.plain(403, "arbiter actions are off (no hall.arbiter_password or hall.arbiters)"))
        }
        guard request.header(Self.actionHeader) == "1" else {
            return .refused(.plain(403, "missing X-BoardBridge-Hall header"))
        }
        if let origin = request.header("origin"), let host = request.header("host") {
            let stripped = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
            guard stripped.map(String.init) == host else {
                return .refused(.plain(403, "cross-origin request refused"))
            }
        }
        guard let (user, given) = Self.basicCredentials(request.header("authorization")),
            let account = accounts.first(where: { $0.name == user })
                ?? accounts.first(where: { $0.name == sharedName }),
            Self.equal(given, account.password)
        else { return .refused(.plain(401, "arbiter name and password required")) }
        return .signed(account.name)
    }

    /// The user and password of `Basic base64(user:password)`.
    static func basicCredentials(_ header: String?) -> (user: String, password: String)? {
        guard let header, header.hasPrefix("Basic "), header.count < 1024,
            let data = Data(base64Encoded: String(header.dropFirst(6))),
            case let text = String(decoding: data, as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// Compares in time independent of where the first difference is.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = x.count ^ y.count
        for index in 0..<max(x.count, y.count) {
            difference |= Int((index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0))
        }
        return difference == 0
    }

    /// One allowed command as a JSON object (`{"takeback":1}`), else nil.
    func parseCommand(_ body: [UInt8]) -> JSONObject? {
        guard let value = try? JSONValue(parsing: body, maximumDepth: 8), let object = value.objectValue,
            object.count == 1, let key = object.keys.first, Self.commands.contains(key)
        else { return nil }
        return object
    }
}
