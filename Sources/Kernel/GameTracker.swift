public import BoardKit
public import Chess
public import FoundationEssentials

/// Follows one board's game from its ``BoardEvent``s: commits moves, reports the sync
/// state, takebacks, illegal moves and the end of the game. A pure value: time is passed
/// in with every call, and nothing happens between calls except what ``tick(at:)`` does
/// (call it at ``nextDeadline``).
///
/// The input path (``TrackerInputPath``) decides which events can commit a move:
/// identity snapshots, occupancy events (lift, place, occupancy snapshots) or reported
/// moves. Events of the other kinds are used for the sync state only, or ignored.
public struct GameTracker: Sendable {
    /// The path that decides moves.
    public let inputPath: TrackerInputPath
    /// The options.
    public internal(set) var options: TrackerOptions {
        didSet { change.optionsChanged = true }
    }
    /// The game so far.
    public internal(set) var game: Game {
        // In place (no `oldValue`): a move played is not a copy of the game.
        didSet { change.keep(atMost: game.moves.count) }
    }
    /// The board's sync state as last reported.
    public internal(set) var syncState: SyncState = .inSync
    /// The orientation in force: configured, detected, or `nil` while an `auto` setting
    /// has not seen enough yet (squares are then taken as White near).
    public internal(set) var orientation: BoardOrientation? {
        didSet {
            guard orientation != oldValue else { return }
            if orientation == nil { change.needsSnapshot = true } else { change.orientationChanged = true }
        }
    }
    /// What the board must show before moves are tracked (after a new game or a set-up
    /// position), or `nil` when moves are tracked. Boards that report their moves
    /// themselves never wait.
    public internal(set) var setUpWait: SetUpWait? {
        didSet { if setUpWait != oldValue { change.needsSnapshot = true } }
    }
    /// What changed of the saved state since the session was last saved
    /// (``GameSession/takeChange()``).
    public internal(set) var change: SessionChange

    var analysis: PositionAnalysis
    /// The analysis of the position before the last move (for a corrected move), if known.
    var previousAnalysis: PositionAnalysis?
    var illegalCache: [MoveCandidate]?
    /// The positions before each of the last few moves, oldest first, with their placements.
    var recent: [(position: Position, board: PackedBoard)] = []
    var grace: DesyncGrace
    var pending: PendingCommit?
    /// The mismatch of the unexplained observation the grace is running for.
    var unexplainedMismatch: UInt64 = 0
    /// The illegal observation already alerted, so that it is alerted once.
    var alertedIllegal: IllegalKey?

    // Identity path.
    /// The last frame as the board sent it (physical coordinates).
    var lastPhysical: PackedBoard?
    /// The last frame in game coordinates.
    var lastFrame: PackedBoard?
    /// A placement the host took back: showing it again is not the move again.
    var suppressed: PackedBoard?

    // Occupancy path (the reported path keeps occupancy for its sync state too).
    var observed: UInt64?
    var touched: UInt64 = 0
    var touchedSincePending: UInt64 = 0
    var lastPlaced: Square?
    var pick: PieceKind?

    // Reported path.
    var reportedMismatch: UInt64 = 0
    /// When reports wait for the board's own game to confirm them (off unless set).
    public var reportCheck = ReportCheck.off
    /// The reports waiting for the board's state.
    var hold = ReportHold()
    /// Whether the board's state frames carry its side to move and move number
    /// (``BoardEvent/gameState(_:sideToMove:fullmoveNumber:)``): they, not the plain
    /// snapshot that follows, decide held reports.
    var boardGameCarriesPlies = false
    /// Whether the board streams what its sensors see (``BoardEvent/occupancy(_:)``) on this
    /// link: its state frames' `pieces` are then its own game, not the squares, and no
    /// longer feed the sync state.
    var sensesOccupancy = false

    /// Whether the board may show moves made while nobody watched (after a new link, or a
    /// restore): an unexplained board is then searched for them (``GapSearch``) until the
    /// board is explained.
    var catchingUp = true
    /// The report for a gap searched in vain, given when the board goes out of sync.
    var gapMissed: MissedMoves?
    /// What the board showed since the gap that no line read: a line taken for the gap
    /// later must pass through all of it.
    var gapObservations = GapObservations()
    /// Every history an ambiguous gap may have had, followed through the play after it
    /// (``GapHistories``), or `nil`.
    var gapHistories: GapHistories?
    /// When the board last showed something (a state, a square, a move).
    var lastBoardSeen: TimeInterval?
    /// When the board last showed something before the link dropped: every move made
    /// while nobody watched was made after it (``gapPlies(within:at:)``). `nil` after a
    /// restore (the bridge was down: nothing says since when).
    var gapSince: TimeInterval?
    /// Whether the gap being caught up was reported as missed moves already.
    var gapReported = false
    /// The missed moves reported last, while the board has not come back to the game: what
    /// an arbiter resolves (``resolve(_:fromPly:at:)``). Cleared when the board is in sync
    /// again, and by every change of the game from outside.
    public internal(set) var openGap: MissedMoves?
    /// The placement the board's last full state frame showed, on the reported-moves path
    /// (in game coordinates), for checking a resolution against what the board senses.
    var sensedPlacement: PackedBoard?
    /// Whether the board being judged is the first one seen after a gap: a move it shows
    /// was made while nobody watched.
    var judgingGap = false
    /// Undos the board announced whose state frame has not come yet (``observeUndo(at:)``).
    var announcedUndos = 0
    /// Whether the `pieces` of the state frame that showed an undo are still to come.
    var undoPiecesPending = false

