/// What a topic the bridges publish on carries, for readers of the whole base topic (the
/// hall view): the output side of ``Topics``, whose builders make these topics.
public enum PublishedTopic: Equatable, Sendable {
    /// `<base>/bridge/<node>/state`.
    case bridgeState(node: String)
    /// `<base>/bridge/<node>/info`.
    case bridgeInfo(node: String)
    /// `<base>/bridge/<node>/health` (``HealthPayload``).
    case bridgeHealth(node: String)
    /// `<base>/bridge/<node>/response/<op>`.
    case bridgeResponse(node: String, op: String)
    /// `<base>/<board>` and `<base>/<board>/<kind>` for the board outputs.
    case board(String, BoardTopicKind)
    /// A board command (`<base>/<board>/set`, `<base>/<board>/set/<name>`): published by clients.
    case boardCommand(String)
    /// Another input (`<base>/bridge/…/set`, `…/request/…`) published by clients, or the
    /// hall's broadcast alerts (`<base>/bridge/hall/broadcast/…`): not a bridge's state.
    case input
}

/// The board topics a bridge publishes (``Topics`` builds them).
public enum BoardTopicKind: String, Equatable, Sendable, CaseIterable {
    /// `<base>/<board>`: the full state.
    case state = ""
    /// `…/availability`.
    case availability
    /// `…/connection`.
    case connection
    /// `…/move`.
    case move
    /// `…/event`.
    case event
    /// `…/clock`.
    case clock
    /// `…/pgn`.
    case pgn
    /// `…/corrections` (``BoardCorrections``).
    case corrections
    /// `…/response`.
    case response
}

/// A topic under the base topic that is none of the contract's.
public enum PublishedTopicError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not below the base topic at all.
    case outsideBase(String)
    /// A board id that ``Topics/validateBoardID(_:)`` refuses (the message says why).
    case badBoardID(String)
    /// A node name that is not a valid name.
    case badNode(String)
    /// A level or shape the contract does not have.
    case unknown(String)

    /// A readable message (the topic is quoted as received; callers escape it for display).
    public var description: String {
        switch self {
        case .outsideBase(let topic): "topic \"\(topic)\" is not below the base topic"
        case .badBoardID(let reason): reason
        case .badNode(let reason): reason
        case .unknown(let topic): "topic \"\(topic)\" is not part of the contract"
        }
    }
}

extension Topics {
    /// Classifies a topic that a subscriber to `<base>/#` receives. Board ids and node names
    /// are checked with the same rules the configuration applies (``validateBoardID(_:)``),
    /// so a hostile publisher cannot smuggle markup or control characters in an id.
    public static func parsePublished(_ topic: String, base: String) throws(PublishedTopicError) -> PublishedTopic {
        let prefix = base + "/"
        guard topic.hasPrefix(prefix) else { throw .outsideBase(topic) }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        guard let first = levels.first else { throw .unknown(topic) }
        if first == bridgeLevel {
            // The bridges' subscription probes (`<base>/bridge/set/probe`, see
            // `SubscriptionProbe`): a command topic, not a node's.
            if levels.count == 3, levels[1] == "set", !["state", "info", "health"].contains(levels[2]) {
                return .input
            }
            guard levels.count >= 3 else {
                if levels.count == 2, levels[1] == "set" { return .input }
                if levels.count == 2, levels[1] == "response" { return .input }
                throw .unknown(topic)
            }
            let node = levels[1]
            do { try validateName(node, role: "node") } catch { throw .badNode(error.description) }
            switch (levels[2], levels.count) {
            case ("state", 3): return .bridgeState(node: node)
            case ("info", 3): return .bridgeInfo(node: node)
            case ("health", 3): return .bridgeHealth(node: node)
            case ("response", 4...): return .bridgeResponse(node: node, op: levels[3...].joined(separator: "/"))
            case ("request", _): return .input
            // The hall's broadcast alerts (orphan boards), not a bridge's topics.
            case ("broadcast", 4...): return .input
            default: throw .unknown(topic)
            }
        }
        do { try validateBoardID(first) } catch { throw .badBoardID(error.description) }
        switch levels.count {
        case 1: return .board(first, .state)
        case 2:
            if levels[1] == "set" { return .boardCommand(first) }
            guard !levels[1].isEmpty, let kind = BoardTopicKind(rawValue: levels[1]) else { throw .unknown(topic) }
            return .board(first, kind)
        case 3 where levels[1] == "set": return .boardCommand(first)
        default: throw .unknown(topic)
        }
    }
}
