import BoardKit
import Chess
import Contract
import Kernel

/// The kernel's outputs as MQTT messages (moves, sync changes, clock, events) and as alerts
/// on the board's LEDs.
extension BoardSession {
    /// Publishes one tracker output; returns whether the game record changed. A move played
    /// now has `arrivedAt` (when its frame came) as its origin.
    func publish(_ output: TrackerOutput, arrivedAt: ContinuousClock.Instant? = nil) -> Bool {
        switch output {
        case .move(let move):
            lastMove = .init(uci: move.uci, san: move.san)
            var payload = MovePayload(move, clocks: core.publishedClocks(at: clock.now()))
            payload.clockFromBoard = core.physicalClock.reading != nil
            // A move played now is timed from its frame; moves won back or resolved are not.
            publisher.publish(
                builder.move(board: board.id, payload), origin: move.recovered || move.resolved ? nil : arrivedAt)
            publishEvent(.move(payload))
            if move.recovered { recordRecovered(move, payload: payload) }
            logger.info("move", [("ply", String(move.ply)), ("san", move.san), ("recovered", String(move.recovered))])
            return true
        case .syncChanged(let state):
            switch state {
            case .outOfSync(let squares):
                reportedOutOfSync = true
                let missed = missedMoves
                missedMoves = nil
                // While a gap reported before is open, the board is out of sync for it: the
                // event says so as the retained state does (the correction is made once, with
                // the report).
                let gap = missed ?? core.tracker.outOfSyncGap
                let event = BoardEventPayload.outOfSync(
                    squares: squares,
                    reason: gap.map { _ in BoardEventPayload.missedMovesReason } ?? core.tracker.setUpWait?.reason,
                    candidates: gap?.candidates)
                publishEvent(event)
                // One correction per gap: its later candidates are the events' and the state's.
                if let missed, !missed.isUpdate {
                    recordCorrection("missed_moves", from: event, keys: ["squares", "candidates"])
                }
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
            let event = BoardEventPayload.refused(illegal, on: core.position)
            publishEvent(event)
            recordCorrection("illegal_move", from: event, keys: ["uci", "lan", "reason", "squares", "piece", "color"])
            logger.warning("illegal move", [("uci", illegal.move.uci), ("reason", illegal.reason.rawValue)])
            return false
        case .gameEnded(let end):
            publishEvent(.gameEnd(result: end.result.rawValue, termination: end.reason.name))
            logger.notice("game over", [("result", end.result.rawValue), ("reason", end.reason.name)])
            announceEnd(end)
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
            recordCorrection("result_claim", from: .resultClaim(result: result.rawValue), keys: ["result"])
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

    func publishClock(_ update: ClockUpdate) {
        guard let payload = ClockPayload(update, sideToMove: core.position.sideToMove) else { return }
        publisher.publish(builder.clock(board: board.id, payload))
    }

    func publishEvent(_ event: BoardEventPayload) {
        publisher.publish(builder.event(board: board.id, event, timestamp: date(clock.now())))
    }

    // MARK: Alerts on the board

    func indicate(_ squares: [Square]) {
        guard capabilities.contains(.perSquareLEDs), !squares.isEmpty else { return }
        transport.send(core.physical(.indicate(squares: squares, style: .alert)))
        indicatedAlert = true
    }

    func clearAlertIndication() {
        guard indicatedAlert else { return }
        indicatedAlert = false
        transport.send(.clearIndications)
    }
}
