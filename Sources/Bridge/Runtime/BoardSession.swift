import Adapters
public import BoardKit
import Chess
public import Config
public import Contract
import FoundationEssentials
import JSON
public import Kernel
public import Logging
import MainLoop

/// One board, end to end: its transport's events go through the game kernel
/// (``GameSession``: tracker, sync gate, clock) and come out as MQTT messages; commands
/// from MQTT reach the kernel or, through the transport's paced writer, the board.
/// The game is persisted after every move and clock change and restored on start.
///
/// Main-actor isolated: the bridge's one event loop drives it. A failure (a bad command,
/// an unwritable state file) stays inside this board's session.
@MainActor
public final class BoardSession {
    /// The board's configuration.
    public let board: ConfiguredBoard
    /// The link to the board.
    public let transport: any BoardTransport
    /// The kernel state (game, clock, sync gate).
    public internal(set) var core: GameSession
    /// The board's battery as last reported.
    public private(set) var battery: (percent: Int, charging: Bool?)?
    /// The serial number and firmware version the board reported (a DGT e-Board at connect).
    public private(set) var identity: (serialNumber: String?, version: String?) = (nil, nil)
    /// Called when ``identity`` changed (the owner re-publishes info and discovery).
    public var identityObserver: (@MainActor () -> Void)?
    /// Reconnect details for the connection topic, set by the owner of the transport.
    public var connectionDetail = ConnectionDetail()
    /// Why the link was last recycled (``HealthMonitor/stalledReason``), for the connection topic.
    public var connectionReason: String?
    /// Sees the kernel's outputs of every board event first (``HealthMonitor`` counts
    /// frames with them).
    public var outputObserver: (@MainActor ([SessionOutput]) -> Void)?
    /// Called with every `connection` state this session publishes (the health report
    /// follows connection changes at once).
    public var connectionObserver: (@MainActor (String) -> Void)?

    /// What the board's family can do (its variant is only known once the board is seen).
    public let capabilities: BoardCapabilities
    /// Whether the board keeps a game of its own that this session continues: a game in
    /// progress was restored (its transport should resume the board's session, not start
    /// the board's game afresh).
    public let resumesBoardGame: Bool
    let builder: MessageBuilder
    let publisher: any MessagePublishing
    let store: StateWriter?
    let clock: SessionClock
    let logger: Logger
    var timer: LoopTimer?
    /// The time last handed to the kernel (``kernelTime(receivedAt:)``).
    var latestKernelTime = -Double.infinity
    /// The deadline `timer` is armed for.
    var armedDeadline: Double?
    var eventTask: Task<Void, Never>?
    var lastMove: BoardStatePayload.LastMove?
    /// Missed moves the tracker reported, for the `out_of_sync` event that follows.
    var missedMoves: MissedMoves?
    var indicatedAlert = false
    /// Whether an `out_of_sync` event was published and no `in_sync` since: `in_sync` is
    /// published only then, not after every move that brings the board back from a piece
    /// in the hand.
    var reportedOutOfSync = false
    var isReady = false
    /// Why the board refused its protocol unlock on this link (``BoardEvent/handshakeFailed(reason:)``).
    var handshakeProblem: String?
    /// The board's own game still has to be set to the kernel's (a new game or position
    /// while the board was not ready).
    var boardGamePending = false
    /// The position (FEN) a refereed board holds as far as the session knows: the last it
    /// was given or, after a report the kernel took, the game's; `nil` on a new link.
    var boardPosition: String?
    let batteryInterval: Double
    var batteryTimer: LoopTimer?
    /// Alerts for the arbiter before anyone asks (a clock paused or a board out of sync too
    /// long, a result the position does not support).
    var arbiterWatch: ArbiterWatch
    /// The tags a Certabo board learned, kept in the state directory (`nil` for other families).
    var calibration: BoardCalibrationKeeper?
    /// The corrections this session made, the newest (``BoardCorrections``).
    var corrections: BoardCorrections
    var correctionLimiter = RefusalLimiter(burst: BoardSession.correctionBurst, perSecond: BoardSession.correctionRate)

