public import BoardKit
public import Chess
public import FoundationEssentials

/// Everything one board's session decides, as a pure value: a ``GameTracker`` for the
/// moves and sync state, a ``BoardSyncGate`` fed on every change, and the ``GameClock``
/// the gate pauses and resumes. Time is passed in with every call; call ``tick(at:)`` at
/// ``nextDeadline`` (grace periods, pending moves, flag fall).
///
/// After each event or command the session feeds the gate with (out of sync, clock
/// running, side to move) and applies its action to the clock; the gate's one-shot
/// haptic becomes ``SessionOutput/alert(mismatched:)``. A board left out of sync while its
/// link is up is asked for its full state as ``resync`` says (``SessionOutput/command(_:)``).
public struct GameSession: Sendable {
    /// The game tracker.
    public internal(set) var tracker: GameTracker
    /// The clock.
    public internal(set) var clock: GameClock
    /// The sync gate.
    public internal(set) var gate: BoardSyncGate
    /// When the clock starts by itself.
    public var clockStart: ClockStartPolicy {
        didSet { tracker.change.clockStartChanged = true }
    }
    /// Whether the session waits for the board to show itself (after a restore, or a
    /// lost link); the gate holds the clock paused until then.
    public internal(set) var awaitingBoard: Bool
    /// Whether a lost link pauses the clock until the board shows itself again (moves
    /// made meanwhile are seen then, and the clock resumes for the side then to move).
    public var pausesWhileDisconnected: Bool
    /// When a board stuck out of sync is asked for its full state (by default only
    /// occupancy boards are).
    public var resync: ResyncPolicy
    /// Whether the board's link is up and its handshake done (``BoardEvent/ready`` seen,
    /// and no ``BoardEvent/disconnected(error:)`` since): only then is it asked for its state.
    public internal(set) var isBoardReady: Bool
    /// When a move-reporting board's reports wait for its own game to confirm them
    /// (``ReportCheck``; off unless set).
    public var reportCheck: ReportCheck {
        get { tracker.reportCheck }
        set { tracker.reportCheck = newValue }
    }
    /// The state requests of the current out-of-sync stretch.
    var resyncSchedule = ResyncSchedule()
    /// Whether the board's battery is low (``SessionOutput/batteryLow(percent:)``).
    public internal(set) var battery = BatteryWatch()
    /// The board's own clock (a DGT 3000), when the board reports one: its times are the
    /// game's published times and each move's `[%clk]` (``publishedClocks(at:)``).
    public internal(set) var physicalClock = PhysicalClock()

    /// A session for `game` under `timeControl`.
    public init(
        game: Game = Game(), timeControl: TimeControl = .unlimited, inputPath: TrackerInputPath,
        options: TrackerOptions = TrackerOptions(), clockStart: ClockStartPolicy = .onFirstMove
    ) {
        var game = game
        if timeControl != .unlimited || game.tags["TimeControl"] != nil { game.tags["TimeControl"] = timeControl.pgn }
        tracker = GameTracker(game: game, inputPath: inputPath, options: options)
        clock = GameClock(timeControl: timeControl)
        gate = BoardSyncGate()
        self.clockStart = clockStart
        awaitingBoard = false
        pausesWhileDisconnected = true
        resync = .standard(for: inputPath)
        isBoardReady = false
    }

    /// The game so far.
    public var game: Game { tracker.game }

    /// What changed of the saved state since the last call, for the caller to save (with
    /// ``snapshot(at:)``); the record starts afresh from the state now.
    public mutating func takeChange() -> SessionChange {
        defer { tracker.change = SessionChange(keptPlies: game.moves.count) }
        return tracker.change
    }
    /// The position now.
    public var position: Position { tracker.position }
    /// The board's sync state.
    public var syncState: SyncState { tracker.syncState }

    /// When ``tick(at:)`` has something to do, or `nil`.
    public var nextDeadline: TimeInterval? {
        [tracker.nextDeadline, clock.flagDeadline, resyncSchedule.deadline].compactMap { $0 }.min()
    }