    /// A tracker for `game`, reading events the way `inputPath` says. `orientation` is
    /// one detected earlier (restored state); a fixed setting in `options` wins over it.
    /// `setUpWait` is a wait for the board's set-up that was under way (restored state).
    public init(
        game: Game, inputPath: TrackerInputPath, options: TrackerOptions = TrackerOptions(),
        orientation: BoardOrientation? = nil, setUpWait: SetUpWait? = nil
    ) {
        self.inputPath = inputPath
        self.options = options
        self.game = game
        change = SessionChange(keptPlies: game.moves.count)
        self.orientation = options.orientation.fixed ?? orientation
        self.setUpWait = inputPath == .reportedMoves ? nil : setUpWait
        grace = DesyncGrace(duration: options.desyncGrace)
        analysis = PositionAnalysis(game.position, gameOver: game.result != .ongoing)
        rebuildRecent()
    }

    /// A tracker for a new game from `startPosition`, reading events as `capabilities` say.
    public init(
        startPosition: Position = .starting, capabilities: BoardCapabilities, options: TrackerOptions = TrackerOptions()
    ) {
        self.init(
            game: Game(startPosition: startPosition), inputPath: TrackerInputPath(capabilities: capabilities),
            options: options)
    }

    /// Whether an unexplained difference is waiting out its grace period.
    var isWaitingForGrace: Bool { grace.since != nil && !syncState.isOutOfSync }

    /// The position of the game now.
    public var position: Position { game.position }

    /// Whether the game has ended (moves are no longer committed).
    public var isGameOver: Bool { game.result != .ongoing }

    /// When ``tick(at:)`` has something to do (a grace period or a pending commit
    /// expiring), or `nil`.
    public var nextDeadline: TimeInterval? {
        let graceDeadline = syncState.isOutOfSync ? nil : grace.deadline
        return [pending?.deadline, graceDeadline, stateRetryDeadline].compactMap { $0 }.min()
    }

    /// Feeds one board event observed at `time`; returns what happened, in order.
    public mutating func handle(_ event: BoardEvent, at time: TimeInterval) -> [TrackerOutput] {
        var outputs: [TrackerOutput] = []
        defer { if event.showsTheBoard { lastBoardSeen = time } }
        switch event {
        case .pieces(let snapshot):
            switch inputPath {
            case .identity: observeIdentity(PackedBoard(snapshot), at: time, into: &outputs)
            case .reportedMoves where decidesByState && !boardGameCarriesPlies:
                reconcileReports(with: (orientation ?? .whiteNear).map(snapshot), at: time, into: &outputs)
            case .reportedMoves where undoPiecesPending:
                // The pieces of the state frame that showed an undo: the board's own game,
                // not what stands on the squares (the pieces are put back later).
                undoPiecesPending = false
            case .reportedMoves where sensesOccupancy:
                // The board's own game; its sensors tell what stands on the squares.
                break
            case .occupancy, .reportedMoves:
                observeOccupancy(map(snapshot.occupancy).bits, at: time, into: &outputs)
            }
        case .gameState(let snapshot, let side, let fullmove):
            guard inputPath == .reportedMoves else { break }
            boardGameCarriesPlies = true
            let mapped = (orientation ?? .whiteNear).map(snapshot)
            if takeBackToBoard(mapped, side: side, fullmove: fullmove, at: time, into: &outputs) { break }
            guard decidesByState else { break }
            let plies = pliesAhead(side, fullmove)
            reconcileReports(
                with: (orientation ?? .whiteNear).map(snapshot), plies: plies, at: time, into: &outputs)
        case .occupancy(let map):
            guard inputPath != .identity else { break }
            if inputPath == .reportedMoves { sensesOccupancy = true }
            observeOccupancy(self.map(map).bits, at: time, into: &outputs)
        case .pieceLifted(let square):
            guard inputPath != .identity else { break }
            observeLift(map(square), at: time, into: &outputs)
        case .piecePlaced(let square, let piece):
            guard inputPath != .identity else { break }
            observePlace(map(square), piece: piece, at: time, into: &outputs)
        case .promotionPicked(let kind):
            observePick(kind, at: time, into: &outputs)
        case .moveReported(let move):
            guard inputPath == .reportedMoves else { break }
            observeReport(map(move), at: time, into: &outputs)
        case .connected:
            if options.orientation == .auto { orientation = nil }
            observed = nil
            touched = 0
            lastFrame = nil
            lastPhysical = nil
            sensedPlacement = nil
            announcedUndos = 0
            undoPiecesPending = false
            sensesOccupancy = false
            catchingUp = true
            gapHistories?.relinked = true
        case .disconnected:
            touched = 0
            lastPlaced = nil
            gapSince = lastBoardSeen
        case .button(.undo):
            observeUndo(at: time)
        case .ready, .handshakeFailed, .battery, .button, .version, .serialNumber, .clock, .calibration, .raw,
            .positionConfirmed:
            break
        }
        return outputs
    }

