public import BoardKit
public import Chess
public import FoundationEssentials
public import Kernel

// The contract's payloads built from the kernel's values: pure functions, so that the
// board session only moves values from the kernel to the publisher.

extension GameCommand.Tags {
    /// The six tags the state and `game_start` publish, from a game's PGN tags.
    public init(published tags: PGNTags) {
        self.init(
            event: tags["Event"], site: tags["Site"], round: tags["Round"], board: tags["Board"],
            white: tags["White"], black: tags["Black"])
    }

    /// The PGN tags of a new game: `base` (the board's configured tags, in name order),
    /// then the six named tags given, then the extra ones, each given tag replacing a
    /// configured one of the same name.
    public func pgnTags(over base: [String: String]) -> PGNTags {
        var tags = PGNTags()
        for (name, value) in base.sorted(by: { $0.key < $1.key }) { tags[name] = value }
        let named: [(String, String?)] = [
            ("Event", event), ("Site", site), ("Round", round), ("Board", board), ("White", white), ("Black", black),
        ]
        for (name, value) in named { if let value { tags[name] = value } }
        for tag in extra { tags[tag.name] = tag.value }
        return tags
    }
}

extension ClockPayload {
    /// The `clock` message for a kernel clock update, or `nil` for one the contract does
    /// not publish (`adjust`, `reset`). `sideToMove` names the paused side when the update
    /// names none.
    public init?(_ update: ClockUpdate, sideToMove: PieceColor) {
        let action: Action
        switch update.action {
        case .pause, .stop, .flag: action = .pause
        case .start, .resume, .switchSide: action = .resume
        case .adjust, .reset: return nil
        }
        let reason: String
        switch (update.action, update.cause) {
        case (.flag, _): reason = "flag"
        case (.stop, _): reason = "game_end"
        case (_, .gate): reason = action == .pause ? "out_of_sync" : "in_sync"
        case (_, .command): reason = "command"
        case (_, .game): reason = "move"
        }
        self.init(
            action: action, color: update.action.color ?? (action == .pause ? sideToMove : nil), white: update.white,
            black: update.black, reason: reason, timestamp: Date(timeIntervalSince1970: update.time))
    }
}

extension MovePayload {
    /// The `move` message for a move the kernel committed, with both clocks after it.
    public init(_ move: CommittedMove, clocks: ColorPair<TimeInterval>?) {
        self.init(
            uci: move.uci, san: move.san, ply: move.ply, moveNumber: move.moveNumber, color: move.color,
            fen: move.fen, whiteClock: clocks?.white, blackClock: clocks?.black,
            timestamp: Date(timeIntervalSince1970: move.timestamp), recovered: move.recovered)
        resolved = move.resolved
    }
}

extension BoardEventPayload {
    /// The `illegal_move` event for a move the kernel refused, described on `position`
    /// (the game position it was refused in).
    public static func refused(_ illegal: IllegalMove, on position: Position) -> BoardEventPayload {
        let details = IllegalMoveDetails(
            reason: illegal.reason.rawValue, from: illegal.move.from, to: illegal.move.to,
            piece: position[illegal.move.from], color: illegal.color, captures: position[illegal.move.to] != nil)
        return .illegalMove(
            uci: illegal.move.uci, squares: [illegal.move.from, illegal.move.to], fen: illegal.fen, details: details)
    }
}

/// What the board's link contributes to its retained state (the rest is the kernel's).
public struct BoardLinkFacts: Sendable {
    /// The published connection state (``ConnectionPayload/stateName(_:)``, `ready`, …).
    public var connection: String
    /// The attempt number while reconnecting.
    public var reconnectAttempt: Int?
    /// The reconnect policy's attempt limit.
    public var reconnectMaxAttempts: Int?
    /// The connected board's name as it advertises itself.
    public var model: String?
    /// The board's address on the current or last link, else the configured one.
    public var address: String?
    /// The Bluetooth adapter of the current or last link, else the configured one.
    public var adapter: String?
    /// The battery as last reported.
    public var battery: (percent: Int, charging: Bool?)?
    /// The serial number and firmware version the board reported.
    public var identity: (serialNumber: String?, version: String?)

    /// Creates the facts.
    public init(
        connection: String, reconnectAttempt: Int? = nil, reconnectMaxAttempts: Int? = nil, model: String? = nil,
        address: String? = nil, adapter: String? = nil, battery: (percent: Int, charging: Bool?)? = nil,
        identity: (serialNumber: String?, version: String?) = (nil, nil)
    ) {
        self.connection = connection
        self.reconnectAttempt = reconnectAttempt
        self.reconnectMaxAttempts = reconnectMaxAttempts
        self.model = model
        self.address = address
        self.adapter = adapter
        self.battery = battery
        self.identity = identity
    }
}

extension BoardStatePayload {
    /// The retained state of board `id` (`name`, `family`): its game from the kernel's
    /// session at `now`, its link from `link`, its last move as published.
    public init(
        board id: String, name: String, family: BoardFamily, session core: GameSession, link: BoardLinkFacts,
        lastMove: LastMove?, at now: TimeInterval
    ) {
        let position = core.position
        let sync: SyncState
        var squares: [Square] = []
        var reason: String?
        var lines: [CandidateLine]?
        switch core.syncState {
        case .inSync: sync = .inSync
        case .moveInProgress: sync = .moveInProgress
        case .outOfSync(let mismatched):
            sync = .outOfSync
            squares = mismatched
            reason = core.tracker.setUpWait?.reason
            if let gap = core.tracker.outOfSyncGap {
                reason = BoardEventPayload.missedMovesReason
                lines = gap.candidates.compactMap { CandidateLine(uci: $0, from: position) }
            }
        }
        var clockState: Clock?
        if let reading = core.physicalClock.reading, let times = core.physicalClock.remainingTimes {
            clockState = .init(
                white: times.white, black: times.black, running: core.physicalClock.runningColor,
                paused: reading.running == nil, source: .board)
        } else if let times = core.clock.remainingTimes(at: now) {
            clockState = .init(
                white: times.white, black: times.black, running: core.clock.isRunning ? core.clock.activeColor : nil,
                paused: !core.clock.isRunning)
        }
        self.init(
            board: id, name: name, family: family, model: link.model, address: link.address, adapter: link.adapter,
            serialNumber: link.identity.serialNumber, firmwareVersion: link.identity.version,
            connection: link.connection, reconnectAttempt: link.reconnectAttempt,
            reconnectMaxAttempts: link.reconnectMaxAttempts, fen: core.game.fen, turn: position.sideToMove,
            ply: core.game.moves.count, moveNumber: position.fullmoveNumber, lastMove: lastMove, sync: sync,
            syncSquares: squares, syncReason: reason, clock: clockState,
            battery: link.battery.map { .init(percent: $0.percent, charging: $0.charging) },
            tags: GameCommand.Tags(published: core.game.tags), result: core.game.result.rawValue,
            updated: Date(timeIntervalSince1970: now))
        syncLines = lines
        let inForce = core.tracker.orientation.map { $0 == .whiteNear ? "white" : "black" }
        orientation = Orientation(setting: core.tracker.options.orientation.spelling, inForce: inForce)
    }
}