    /// Feeds one board event observed at `time`.
    public mutating func handle(_ event: BoardEvent, at time: TimeInterval) -> [SessionOutput] {
        var outputs: [SessionOutput] = []
        var boardSeen = false
        switch event {
        case .pieces, .occupancy, .pieceLifted, .piecePlaced, .moveReported:
            boardSeen = true
        case .ready:
            outputs.append(.board(.ready))
            isBoardReady = true
            resyncSchedule = ResyncSchedule()
            // Such boards send nothing until the next move: the link itself is the sign.
            if tracker.inputPath == .reportedMoves { awaitingBoard = false }
        case .connected:
            outputs.append(.board(.connected))
            isBoardReady = false
        case .clock(let reading):
            physicalClock.observe(reading, sideToMove: position.sideToMove)
        case .disconnected:
            outputs.append(.board(.disconnected))
            isBoardReady = false
            if pausesWhileDisconnected && !tracker.isGameOver { awaitingBoard = true }
        case .handshakeFailed(let reason):
            outputs.append(.board(.handshakeFailed(reason: reason)))
        case .battery(let percent, let charging):
            outputs.append(.board(.battery(percent: percent, charging: charging)))
            if battery.observe(percent: percent) { outputs.append(.batteryLow(percent: percent)) }
        case .button(let button):
            outputs.append(.board(.button(button)))
        case .serialNumber(let number):
            outputs.append(.board(.serialNumber(number)))
        case .version(let version):
            outputs.append(.board(.version(version)))
        case .raw(let bytes):
            outputs.append(.board(.unhandled(bytes)))
        case .calibration(let calibration):
            outputs.append(.board(.calibration(calibration)))
        case .gameState, .promotionPicked, .positionConfirmed:
            break
        }
        outputs += checkFlag(at: time)
        absorb(tracker.handle(event, at: time), at: time, into: &outputs)
        settleAwaiting(boardSeen: boardSeen, into: &outputs)
        updateGate(at: time, into: &outputs)
        updateResync(at: time, into: &outputs)
        askForHeldReports(into: &outputs)
        return outputs
    }

    /// The times to publish: the board's own clock's when it has one, else this session's
    /// clock's (`nil` when untimed).
    public func publishedClocks(at time: TimeInterval) -> ColorPair<TimeInterval>? {
        physicalClock.remainingTimes ?? clock.remainingTimes(at: time)
    }

    /// Ends the wait for the board once it has shown something the tracker explains, or
    /// once the tracker itself finds it out of sync (then alerting, which the gate,
    /// already holding the clock, would not).
    private mutating func settleAwaiting(boardSeen: Bool, into outputs: inout [SessionOutput]) {
        guard awaitingBoard else { return }
        if case .outOfSync(let squares) = tracker.syncState {
            awaitingBoard = false
            outputs.append(.alert(mismatched: squares))
        } else if boardSeen, !tracker.isWaitingForGrace {
            awaitingBoard = false
        }
    }

    /// Lets time pass to `time`: flag fall, grace periods, pending moves.
    public mutating func tick(at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        absorb(tracker.tick(at: time), at: time, into: &outputs)
        settleAwaiting(boardSeen: false, into: &outputs)
        updateGate(at: time, into: &outputs)
        updateResync(at: time, into: &outputs)
        askForHeldReports(into: &outputs)
        return outputs
    }

    // MARK: Commands

