import Contract
import FoundationEssentials

/// What an earlier run announced, kept in `<state_directory>/announced.json`: the board ids
/// and the Home Assistant discovery mode (`nil`: discovery was off). Older bridges wrote a
/// bare array of ids; it reads as ``legacy``, a mode nobody knows.
struct AnnouncedRecord: Codable, Equatable, Sendable {
    /// The file name in the state store.
    static let fileName = "announced"

    /// The board ids announced.
    var boards: [String]
    /// The discovery mode they were announced in, `nil` when discovery was off.
    var discovery: HomeAssistantDiscovery.Mode?
    /// Read from a file of an older bridge, which did not record the mode.
    var legacy = false

    private enum CodingKeys: String, CodingKey { case boards, discovery }

    init(boards: [String], discovery: HomeAssistantDiscovery.Mode?, legacy: Bool = false) {
        self.boards = boards
        self.discovery = discovery
        self.legacy = legacy
    }

    /// Decodes either format; `nil` when the data is neither.
    static func decode(_ data: Data) -> AnnouncedRecord? {
        if let record = try? JSONDecoder().decode(AnnouncedRecord.self, from: data) { return record }
        if let ids = try? JSONDecoder().decode([String].self, from: data) {
            return AnnouncedRecord(boards: ids, discovery: nil, legacy: true)
        }
        return nil
    }
}

/// The clean-up of what an earlier run left on the broker, in the order Home Assistant needs
/// (issue #18 items 3 and 6):
///
/// 1. ``withdrawals``, right after connecting and before this run's discovery: the discovery
///    topics of boards that left the configuration, and, when the discovery mode changed,
///    the old mode's topics of every board and of the bridge (per-component and device
///    discovery name the same entities, so the old ones must go first).
/// 2. ``clears``, a moment later (``delay``): the departed boards' retained state topics.
///    Sent together with the withdrawals, they reached entities still subscribed, whose
///    templates then failed on the empty payload ("'value_json' is undefined").
/// 3. Only then the new ``record`` is written, so that a bridge stopped in between does the
///    clean-up again at its next start.
struct StartupCleanup: Sendable {
    /// Seconds between the withdrawals and the clears: Home Assistant unsubscribes the
    /// withdrawn entities meanwhile.
    static let delay: Double = 2

    /// Discovery topics to empty first.
    let withdrawals: [OutgoingMessage]
    /// Retained state topics to empty after ``delay``.
    let clears: [OutgoingMessage]
    /// What to remember once both went out.
    let record: AnnouncedRecord
    /// The boards that left the configuration.
    let departed: [String]

    init(
        previous: AnnouncedRecord?, boards: [BoardDescriptor], bridge: BridgeDescriptor,
        discovery: HomeAssistantDiscovery?, builder: MessageBuilder
    ) {
        let current = boards.map(\.id)
        departed = (previous?.boards ?? []).filter { !current.contains($0) }
        record = AnnouncedRecord(boards: current, discovery: discovery?.mode)
        clears = departed.flatMap { builder.boardRemoval(board: $0) }
        guard let discovery else {
            withdrawals = []
            return
        }
        // The mode the earlier run announced in: recorded, or (an older bridge) unknown.
        let earlier: HomeAssistantDiscovery.Mode? = previous.flatMap { $0.legacy ? nil : $0.discovery }
        var messages: [OutgoingMessage] = []
        for id in departed {
            let gone = BoardDescriptor(id: id, family: .chessnut)
            messages += discovery.switched(to: earlier ?? discovery.mode).removalMessages(for: gone, bridge: bridge)
        }
        // Per-component topics are cleared whenever they may exist and are not this run's:
        // an empty payload on a topic Home Assistant never saw is ignored. A device topic
        // only when the earlier run certainly used it: Home Assistant warns about an empty
        // one it does not know.
        let stale: HomeAssistantDiscovery.Mode?
        switch (earlier, discovery.mode, previous?.legacy ?? false) {
        case (.some(let old), let now, _) where old != now: stale = old
        case (nil, .device, true): stale = .perComponent
        default: stale = nil
        }
        if let stale {
            let old = discovery.switched(to: stale)
            messages += old.bridgeRemovalMessages(bridge)
            for board in boards {
                let all = BoardDescriptor(id: board.id, family: board.family)  // every entity's topic
                messages += old.removalMessages(for: all, bridge: bridge)
            }
        }
        withdrawals = messages
    }
}