    /// A session for `board` over `transport`, restoring its game from `store` when one
    /// was persisted. `game` supplies the desync grace and promotion default.
    public init(
        board: ConfiguredBoard, transport: any BoardTransport, game: GameConfiguration,
        builder: MessageBuilder, publisher: any MessagePublishing, store: StateWriter?, clock: SessionClock,
        logger: Logger
    ) {
        self.board = board
        self.transport = transport
        self.builder = builder
        self.publisher = publisher
        self.store = store
        self.clock = clock
        self.logger = logger.labelled(board.id)
        let adapter = try? AdapterFactory.makeAdapter(for: board.family, options: AdapterOptions(advertisedName: nil))
        capabilities = adapter?.capabilities ?? [.occupancySensing]
        var options = TrackerOptions(
            desyncGrace: game.desyncGrace, promotionDefault: game.promotionDefault.pieceKind,
            maxTakebackPlies: game.maxTakebackPlies, orientation: board.orientation)
        if capabilities.contains(.refereedMoves) {
            // A refereed board waits for the verdict and names no promotion piece afterwards;
            // it speaks the game's squares.
            options.promotionPickWait = 0
            options.orientation = .whiteNear
        }
        batteryInterval = game.batteryInterval
        arbiterWatch = ArbiterWatch(limits: game.arbiterLimits)
        corrections = Self.restoreCorrections(board.id, from: store, logger: self.logger)
        let now = clock.now()
        let fresh = GameSession(
            game: Game(tags: GameCommand.Tags().pgnTags(over: board.tags)),
            timeControl: board.timeControl ?? .unlimited,
            inputPath: TrackerInputPath(capabilities: capabilities), options: options)
        let restored = store?.restoreSession(board.id, rebuildingOnto: fresh.snapshot(at: now))
        // A board that keeps its own game (ChessUp) resumes it when a game was in progress.
        resumesBoardGame =
            capabilities.contains(.ownGame)
            && restored.map { !$0.game.moves.isEmpty || $0.game.startPosition != .starting } ?? false
        if let restored {
            let session = GameSession(restoring: restored, at: now)
            core = session
            self.logger.notice(
                "restored game", [("ply", String(session.game.moves.count)), ("fen", session.position.fen)])
        } else {
            core = fresh
            // Saved now, so the journal has its base: the first move is then one appended
            // line like every other, not a whole snapshot written on the move's path.
            persist()
        }
        // Boards that ask for their state when stuck out of sync (occupancy boards) follow
        // `game.resync_*`.
        if core.resync.isEnabled { core.resync = game.resync }
        // A ChessUp's reports are confirmed by its own game where a notification may be lost.
        if capabilities.contains(.ownGame) { core.reportCheck = .standard }
        if let last = core.game.moves.last {
            lastMove = .init(uci: last.move.uci, san: last.san)
        }
    }