    /// Starts a new game: `fen` (the standard start when `nil`), `tags`, and `timeControl`
    /// (the current one when `nil`). The clock is set up afresh, not started.
    ///
    /// The new game is in force at once: ``TrackerOutput/newGame(fen:)`` comes first, then
    /// the sync state for it. Moves are tracked once the board shows the start position
    /// (``GameTracker/setUpWait``); until then the board is out of sync, which also raises
    /// the gate's alert. The gate starts afresh (a clock paused for the old game is not the
    /// new game's to resume).
    public mutating func newGame(
        tags: PGNTags = PGNTags(), timeControl: TimeControl? = nil, start: Position = .starting, at time: TimeInterval
    ) -> [SessionOutput] {
        let control = timeControl ?? clock.timeControl
        var tags = tags
        if control != .unlimited { tags["TimeControl"] = control.pgn }
        var outputs = checkFlag(at: time)
        clock = GameClock(timeControl: control)
        gate = BoardSyncGate()
        emitClock(.reset, .command, at: time, into: &outputs)
        outputs.append(.tracker(.newGame(fen: start.fen)))
        absorb(tracker.newGame(Game(startPosition: start, tags: tags), at: time), at: time, into: &outputs)
        updateGate(at: time, into: &outputs)
        updateResync(at: time, into: &outputs)
        return outputs
    }

    /// ``newGame(tags:timeControl:start:at:)`` from a FEN (the standard start when `nil`).
    public mutating func newGame(
        tags: PGNTags = PGNTags(), timeControl: TimeControl? = nil, fen: String?, at time: TimeInterval
    ) throws(FENError) -> [SessionOutput] {
        let start = try fen.map { (text: String) throws(FENError) -> Position in try Position(fen: text) } ?? .starting
        return newGame(tags: tags, timeControl: timeControl, start: start, at: time)
    }

    /// Sets the position (a new game from `position` with the same tags and time control).
    public mutating func setPosition(_ position: Position, at time: TimeInterval) -> [SessionOutput] {
        newGame(tags: game.tags, start: position, at: time)
    }

    /// ``setPosition(_:at:)`` from a FEN.
    public mutating func setPosition(fen: String, at time: TimeInterval) throws(FENError) -> [SessionOutput] {
        setPosition(try Position(fen: fen), at: time)
    }

    /// Records a result declared from outside (the `result` command): a win is an
    /// adjudication, a draw an agreement. `nil` for ``GameResult/ongoing``: a game is never
    /// set back to ongoing (a new game is).
    public mutating func declareResult(_ result: GameResult, at time: TimeInterval) -> [SessionOutput]? {
        let reason: GameEndReason
        switch result {
        case .whiteWins, .blackWins: reason = .adjudication
        case .draw: reason = .agreement
        case .ongoing: return nil
        }
        return endGame(GameEnd(result: result, reason: reason), at: time)
    }

    /// `command` in the board's own squares (``BoardOrientation/map(_:)``), for the
    /// orientation in force (White near while it is not yet detected).
    public func physical(_ command: BoardCommand) -> BoardCommand {
        (tracker.orientation ?? .whiteNear).map(command)
    }

    /// Sets which side sits at the board's near edge (``OrientationSetting/auto`` detects it
    /// again).
    public mutating func setOrientation(_ setting: OrientationSetting) {
        var options = tracker.options
        options.orientation = setting
        tracker.update(options: options)
    }

    /// Enters the line the arbiter names for moves the board could not tell
    /// (``GameTracker/resolve(_:fromPly:at:)``): its moves are charged to the clock in turn
    /// as they are committed, and the gate lets the clock run again once the board is in sync.
    public mutating func resolve(
        _ moves: [String], fromPly: Int? = nil, at time: TimeInterval
    ) throws(ResolutionRefusal) -> [SessionOutput] {
        var tracker = self.tracker
        let resolved = try tracker.resolve(moves, fromPly: fromPly, at: time)
        self.tracker = tracker
        // The gate paused the clock while the board was out of sync: no flag fell meanwhile.
        var outputs: [SessionOutput] = []
        absorb(resolved, at: time, into: &outputs)
        updateGate(at: time, into: &outputs)
        updateResync(at: time, into: &outputs)
        return outputs
    }

    /// Takes back the last `plies` moves.
    public mutating func takeBack(plies: Int = 1, at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        absorb(tracker.takeBack(plies: plies, at: time), at: time, into: &outputs)
        updateGate(at: time, into: &outputs)
        return outputs
    }