    /// Lets time pass to `time`: commits a pending move whose wait is over and turns an
    /// unexplained difference whose grace is over into ``SyncState/outOfSync(mismatched:)``.
    public mutating func tick(at time: TimeInterval) -> [TrackerOutput] {
        var outputs: [TrackerOutput] = []
        retryStateRequest(at: time)
        if let pending, time >= pending.deadline {
            self.pending = nil
            commit(pending.move, at: pending.time, into: &outputs)
            afterPendingCommit(pending.move)
            reclassify(at: time, into: &outputs)
        }
        if !syncState.isOutOfSync, grace.isExpired(at: time) {
            reportGapBeforeOutOfSync(into: &outputs)
            setSync(.outOfSync(mismatched: unexplainedMismatch.squares), into: &outputs)
        }
        return outputs
    }

    // MARK: Commands

    /// Replaces the game (a new game, or a set-up position) and judges the board against
    /// it. Unless `awaitingSetUp` is `false` (or the board reports its moves itself), moves
    /// are tracked only once the board shows the game's start position (``setUpWait``);
    /// until then the board is out of sync. The sync state is reported afresh even when it
    /// did not change, so that a consumer hears what it means for the new game.
    public mutating func newGame(_ game: Game, awaitingSetUp: Bool = true, at time: TimeInterval) -> [TrackerOutput] {
        self.game = game
        change.needsSnapshot = true
        resetForNewPosition()
        rebuildRecent()
        setUpWait = awaitingSetUp && inputPath != .reportedMoves ? SetUpWait(for: game.startPosition) : nil
        catchingUp = false
        var outputs: [TrackerOutput] = []
        reclassify(at: time, into: &outputs)
        if !outputs.contains(where: { if case .syncChanged = $0 { true } else { false } }) {
            outputs.append(.syncChanged(syncState))
        }
        return outputs
    }

    /// Starts a new game from `fen`, keeping the tags (see ``newGame(_:awaitingSetUp:at:)``).
    public mutating func setPosition(fen: String, at time: TimeInterval) throws(FENError) -> [TrackerOutput] {
        let position = try Position(fen: fen)
        var newGame = Game(startPosition: position)
        newGame.tags = game.tags
        return self.newGame(newGame, at: time)
    }

    /// Takes back the last `plies` moves (a host command). The board then still shows the
    /// later position; showing it is not taken as the same move played again.
    public mutating func takeBack(plies: Int = 1, at time: TimeInterval) -> [TrackerOutput] {
        var outputs: [TrackerOutput] = []
        guard plies > 0, !game.moves.isEmpty else { return outputs }
        let shown = analysis.board
        performTakeback(plies: plies, into: &outputs)
        suppressed = shown
        touched = 0
        reclassify(at: time, into: &outputs)
        return outputs
    }

    /// Ends the game with `end` (resignation, agreement, time forfeit, adjudication).
    public mutating func endGame(_ end: GameEnd) -> [TrackerOutput] {
        guard end.result != .ongoing else { return [] }
        game.result = end.result
        pending = nil
        analysis = PositionAnalysis(game.position, gameOver: true)
        illegalCache = nil
        return [.gameEnded(end)]
    }

    /// Records the mover's remaining clock time for the move at `ply` (1-based, as in
    /// ``CommittedMove/ply``); ignored when out of range.
    public mutating func setClock(_ clock: TimeInterval?, forPly ply: Int) {
        change.keep(atMost: ply - 1)
        game.setClock(clock, forPly: ply - 1)
    }

    /// Changes the options (the input path stays). An orientation change applies to
    /// the next event.
    public mutating func update(options: TrackerOptions) {
        self.options = options
        grace.duration = options.desyncGrace
        if let fixed = options.orientation.fixed { orientation = fixed }
        rebuildRecent()
    }
}
