/// Every MQTT topic of the contract, built from the base topic, this host's node name
/// and a board id (DESIGN.md §5, docs/mqtt-contract.md):
///
/// ```
/// <base>/bridge/<node>/state | info | request/<op> | response/<op>
/// <base>/<board>            (full state)
/// <base>/<board>/availability | connection | move | event | clock | pgn | corrections | response
/// <base>/<board>/set | set/<name>   (commands in)
/// ```
///
/// Board ids must pass `Topics.validateBoardID(_:)` (the configuration checks them once);
/// the builders do not check again.
public struct Topics: Equatable, Sendable {
    /// The default base topic.
    public static let defaultBase = "boardbridge"
    /// The topic level that holds the bridge topics; no board may use it as its id.
    public static let bridgeLevel = "bridge"
    /// The longest board id, node name or command name accepted.
    public static let maximumNameLength = 64

    /// The base topic (one or more levels, e.g. `boardbridge` or `site/boardbridge`).
    public let base: String
    /// This host's node name (one level), which keeps bridge topics of several hosts apart.
    public let node: String

    /// Checks `base` and `node` and creates the topic set.
    public init(base: String = Topics.defaultBase, node: String) throws(TopicError) {
        try Self.validateBase(base)
        try Self.validateName(node, role: "node")
        self.base = base
        self.node = node
    }

    // MARK: Bridge topics

    /// `<base>/bridge/<node>/state`: retained `{"state":"online"|"offline"}`, also the last will.
    public var bridgeState: String { bridgePrefix + "/state" }

    /// `<base>/bridge/<node>/info`: retained version, node, boards, config.
    public var bridgeInfo: String { bridgePrefix + "/info" }

    /// `<base>/bridge/<node>/request/<op>`: requests in.
    public func bridgeRequest(_ op: String) -> String { bridgePrefix + "/request/" + op }

    /// `<base>/bridge/<node>/response/<op>`: the answer to a request.
    public func bridgeResponse(_ op: String) -> String { bridgePrefix + "/response/" + op }

    // MARK: Board topics

    /// `<base>/<board>`: retained full state JSON.
    public func boardState(_ board: String) -> String { base + "/" + board }

    /// `<base>/<board>/availability`: retained `{"state":"online"|"offline"}`.
    public func availability(_ board: String) -> String { boardState(board) + "/availability" }

    /// `<base>/<board>/connection`: retained transport state and reconnect progress.
    public func connection(_ board: String) -> String { boardState(board) + "/connection" }

    /// `<base>/<board>/move`: one message per committed move (not retained).
    public func move(_ board: String) -> String { boardState(board) + "/move" }

    /// `<base>/<board>/event`: `{"event_type":…}` messages (not retained).
    public func event(_ board: String) -> String { boardState(board) + "/event" }

    /// `<base>/<board>/clock`: clock pause/resume actions (not retained).
    public func clock(_ board: String) -> String { boardState(board) + "/clock" }

    /// `<base>/<board>/pgn`: retained PGN of the game so far.
    public func pgn(_ board: String) -> String { boardState(board) + "/pgn" }

    /// `<base>/<board>/corrections`: retained, the corrections the bridge made (``BoardCorrections``).
    public func corrections(_ board: String) -> String { boardState(board) + "/corrections" }

    /// `<base>/<board>/set`: JSON commands in.
    public func set(_ board: String) -> String { boardState(board) + "/set" }

    /// `<base>/<board>/set/<name>`: one command with a plain value.
    public func set(_ board: String, command name: String) -> String { set(board) + "/" + name }

    /// `<base>/<board>/response`: answers to commands (errors always; successes when asked).
    public func response(_ board: String) -> String { boardState(board) + "/response" }

    /// Every retained topic of a board, to clear when the board leaves the configuration.
    public func retainedBoardTopics(_ board: String) -> [String] {
        [boardState(board), availability(board), connection(board), pgn(board), corrections(board)]
    }

    // MARK: Incoming

    /// The filters to subscribe to: board commands (both forms) and this node's requests.
    public var subscriptions: [String] { commandFilters + [requestFilter] }

    /// The filters of board commands, both forms (`<base>/+/set`, `<base>/+/set/+`).
    public var commandFilters: [String] { [base + "/+/set", base + "/+/set/+"] }

    /// The filter of this node's requests (`<base>/bridge/<node>/request/#`).
    public var requestFilter: String { bridgePrefix + "/request/#" }

