import Contract
public import JSON

/// One board as the hall sees it: the latest of each of its topics, bounded.
public struct HallBoard: Equatable, Sendable {
    /// The board id (valid per ``Topics/validateBoardID(_:)``).
    public let id: String
    /// The bridge host serving it (from that node's `info`), when known.
    public var node: String?
    /// The last full state (`<base>/<board>`), bounded (``HallModel/bound(_:)``).
    public var state: JSONObject?
    /// `online` / `offline` (`…/availability`).
    public var availability: String?
    /// The last `…/connection` payload.
    public var connection: JSONValue?
    /// The PGN text (`…/pgn`), at most ``HallModel/pgnLimit`` bytes.
    public var pgn: String?
    /// An illegal move (or other alert) waiting for the arbiter: stays until acknowledged or
    /// until play goes on (a move, a new game).
    public var alert: JSONValue?
    /// The latest events, newest last, at most ``HallModel/eventLimit``.
    public var events: [JSONValue] = []
    /// When the clock values in ``state`` were true (ms since 1970, hall clock).
    public var clockReference: Double?
    /// The sequence number of the last change.
    public var sequence: UInt64 = 0

    /// A board seen for the first time.
    public init(id: String) {
        self.id = id
    }

    /// Whether an arbiter should look at it: out of sync, an alert, the link not ready,
    /// battery low (or the host offline, which the model adds).
    public func needsAttention(hostOffline: Bool) -> Bool {
        hostOffline || alert != nil || syncState == "out_of_sync" || connectionState.map { $0 != "ready" } ?? false
            || availability == "offline" || batteryLow
    }

    /// `sync.state` of the full state.
    public var syncState: String? { state?["sync"]?["state"]?.stringValue }

    /// The connection state, from `…/connection` or else the full state.
    public var connectionState: String? {
        connection?["state"]?.stringValue ?? state?["connection"]?["state"]?.stringValue
    }

    /// Battery under ``HallModel/batteryLowPercent`` and not charging.
    public var batteryLow: Bool {
        guard let battery = state?["battery"], let percent = battery["percent"]?.doubleValue else { return false }
        return percent < HallModel.batteryLowPercent && battery["charging"]?.boolValue != true
    }
}
