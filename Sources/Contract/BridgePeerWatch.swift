public import JSON

/// A clash between this bridge and another one publishing under the same base topic:
/// both claim a board id, or both run as the same node.
public enum BridgeConflict: Hashable, Sendable, CustomStringConvertible {
    /// Another node's retained info lists boards this bridge bridges too (sorted ids).
    case sharedBoards(node: String, boards: [String])
    /// Another live bridge (another instance id) publishes as this bridge's own node.
    case sameNode(instance: String)

    /// The `problems` entry of `<base>/bridge/<node>/info`.
    public var json: JSONValue {
        switch self {
        case .sharedBoards(let node, let boards):
            [
                "problem": "duplicate_board", "node": .string(node),
                "boards": .array(boards.map { .string($0) }),
            ]
        case .sameNode(let instance):
            ["problem": "duplicate_node", "instance": .string(instance)]
        }
    }

    /// One line for the log.
    public var description: String {
        switch self {
        case .sharedBoards(let node, let boards):
            "node \"\(node)\" also bridges \(boards.joined(separator: ", "))"
        case .sameNode(let instance):
            "another bridge (instance \(instance)) runs as this node"
        }
    }
}

/// Watches every bridge's retained `<base>/bridge/+/info` for clashes with this one.
///
/// Board ids are unique per deployment and nodes per host; two bridges that break that
/// would silently share topics. This type compares each other node's board list with
/// this bridge's own, and tells a second live bridge on this node from this bridge's own
/// earlier run (whose retained info is still on the broker after a crash) by the
/// per-start `instance` and `started` time in the info: an info of this node with another
/// instance is a conflict when it started later than this one (a predecessor cannot) or
/// when its `problems` name this instance (the other one saw this one first).
/// Pure: the bridge feeds it messages and publishes its info again when the set changes.
public struct BridgePeerWatch: Sendable {
    /// This bridge's node.
    public let node: String
    /// This bridge's instance id (new on every start).
    public let instance: String
    /// When this instance started, ISO 8601 UTC with milliseconds (fixed width, so
    /// comparing the strings compares the times).
    public let started: String
    private var ownBoards: Set<String>
    private let infoPrefix: String
    /// `<base>-peers/bridge/`: where a room broker brings other rooms' info in (see
    /// ``subscriptions``).
    private let peersPrefix: String
    private static let infoSuffix = "/info"
    /// Other nodes' board ids, as their last info listed them.
    private var peerBoards: [String: Set<String>] = [:]
    private var sameNode: Set<String> = []
    /// At most this many other nodes are remembered (memory stays bounded).
    public static let maximumPeers = 4096

    /// A watch for the bridge of `topics`, bridging `boards`.
    public init(topics: Topics, instance: String, started: String, boards: some Sequence<String>) {
        node = topics.node
        self.instance = instance
        self.started = started
        ownBoards = Set(boards)
        infoPrefix = topics.base + "/" + Topics.bridgeLevel + "/"
        peersPrefix = topics.base + "-peers/" + Topics.bridgeLevel + "/"
    }

    /// The filters to subscribe to: every node's info on this broker, and as a room broker
    /// bridged to a central one brings it in: remapped to `<base>-peers/bridge/<node>/info`,
    /// outside the base topic, so that it never matches the room's `<base>/#` out pattern
    /// and travels back (a retained info echoed that way can overwrite a newer one).
    public var subscriptions: [String] {
        [infoPrefix + "+" + Self.infoSuffix, peersPrefix + "+" + Self.infoSuffix]
    }

    /// Every conflict now known, in a stable order (shared boards by node, then nodes).
    public var conflicts: [BridgeConflict] {
        peerBoards.keys.sorted().compactMap { peer -> BridgeConflict? in
            let common = peerBoards[peer, default: []].intersection(ownBoards).sorted()
            return common.isEmpty ? nil : .sharedBoards(node: peer, boards: common)
        } + sameNode.sorted().map { .sameNode(instance: $0) }
    }

    /// The other node whose last info lists `board`, if any (the first by name when
    /// several do). A command for a board this bridge does not have but another node
    /// does is that node's to answer: on one broker shared by several hosts (a cluster,
    /// or a central broker without room brokers) every bridge receives it.
    public func owner(of board: String) -> String? {
        peerBoards.keys.sorted().first { peerBoards[$0]?.contains(board) == true }
    }

    /// Whether `topic` is the info topic of another node this watch has no board list of
    /// (a bridge not seen before, or one whose info was cleared).
    public func isUnknownPeer(_ topic: String) -> Bool {
        guard let peer = peerNode(topic), peer != node else { return false }
        return peerBoards[peer] == nil
    }

    /// Whether `topic` is some node's info topic (the bridge hands those to ``receive(topic:payload:)``).
    public func isInfoTopic(_ topic: String) -> Bool { peerNode(topic) != nil }

    /// The boards of this bridge changed (a discovered board was adopted); returns the
    /// conflicts that started.
    @discardableResult
    public mutating func setOwnBoards(_ boards: some Sequence<String>) -> [BridgeConflict] {
        let before = Set(conflicts)
        ownBoards = Set(boards)
        return conflicts.filter { !before.contains($0) }
    }

    /// Takes one retained info message; returns the conflicts it started (empty when
    /// none is new). An empty payload (the info was cleared) or one this watch cannot read
    /// forgets what that node said.
    @discardableResult
    public mutating func receive(topic: String, payload: [UInt8]) -> [BridgeConflict] {
        guard let peer = peerNode(topic) else { return [] }
        let before = Set(conflicts)
        let info = (try? JSONValue(parsing: payload, maximumDepth: 16)).flatMap(\.objectValue)
        if peer == node {
            noteOwnNode(info)
        } else {
            let theirs = Set((info?["boards"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
            if theirs.isEmpty {
                peerBoards[peer] = nil
            } else if peerBoards[peer] != nil || peerBoards.count < Self.maximumPeers {
                peerBoards[peer] = theirs
            }
        }
        return conflicts.filter { !before.contains($0) }
    }

    private mutating func noteOwnNode(_ info: JSONObject?) {
        guard let info, let other = info["instance"]?.stringValue, other != instance else { return }
        let newer = (info["started"]?.stringValue ?? "") > started
        let namesUs = (info["problems"]?.arrayValue ?? []).contains { $0["instance"]?.stringValue == instance }
        if newer || namesUs, sameNode.count < Self.maximumPeers { sameNode.insert(other) }
    }

    private func peerNode(_ topic: String) -> String? {
        guard let prefix = [infoPrefix, peersPrefix].first(where: topic.hasPrefix), topic.hasSuffix(Self.infoSuffix)
        else { return nil }
        let middle = topic.dropFirst(prefix.count).dropLast(Self.infoSuffix.count)
        guard !middle.isEmpty, !middle.contains("/") else { return nil }
        return String(middle)
    }
}

extension BridgePeerWatch {
    /// A fresh random instance id: 16 lower-case hex digits.
    public static func newInstanceID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
