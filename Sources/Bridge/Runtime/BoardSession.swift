import Adapters
import BoardKit
import Chess
import Config
import Dispatch
import JSON
import Kernel
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    public private(set) var core: GameSession
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
    /// Sees every board event first (``HealthMonitor`` counts frames with it).
    public var eventObserver: (@MainActor (BoardEvent) -> Void)?
    /// Called with every `connection` state this session publishes (the health report
    /// follows connection changes at once).
    public var connectionObserver: (@MainActor (String) -> Void)?

    /// What the board's family can do (its variant is only known once the board is seen).
    public let capabilities: BoardCapabilities
    /// Whether the board keeps a game of its own that this session continues: a game in
    /// progress was restored (its transport should resume the board's session, not start
    /// the board's game afresh).
    public let resumesBoardGame: Bool
    private let builder: MessageBuilder
    private let publisher: any MessagePublishing
    private let store: StateWriter?
    private let clock: SessionClock
    private let logger: Logger
    private var timer: DispatchSourceTimer?
    /// The deadline `timer` is armed for.
    private var armedDeadline: Double?
    private var eventTask: Task<Void, Never>?
    private var lastMove: BoardStatePayload.LastMove?
    /// Missed moves the tracker reported, for the `out_of_sync` event that follows.
    private var missedMoves: MissedMoves?
    private var indicatedAlert = false
    /// Whether an `out_of_sync` event was published and no `in_sync` since: `in_sync` is
    /// published only then, not after every move that brings the board back from a piece
    /// in the hand.
    private var reportedOutOfSync = false
    /// The set-up wait as last saved: its end is saved too, although no move marks it.
    private var savedSetUpWait: SetUpWait?
    private var isReady = false
    /// Why the board refused its protocol unlock on this link (``BoardEvent/handshakeFailed(reason:)``).
    private var handshakeProblem: String?
    /// The board's own game still has to be set to the kernel's (a new game or position
    /// while the board was not ready).
    private var boardGamePending = false
    private let batteryInterval: Double
    private var batteryTimer: DispatchSourceTimer?

    /// Reconnect details published on `<base>/<board>/connection`.
    public struct ConnectionDetail: Equatable, Sendable {
        /// The policy's attempt limit.
        public var maxAttempts: Int?
        /// Seconds until the next attempt.
        public var nextDelay: Double?
        /// The last link error.
        public var lastError: String?
        /// The Bluetooth adapter of the current or last link (`hci0`).
        public var adapter: String?
        /// The address of the board on the current or last link.
        public var address: String?

        /// No details yet.
        public init(
            maxAttempts: Int? = nil, nextDelay: Double? = nil, lastError: String? = nil, adapter: String? = nil,
            address: String? = nil
        ) {
            self.maxAttempts = maxAttempts
            self.nextDelay = nextDelay
            self.lastError = lastError
            self.adapter = adapter
            self.address = address
        }
    }

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
        let options = TrackerOptions(
            desyncGrace: game.desyncGrace, promotionDefault: game.promotionDefault.pieceKind,
            maxTakebackPlies: game.maxTakebackPlies, orientation: board.orientation)
        batteryInterval = game.batteryInterval
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
        if let last = core.game.moves.last {
            lastMove = .init(uci: last.move.uci, san: last.san)
        }
        savedSetUpWait = core.tracker.setUpWait
    }

    /// Starts consuming the transport's events.
    public func start() {
        if let direct = transport as? any BoardEventDelivering {
            // Straight from the transport on the main actor: no stream, no thread hop
            // (registering again only replaces the same handler).
            direct.deliverEvents { [weak self] event in self?.handle(event) }
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

    /// Feeds one event from the board (normally called by the event loop of ``start()``).
    public func handle(_ event: BoardEvent) {
        eventObserver?(event)
        let now = clock.now()
        switch event {
        case .connected, .disconnected:
            isReady = false
            handshakeProblem = nil
            publishConnection()
            publisher.publish(builder.availability(board: board.id, online: transport.state == .connected))
        case .ready:
            isReady = transport.state == .connected
            handshakeProblem = nil
            logger.info("board ready")
            publishConnection()
            if isReady {
                if boardGamePending { _ = loadBoardGame() }
                requestBattery()
            }
        case .handshakeFailed(let reason):
            guard handshakeProblem != reason else { break }
            handshakeProblem = reason
            logger.warning("board handshake failed: moves are not tracked", [("reason", reason)])
            publishConnection()
            publishState()
        case .battery(let percent, let charging):
            battery = (percent, charging)
        case .button(let button):
            publishEvent(.button(name: button.name))
        case .serialNumber(let number) where number != identity.serialNumber:
            identity.serialNumber = number
            identityObserver?()
        case .version(let version) where version != identity.version:
            identity.version = version
            identityObserver?()
        case .raw(let bytes):
            logger.debug("unhandled frame", [("bytes", bytes.map { String($0, radix: 16) }.joined(separator: " "))])
        default:
            break
        }
        let outputs = core.handle(event, at: now)
        apply(outputs)
        switch event {
        case .battery where outputs.isEmpty: publishState()
        case .ready where outputs.isEmpty: publishState()
        default: break
        }
    }

    /// Lets time pass (grace periods, pending moves, flag fall).
    public func tick() {
        apply(core.tick(at: clock.now()))
    }

    /// Publishes everything retained about this board: availability, state, connection and
    /// PGN. Called on start and after every (re)connection to the broker.
    public func publishRetained() {
        publisher.publish(builder.availability(board: board.id, online: transport.state == .connected))
        publishConnection()
        publishState()
        publisher.publish(builder.pgn(board: board.id, text: core.game.pgn))
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

    private func apply(_ outputs: [SessionOutput]) {
        guard !outputs.isEmpty else {
            scheduleTick()
            return
        }
        // Saved before anything is published: a move the world has seen is always in the
        // saved game, so a crash right after publishing cannot lose it (and a restarted
        // bridge does not find it again and publish it twice). The change is in the kernel at
        // once; its flush to disk runs in the background, handed over after publishing (see
        // `StateWriter`).
        let persisted = outputs.contains(where: \.changesSavedState) || core.tracker.setUpWait != savedSetUpWait
        if persisted { persist(deferringSync: true) }
        var changedGame = false
        for output in outputs {
            switch output {
            case .tracker(let tracked):
                changedGame = publish(tracked) || changedGame
            case .clock(let update):
                publishClock(update)
            case .alert(let squares):
                publishEvent(.alert(reason: "out_of_sync", squares: squares))
                indicate(squares)
            case .command(let command):
                logger.info("still out of sync: asking the board for its state", [("command", "\(command)")])
                transport.send(command)
            case .batteryLow(let percent):
                publishEvent(.batteryLow(percent: percent))
            }
        }
        publishState()
        if changedGame { publisher.publish(builder.pgn(board: board.id, text: core.game.pgn)) }
        if persisted { store?.startDeferredSyncs() }
        scheduleTick()
    }

    /// Publishes one tracker output; returns whether the game record changed.
    private func publish(_ output: TrackerOutput) -> Bool {
        switch output {
        case .move(let move):
            lastMove = .init(uci: move.uci, san: move.san)
            var payload = MovePayload(move, clocks: core.publishedClocks(at: clock.now()))
            payload.clockFromBoard = core.physicalClock.reading != nil
            publisher.publish(builder.move(board: board.id, payload))
            publishEvent(.move(payload))
            logger.info("move", [("ply", String(move.ply)), ("san", move.san), ("recovered", String(move.recovered))])
            return true
        case .syncChanged(let state):
            switch state {
            case .outOfSync(let squares):
                reportedOutOfSync = true
                let missed = missedMoves
                missedMoves = nil
                publishEvent(
                    .outOfSync(
                        squares: squares, reason: missed.map { _ in "missed_moves" } ?? core.tracker.setUpWait?.reason,
                        candidates: missed?.candidates))
            case .inSync:
                if reportedOutOfSync { publishEvent(.inSync) }
                reportedOutOfSync = false
                clearAlertIndication()
            case .moveInProgress: break
            }
            return false
        case .takeback(let takeback):
            lastMove = core.game.moves.last.map { .init(uci: $0.move.uci, san: $0.san) }
            publishEvent(.takeback(plies: takeback.plies, fen: takeback.fen))
            return true
        case .illegalMove(let illegal):
            publishEvent(.refused(illegal, on: core.position))
            logger.warning("illegal move", [("uci", illegal.move.uci), ("reason", illegal.reason.rawValue)])
            return false
        case .gameEnded(let end):
            publishEvent(.gameEnd(result: end.result.rawValue, termination: end.reason.name))
            logger.notice("game over", [("result", end.result.rawValue), ("reason", end.reason.name)])
            return true
        case .missedMoves(let missed):
            missedMoves = missed
            logger.warning("moves missed while nobody watched", [("candidates", String(missed.candidates.count))])
            return false
        case .orientationDetected(let orientation):
            logger.info("orientation detected", [("orientation", orientation.rawValue)])
            return false
        case .resultClaim(let result):
            publishEvent(.resultClaim(result: result.rawValue))
            logger.notice("result claimed with the kings", [("result", result.rawValue)])
            return false
        case .newGame(let fen):
            lastMove = nil
            let control = core.clock.timeControl
            publishEvent(
                .gameStart(
                    fen: fen, game: GameCommand.Tags(published: core.game.tags),
                    timeControl: control.isTimed ? control.pgn : nil
                ))
            logger.notice("new game", [("fen", fen)])
            return true
        }
    }

    private func publishClock(_ update: ClockUpdate) {
        guard let payload = ClockPayload(update, sideToMove: core.position.sideToMove) else { return }
        publisher.publish(builder.clock(board: board.id, payload))
    }

    private func publishEvent(_ event: BoardEventPayload) {
        publisher.publish(builder.event(board: board.id, event, timestamp: date(clock.now())))
    }

    /// The published connection state: the transport's (``ConnectionPayload/stateName(_:)``),
    /// or `ready` while the link is up and the board has answered its handshake.
    /// ``ConnectionPayload/handshakeFailedState`` while the link is up but the board refused
    /// its unlock.
    public var connectionState: String {
        guard transport.state == .connected else { return ConnectionPayload.stateName(transport.state) }
        if isReady { return ConnectionPayload.readyState }
        return handshakeProblem == nil
            ? ConnectionPayload.stateName(transport.state) : ConnectionPayload.handshakeFailedState
    }

    private func publishConnection() {
        var payload = ConnectionPayload(
            transportState: transport.state, isReady: isReady, maxAttempts: connectionDetail.maxAttempts,
            nextDelay: connectionDetail.nextDelay, lastError: connectionDetail.lastError ?? transport.lastError,
            timestamp: date(clock.now()))
        payload.reason = connectionReason
        if let handshakeProblem, transport.state == .connected, !isReady {
            payload.state = ConnectionPayload.handshakeFailedState
            payload.lastError = handshakeProblem
        }
        publisher.publish(builder.connection(board: board.id, payload))
        connectionObserver?(payload.state)
    }

    /// The full retained state.
    public var statePayload: BoardStatePayload {
        var attempt: Int?
        if case .reconnecting(let value) = transport.state { attempt = value }
        let link = BoardLinkFacts(
            connection: connectionState, reconnectAttempt: attempt, reconnectMaxAttempts: connectionDetail.maxAttempts,
            model: publishedModel, address: connectionDetail.address ?? board.address,
            adapter: connectionDetail.adapter ?? board.adapter, battery: battery)
        return BoardStatePayload(
            board: board.id, name: board.name, family: board.family, session: core, link: link, lastMove: lastMove,
            at: clock.now())
    }

    /// The model the state names: the configured model or the family's name, as the bridge
    /// info and the Home Assistant device block name it (not the advertised Bluetooth name).
    private var publishedModel: String {
        BoardDescriptor(id: board.id, family: board.family, model: board.model).modelName
    }

    private func publishState() {
        publisher.publish(builder.boardState(statePayload))
    }

    // MARK: Alerts on the board

    private func indicate(_ squares: [Square]) {
        guard capabilities.contains(.perSquareLEDs), !squares.isEmpty else { return }
        transport.send(core.physical(.indicate(squares: squares, style: .alert)))
        indicatedAlert = true
    }

    private func clearAlertIndication() {
        guard indicatedAlert else { return }
        indicatedAlert = false
        transport.send(.clearIndications)
    }

    // MARK: MQTT → board and game

    /// Applies a parsed command; returns the response data, or an error message (and
    /// then nothing changed).
    public func execute(_ command: BridgeCommand) -> Result<JSONValue, CommandFailure> {
        switch command {
        case .board(let boardCommand):
            if case .custom = boardCommand, !board.allowRawCommands {
                return .failure(CommandFailure("raw commands are not enabled for board \(board.id)"))
            }
            guard transport.state == .connected else {
                return .failure(CommandFailure("board \(board.id) is not connected"))
            }
            let physical = core.physical(boardCommand)
            guard let checking = transport as? any BoardCommandChecking else {
                transport.send(physical)
                return .success(["sent": true])
            }
            guard checking.sendIfSupported(physical) else {
                let model = transport.connectedDeviceName ?? board.family.rawValue
                return .failure(
                    CommandFailure("board \(board.id) (\(model)) cannot do that: \(Self.name(of: boardCommand))"))
            }
            return .success(["sent": true])
        case .game(let gameCommand):
            return execute(gameCommand)
        }
    }

    /// The command's name as the command topic spells it.
    private static func name(of command: BoardCommand) -> String {
        switch command {
        case .indicate, .clearIndications: "leds"
        case .executeMove: "move"
        case .custom: "raw"
        case .startSession, .loadPosition: "session"
        case .requestState, .requestBattery: "request"
        }
    }

    private func execute(_ command: GameCommand) -> Result<JSONValue, CommandFailure> {
        let now = clock.now()
        switch command {
        case .newGame(let newGame):
            apply(
                core.newGame(
                    tags: newGame.tags.pgnTags(over: board.tags), timeControl: newGame.timeControl,
                    start: newGame.position ?? .starting, at: now))
        case .setPosition(let position):
            apply(core.setPosition(position, at: now))
        case .takeback(let plies):
            guard plies <= core.game.moves.count else {
                return .failure(
                    CommandFailure("cannot take back \(plies) plies: the game has \(core.game.moves.count)"))
            }
            apply(core.takeBack(plies: plies, at: now))
        case .pauseClock:
            apply(core.pauseClock(at: now))
        case .resumeClock:
            if case .notStarted = core.clock.state {
                apply(core.startClock(at: now))
            } else {
                apply(core.resumeClock(at: now))
            }
        case .adjustClock(let white, let black):
            apply(core.adjustClock(white: white, black: black, at: now))
        case .setResult(let result):
            guard let outputs = core.declareResult(result, at: now) else {
                return .failure(CommandFailure("a game cannot be set back to ongoing; start a new game"))
            }
            apply(outputs)
        case .setOrientation(let orientation):
            core.setOrientation(orientation)
            publishState()
            persist()
        }
        let fen = JSONValue.string(core.position.fen)
        let ply = JSONValue(core.game.moves.count)
        switch command {
        case .newGame, .setPosition:
            if let state = loadBoardGame() { return .success(["fen": fen, "ply": ply, "board_game": .string(state)]) }
        default:
            break
        }
        return .success(["fen": fen, "ply": ply])
    }

    // MARK: The board's own game

    /// Sets the game a board keeps itself (ChessUp) to the kernel's game, which has just
    /// started: a fresh session and game on the board (`startSession`), the start position
    /// unless it is the standard one (`loadPosition`), then its state (`requestState`), so
    /// that the board reports the moves of this game. Returns `"loaded"` when sent,
    /// `"pending"` when the board is not ready (sent once it is), `nil` for boards without a
    /// game of their own.
    private func loadBoardGame() -> String? {
        guard capabilities.contains(.ownGame) else { return nil }
        guard isReady, transport.state == .connected else {
            boardGamePending = true
            return "pending"
        }
        boardGamePending = false
        transport.send(.startSession)
        let fen = core.game.startPosition.fen
        if fen != Position.starting.fen { transport.send(.loadPosition(fen: fen)) }
        transport.send(.requestState)
        logger.info("board's own game set", [("fen", fen)])
        return "loaded"
    }

    // MARK: Battery

    /// Asks a board that reports its battery for the level (on `ready` and every
    /// `game.battery_interval` seconds while ready).
    private func requestBattery() {
        guard capabilities.contains(.batteryReporting), isReady, transport.state == .connected else { return }
        transport.send(.requestBattery)
    }

    private func startBatteryTimer() {
        guard batteryTimer == nil, capabilities.contains(.batteryReporting), batteryInterval > 0 else { return }
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + batteryInterval, repeating: batteryInterval)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.requestBattery() }
        }
        source.resume()
        batteryTimer = source
    }

    // MARK: Time and persistence

    /// Arms the timer for the kernel's next deadline. Called after every event, so it does
    /// nothing while the deadline stays the same: cancelling and creating a Dispatch timer
    /// costs two round trips through libdispatch's manager thread, which showed in the
    /// profile of every piece lifted.
    private func scheduleTick() {
        let deadline = core.nextDeadline
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        guard let deadline else {
            timer?.cancel()
            timer = nil
            return
        }
        let delay = max(0, deadline - clock.now())
        if let timer {
            timer.schedule(deadline: .now() + delay)
            return
        }
        let source = DispatchSource.makeTimerSource(queue: .main)
        source.schedule(deadline: .now() + delay)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                // Fired: whatever the kernel's deadline is now, it needs arming again.
                self.armedDeadline = nil
                self.tick()
            }
        }
        source.resume()
        timer = source
    }

    /// Saves the session through the state writer (a journal line, or the whole snapshot
    /// replaced atomically, now; flushed to disk in the background — with `deferringSync`,
    /// once the writer's deferred flushes are started; failures are logged by the writer's
    /// owner).
    public func persist(deferringSync: Bool = false) {
        savedSetUpWait = core.tracker.setUpWait
        store?.saveSession(core.snapshot(at: clock.now()), as: board.id, deferringSync: deferringSync)
    }

    private func date(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: seconds)
    }
}

/// Why a command was refused (answered on the board's response topic).
public struct CommandFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String

    /// A failure saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

extension SessionOutput {
    /// Whether this output changes what ``BoardSession/persist()`` saves: the game record
    /// (moves, takebacks, endings, new games) or the clock.
    fileprivate var changesSavedState: Bool {
        switch self {
        case .clock, .tracker(.move), .tracker(.takeback), .tracker(.gameEnded), .tracker(.newGame): true
        case .tracker(.syncChanged), .tracker(.illegalMove), .tracker(.orientationDetected), .tracker(.missedMoves),
            .tracker(.resultClaim), .alert, .command, .batteryLow:
            false
        }
    }
}

extension ConfiguredBoard {
    /// The configured address, when the board is matched by address.
    var address: String? {
        if case .address(let address) = match { return address }
        return nil
    }
}
