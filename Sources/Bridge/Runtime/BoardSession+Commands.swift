import BoardKit
import Chess
public import Contract
public import JSON
import Kernel

/// Commands from MQTT applied to the game kernel or sent to the board, and the board's own
/// game (ChessUp) kept in step with the kernel's.
extension BoardSession {
    // MARK: MQTT → board and game

    /// Applies a parsed command; returns the response data, or an error message (and
    /// then nothing changed).
    ///
    /// What the board sent before the command and still waits unread is taken in first
    /// (``BoardKit/BoardInputTaking``): commands and the board's events are applied in the
    /// order they arrived.
    public func execute(_ command: BridgeCommand) -> Result<JSONValue, CommandFailure> {
        (transport as? any BoardInputTaking)?.takeWaitingInput()
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
                    CommandFailure("board \(board.id) (\(model)) cannot do that: \(boardCommand.topicName)"))
            }
            return .success(["sent": true])
        case .game(let gameCommand):
            return execute(gameCommand)
        case .calibrate:
            return recalibrate()
        }
    }

    /// Forgets the board's tags and re-establishes its link with an adapter that learns
    /// them again (a Certabo board; others have nothing to calibrate).
    func recalibrate() -> Result<JSONValue, CommandFailure> {
        guard let calibration else {
            return .failure(CommandFailure("board \(board.id) (\(board.family.rawValue)) has nothing to calibrate"))
        }
        calibration.forget()
        logger.notice("calibration asked for: the link is re-established to learn the pieces again")
        guard let recycling = transport as? any BoardLinkHealthReporting, transport.state == .connected else {
            return .success(["calibrating": true, "link": "the next link calibrates"])
        }
        recycling.recycleLink(reason: "calibration asked for")
        return .success(["calibrating": true])
    }

    /// The LEDs `pattern` lights in the game now.
    func ledCommand(_ pattern: GameCommand.LEDPattern) -> BoardCommand {
        let position = core.position
        switch pattern {
        case .off:
            return .clearIndications
        case .lastMove:
            guard let last = core.game.moves.last?.move else { return .clearIndications }
            return .indicate(squares: [last.from, last.to], style: .move)
        case .check:
            guard position.isCheck, let king = position.kingSquare(of: position.sideToMove) else {
                return .clearIndications
            }
            return .indicate(squares: [king], style: .check)
        }
    }

    func execute(_ command: GameCommand) -> Result<JSONValue, CommandFailure> {
        let now = kernelTime()
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
        case .resolve(let moves, let ply):
            let outputs: [SessionOutput]
            do {
                outputs = try core.resolve(moves, fromPly: ply, at: now)
            } catch {
                logger.warning("resolution refused", [("moves", moves.joined(separator: " ")), ("reason", "\(error)")])
                return .failure(CommandFailure("cannot resolve: \(error)"))
            }
            logger.notice("resolved by the arbiter", [("moves", moves.joined(separator: " "))])
            apply(outputs)
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
        case .ledPattern(let pattern):
            return execute(.board(ledCommand(pattern)))
        }
        let fen = JSONValue.string(core.game.fen)
        let ply = JSONValue(core.game.moves.count)
        switch command {
        case .newGame, .setPosition:
            if let state = loadBoardGame() { return .success(["fen": fen, "ply": ply, "board_game": .string(state)]) }
        case .resolve(let moves, _):
            return .success(["fen": fen, "ply": ply, "resolved": JSONValue(moves.count)])
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
    func loadBoardGame() -> String? {
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
}