    /// Starts the clock for the side to move (from not started or paused).
    public mutating func startClock(at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        guard !tracker.isGameOver else { return outputs }
        let color = position.sideToMove
        if clock.start(color, at: time) { emitClock(.start(color), .command, at: time, into: &outputs) }
        updateGate(at: time, into: &outputs)
        return outputs
    }

    /// Pauses the clock.
    public mutating func pauseClock(at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        if clock.pause(at: time) { emitClock(.pause, .command, at: time, into: &outputs) }
        return outputs
    }

    /// Resumes the clock for the side to move.
    public mutating func resumeClock(at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        guard !tracker.isGameOver, case .paused = clock.state else { return outputs }
        let color = position.sideToMove
        if clock.resume(color, at: time) { emitClock(.resume(color), .command, at: time, into: &outputs) }
        return outputs
    }

    /// Sets the remaining times (either may be left as it is).
    public mutating func adjustClock(
        white: TimeInterval?, black: TimeInterval?, at time: TimeInterval
    )
        -> [SessionOutput]
    {
        var outputs = checkFlag(at: time)
        if let white { clock.adjust(.white, remaining: white, at: time) }
        if let black { clock.adjust(.black, remaining: black, at: time) }
        emitClock(.adjust, .command, at: time, into: &outputs)
        return outputs
    }

    /// Changes the tracker's options (orientation, grace, promotion default) mid-game.
    public mutating func update(options: TrackerOptions) {
        tracker.update(options: options)
    }

    /// Ends the game (resignation, agreement, adjudication, a claimed draw).
    public mutating func endGame(_ end: GameEnd, at time: TimeInterval) -> [SessionOutput] {
        var outputs = checkFlag(at: time)
        guard !tracker.isGameOver else { return outputs }
        absorb(tracker.endGame(end), at: time, into: &outputs)
        updateGate(at: time, into: &outputs)
        return outputs
    }

    /// Ends the game as a draw when a claimable draw (threefold repetition, fifty moves)
    /// stands; otherwise does nothing.
    public mutating func claimDraw(at time: TimeInterval) -> [SessionOutput] {
        switch game.termination {
        case .threefoldRepetition: endGame(GameEnd(result: .draw, reason: .threefoldRepetition), at: time)
        case .fiftyMoveRule: endGame(GameEnd(result: .draw, reason: .fiftyMoveRule), at: time)
        default: []
        }
    }

    // MARK: Internals

    /// Reports what happened to the clock, for a timed game only: an untimed game's clock
    /// runs and pauses for the sync gate all the same, but nobody is told (no clock action
    /// with no times to show).
    private func emitClock(
        _ action: ClockUpdate.Action, _ cause: ClockUpdate.Cause, at time: TimeInterval,
        into outputs: inout [SessionOutput]
    ) {
        guard clock.timeControl.isTimed else { return }
        outputs.append(
            .clock(
                ClockUpdate(
                    action: action, cause: cause, white: clock.remaining(for: .white, at: time),
                    black: clock.remaining(for: .black, at: time), time: time)))
    }

    /// Flags the side whose time ran out, ending the game (drawn when the other side cannot mate).
    private mutating func checkFlag(at time: TimeInterval) -> [SessionOutput] {
        guard let loser = clock.checkFlag(at: time) else { return [] }
        var outputs: [SessionOutput] = []
        emitClock(.flag(loser), .game, at: time, into: &outputs)
        let winner = loser.opponent
        let result: GameResult = position.hasInsufficientMaterial(for: winner) ? .draw : .win(for: winner)
        absorb(tracker.endGame(GameEnd(result: result, reason: .timeForfeit(loser: loser))), at: time, into: &outputs)
        updateGate(at: time, into: &outputs)
        return outputs
    }