    /// What an incoming topic addresses, or `nil` when it is not an input of this bridge
    /// (another node's requests, an output topic, a malformed topic). The board id is
    /// returned as received: whether such a board exists is the router's question
    /// (`CommandError.unknownBoard`), also for `<base>/bridge/set`, which the
    /// subscriptions receive. An empty last level (`…/set/`, `…/request/`) is returned
    /// as an empty name or op, so that the sender gets an error answer.
    public func parse(_ topic: String) -> IncomingTopic? {
        let prefix = base + "/"
        guard topic.hasPrefix(prefix) else { return nil }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        guard let first = levels.first, !first.isEmpty, !levels.dropLast().contains(where: \.isEmpty) else {
            return nil
        }
        if first == Self.bridgeLevel, levels.count < 2 || levels[1] != "set" {
            guard levels.count >= 4, levels[1] == node, levels[2] == "request" else { return nil }
            return .bridgeRequest(op: levels[3...].joined(separator: "/"))
        }
        guard levels.count >= 2, levels[1] == "set" else { return nil }
        switch levels.count {
        case 2: return .boardCommand(board: first, name: nil)
        case 3: return .boardCommand(board: first, name: levels[2])
        default: return nil
        }
    }

    // MARK: Validation

    /// Checks a board id: 1…64 characters from `A-Z a-z 0-9 _ -` (also valid in Home
    /// Assistant object ids), and not `bridge`.
    public static func validateBoardID(_ id: String) throws(TopicError) {
        try validateName(id, role: "board id")
        guard id != bridgeLevel else { throw .reserved(id) }
    }

    /// Checks a base topic or discovery prefix: non-empty levels separated by `/`, no
    /// wildcards (`+`, `#`), no NUL, not starting with `$`.
    public static func validateBase(_ base: String, role: String = "base topic") throws(TopicError) {
        guard !base.isEmpty else { throw .empty(role) }
        guard base.utf8.count <= 256 else { throw .tooLong(role, base) }
        guard !base.hasPrefix("$") else { throw .invalidCharacter(role, base, "$") }
        for character in base where character == "+" || character == "#" || character == "\u{0}" {
            throw .invalidCharacter(role, base, character)
        }
        guard !base.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw .emptyLevel(role, base)
        }
    }

    /// Checks a single-level name (node, board id): 1…64 of `A-Z a-z 0-9 _ -`.
    static func validateName(_ name: String, role: String) throws(TopicError) {
        guard !name.isEmpty else { throw .empty(role) }
        guard name.count <= maximumNameLength else { throw .tooLong(role, name) }
        for character in name where !isNameCharacter(character) {
            throw .invalidCharacter(role, name, character)
        }
    }

    static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "-")
    }

    private var bridgePrefix: String { base + "/" + Self.bridgeLevel + "/" + node }
}

/// What an incoming topic addresses.
public enum IncomingTopic: Equatable, Sendable {
    /// `<base>/<board>/set` (`name` is `nil`) or `<base>/<board>/set/<name>`.
    case boardCommand(board: String, name: String?)
    /// `<base>/bridge/<node>/request/<op>` for this node; `op` may hold `/`.
    case bridgeRequest(op: String)
}

/// A base topic, node name or board id that cannot be used.
public enum TopicError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value is empty.
    case empty(String)
    /// The value is too long.
    case tooLong(String, String)
    /// The value holds a character that is not allowed.
    case invalidCharacter(String, String, Character)
    /// A multi-level value has an empty level (`a//b`, leading or trailing `/`).
    case emptyLevel(String, String)
    /// A board id uses a reserved level name (`bridge`).
    case reserved(String)
    /// The Home Assistant discovery prefix is the same as the base topic.
    case discoveryPrefixIsBase(String)

    /// A readable message naming the value.
    public var description: String {
        switch self {
        case .empty(let role): "\(role) is empty"
        case .tooLong(let role, let value): "\(role) \"\(value)\" is too long"
        case .invalidCharacter(let role, let value, let character):
            "\(role) \"\(value)\" may not contain \"\(character)\""
        case .emptyLevel(let role, let value): "\(role) \"\(value)\" has an empty topic level"
        case .reserved(let value): "board id \"\(value)\" is reserved for the bridge topics"
        case .discoveryPrefixIsBase(let value):
            "the Home Assistant discovery prefix \"\(value)\" must differ from the base topic"
        }
    }
}