    /// Starts consuming the transport's events.
    public func start() {
        if let direct = transport as? any BoardEventDelivering {
            // Straight from the transport on the main actor: no stream, no thread hop
            // (registering again only replaces the same handler).
            // The loop's wake-up is when the frame behind the event was known to be there; its
            // reader may know when it reached the kernel.
            direct.deliverEvents { [weak self] event in
                self?.handle(event, arrivedAt: MainLoop.wokeAt, receivedAt: MainLoop.inputReceivedAt)
            }
            startBatteryTimer()
            return
        }
        guard eventTask == nil else { return }
        startBatteryTimer()
        let events = transport.events
        eventTask = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.handle(event)
            }
        }
    }

    /// Stops consuming events and timers (the transport is closed by its owner).
    public func stop() {
        eventTask?.cancel()
        eventTask = nil
        (transport as? any BoardEventDelivering)?.deliverEvents(to: nil)
        timer?.cancel()
        timer = nil
        batteryTimer?.cancel()
        batteryTimer = nil
        armedDeadline = nil
        persist()
    }

    // MARK: Board → MQTT

    /// Feeds one event from the board (normally called by the event loop of ``start()``):
    /// the kernel classifies it, once, and everything this session does follows from the
    /// kernel's outputs (``apply(_:)``). `arrivedAt`: when the loop woke for the input behind
    /// the event, if known; the moves it completes are published with it as their origin
    /// (the bridge's own handling time, ``MoveHandlingLatency``). `receivedAt`: when that
    /// input reached the kernel, if known: the event is timed then (``kernelTime(receivedAt:)``).
    public func handle(
        _ event: BoardEvent, arrivedAt: ContinuousClock.Instant? = nil, receivedAt: ContinuousClock.Instant? = nil
    ) {
        guard let event = isRefereed ? squares(of: event) : event else { return }
        let outputs = core.handle(event, at: kernelTime(receivedAt: receivedAt))
        outputObserver?(outputs)
        if isRefereed, case .moveReported(let reported) = event { judge(reported, by: outputs) }
        apply(outputs, arrivedAt: arrivedAt)
    }

    /// Lets time pass (grace periods, pending moves, flag fall).
    public func tick() {
        apply(core.tick(at: kernelTime()))
    }

    /// The time to hand the kernel for an input that reached the kernel at `receivedAt`
    /// (``MainLoop/inputReceivedAt``; now when `nil`): the clock's now less the time the
    /// input waited to be handled, so that a frame queued behind another board's long
    /// handler is timed when it came (its move's time, the clock it charges, a gap's
    /// duration); not earlier than the time handed to the kernel before (a command or a
    /// tick handled meanwhile) unless the clock itself went back (set back by NTP: the
    /// kernel follows the clock, as it always did, rather than wait for it to catch up).
    func kernelTime(receivedAt: ContinuousClock.Instant? = nil) -> TimeInterval {
        let now = clock.now()
        var time = now
        if let receivedAt {
            time -= max(.zero, ContinuousClock.now - receivedAt).inSeconds
            time = max(time, min(latestKernelTime, now))
        }
        latestKernelTime = time
        return time
    }

    /// Publishes everything retained about this board: availability, state, connection, PGN
    /// and corrections. Called on start and after every (re)connection to the broker.
    public func publishRetained() {
        publisher.publish(builder.availability(board: board.id, online: transport.state == .connected))
        publishConnection()
        publishState()
        publisher.publish(builder.pgn(board: board.id, text: core.game.pgn))
        publisher.publish(builder.corrections(corrections))
    }

    /// The transport changed state (connecting, reconnecting, …): publish it.
    public func transportStateChanged() {
        if transport.state != .connected {
            isReady = false
            handshakeProblem = nil
        }
        publishConnection()
        publishState()
    }

    /// Publishes, saves and schedules what `outputs` call for; `arrivedAt`: when the input
    /// they answer reached the process (``handle(_:arrivedAt:)``), the origin of the moves.
    func apply(_ outputs: [SessionOutput], arrivedAt: ContinuousClock.Instant? = nil) {
        guard !outputs.isEmpty else {
            watchForArbiter(outputs)
            scheduleTick()
            return
        }
        // Saved before anything is published: a move the world has seen is always in the
        // saved game, so a crash right after publishing cannot lose it (and a restarted
        // bridge does not find it again and publish it twice). The change is in the kernel at
        // once; its flush to disk runs in the background, handed over after publishing (see
        // `StateWriter`).
        // A set-up wait begun, advanced or ended is saved too, although no output marks it.
        let persisted = outputs.contains(where: \.changesSavedState) || core.tracker.change.needsSnapshot
        if persisted { persist(deferringSync: true) }
        var changedGame = false
        // What only says something of the board's link or identity changes no state topic.
        var changedState = false
        for output in outputs {
            switch output {
            case .board(let report):
                changedState = act(on: report) || changedState
            case .tracker(let tracked):
                changedGame = publish(tracked, arrivedAt: arrivedAt) || changedGame
                changedState = true
            case .clock(let update):
                publishClock(update)
                changedState = true
            case .alert(let squares):
                publishEvent(.alert(reason: "out_of_sync", squares: squares))
                indicate(squares)
                changedState = true
            case .command(let command):
                logger.info(
                    "asking the board for its state", [("command", "\(command)"), ("sync", "\(core.syncState)")])
                transport.send(command)
                changedState = true
            case .batteryLow(let percent):
                publishEvent(.batteryLow(percent: percent))
                changedState = true
            }
        }
        if changedState { publishState() }
        if changedGame { publisher.publish(builder.pgn(board: board.id, text: core.game.pgn)) }
        if persisted { store?.startDeferredSyncs() }
        keepBoardOnGame()
        watchForArbiter(outputs)
        scheduleTick()
    }

    /// Acts on what an event said of the board itself: its link (connection and
    /// availability topics), battery, identity, buttons. Returns whether the state topic
    /// must follow (the battery, readiness, a handshake refused).
    private func act(on report: BoardReport) -> Bool {
        switch report {
        case .connected, .disconnected:
            isReady = false
            handshakeProblem = nil
            boardPosition = nil
            publishConnection()
            publisher.publish(builder.availability(board: board.id, online: transport.state == .connected))
            return false
        case .ready:
            isReady = transport.state == .connected
            handshakeProblem = nil
            // A board ready (again: a refereed board found to speak another dialect) holds
            // no position it was given.
            boardPosition = nil
            logger.info("board ready")
            publishConnection()
            if isReady {
                if boardGamePending { _ = loadBoardGame() }
                requestBattery()
            }
            return true
        case .handshakeFailed(let reason):
            guard handshakeProblem != reason else { return false }
            handshakeProblem = reason
            logger.warning("board handshake failed: moves are not tracked", [("reason", reason)])
            publishConnection()
            return true
        case .battery(let percent, let charging):
            battery = (percent, charging)
            return true
        case .button(let button):
            publishEvent(.button(name: button.name))
        case .serialNumber(let number) where number != identity.serialNumber:
            identity.serialNumber = number
            identityObserver?()
        case .version(let version) where version != identity.version:
            identity.version = version
            identityObserver?()
        case .unhandled(let bytes):
            logger.debug("unhandled frame", [("bytes", bytes.map { String($0, radix: 16) }.joined(separator: " "))])
        case .calibration(let progress):
            if let event = calibration?.take(progress) { publishEvent(event) }
        case .serialNumber, .version:
            break
        }
        return false
    }

    /// Publishes the alerts the session's state now calls for (``ArbiterWatch``).
    func watchForArbiter(_ outputs: [SessionOutput]) {
        for alert in arbiterWatch.observe(core, outputs: outputs, at: clock.now()) {
            publishEvent(.alert(reason: alert.reason, squares: [], detail: alert.detail))
            logger.notice("arbiter alert", [("reason", alert.reason), ("detail", alert.detail)])
        }
    }
}