    /// Applies what the tracker reported to the clock, and passes it on.
    private mutating func absorb(
        _ reported: [TrackerOutput], at time: TimeInterval, into outputs: inout [SessionOutput]
    ) {
        for output in reported {
            switch output {
            case .move(var move):
                // A pending move is charged when the board showed it, never in the future.
                let moveTime = min(move.timestamp, time)
                let startsClock = clock.state == .notStarted && clockStart == .onFirstMove
                move.clock = clock.moveMade(by: move.color, at: moveTime)
                // A clock on the board is the game's clock: its time for the mover is the record's.
                if let shown = physicalClock.remaining(for: move.color) { move.clock = shown }
                tracker.setClock(move.clock, forPly: move.ply)
                outputs.append(.tracker(.move(move)))
                if startsClock, !tracker.isGameOver, clock.start(move.color.opponent, at: moveTime) {
                    emitClock(.start(move.color.opponent), .game, at: moveTime, into: &outputs)
                }
            case .takeback(let takeback):
                outputs.append(.tracker(output))
                var color = position.sideToMove
                for _ in 0..<takeback.plies {
                    clock.undoMoves(of: color, count: 1)
                    color = color.opponent
                }
                if clock.reopen(for: position.sideToMove) {
                    emitClock(.switchSide(position.sideToMove), .game, at: time, into: &outputs)
                } else if let active = clock.activeColor, active != position.sideToMove {
                    clock.switchSide(to: position.sideToMove, at: time)
                    emitClock(.switchSide(position.sideToMove), .game, at: time, into: &outputs)
                }
            case .gameEnded:
                outputs.append(.tracker(output))
                if clock.stop(at: time) { emitClock(.stop, .game, at: time, into: &outputs) }
            case .newGame:
                outputs.append(.tracker(output))
                clock = GameClock(timeControl: clock.timeControl)
                emitClock(.reset, .game, at: time, into: &outputs)
            case .syncChanged, .illegalMove, .orientationDetected, .missedMoves, .resultClaim:
                outputs.append(.tracker(output))
            }
        }
    }

    /// Feeds the gate with the state now and applies its action to the clock.
    private mutating func updateGate(at time: TimeInterval, into outputs: inout [SessionOutput]) {
        let outOfSync = awaitingBoard || tracker.syncState.isOutOfSync
        let action = gate.update(
            isOutOfSync: outOfSync, clockIsRunning: clock.isRunning, currentActiveColor: position.sideToMove)
        switch action {
        case .none: break
        case .pauseClock:
            if clock.pause(at: time) { emitClock(.pause, .gate, at: time, into: &outputs) }
        case .resumeClock(let color):
            if !tracker.isGameOver, clock.resume(color, at: time) {
                emitClock(.resume(color), .gate, at: time, into: &outputs)
            }
        }
        if gate.shouldFireHaptic {
            gate.acknowledgeHaptic()
            if case .outOfSync(let squares) = tracker.syncState { outputs.append(.alert(mismatched: squares)) }
        }
    }

    /// Asks a ready board for its state when the tracker holds reports for it
    /// (``ReportCheck``); a request due while the board is away goes once it is ready.
    private mutating func askForHeldReports(into outputs: inout [SessionOutput]) {
        if isBoardReady, tracker.takeStateRequest() { outputs.append(.command(.requestState)) }
    }

    /// Asks a ready board stuck out of sync for its full state, as ``resync`` says; ends the
    /// stretch when the board is back in sync, the link is down, or the game is over.
    private mutating func updateResync(at time: TimeInterval, into outputs: inout [SessionOutput]) {
        guard resync.isEnabled, isBoardReady, !tracker.isGameOver, tracker.syncState.isOutOfSync else {
            resyncSchedule = ResyncSchedule()
            return
        }
        if !resyncSchedule.isRunning {
            resyncSchedule.isRunning = true
            resyncSchedule.deadline = resync.delay(beforeAttempt: 1).map { time + $0 }
        }
        guard let deadline = resyncSchedule.deadline, time >= deadline else { return }
        resyncSchedule.attempts += 1
        resyncSchedule.deadline = resync.delay(beforeAttempt: resyncSchedule.attempts + 1).map { time + $0 }
        outputs.append(.command(.requestState))
    }
}
