import BoardKit
import Chess
import FoundationEssentials

/// A move the tracker holds back for a moment because the board may still turn it into
/// another one: a rook move that may be the first half of castling, or a promotion
/// waiting for the board's pick.
struct PendingCommit: Sendable {
    /// What is committed when the wait ends.
    let move: Move
    /// The other moves the board may still complete.
    let alternatives: [MoveCandidate]
    /// When the board showed the move.
    let time: TimeInterval
    /// When the wait ends.
    let deadline: TimeInterval
}

/// What an illegal observation was, so that it is alerted once.
enum IllegalKey: Hashable, Sendable {
    /// A move a board shows (a castling's king half and its whole count as one).
    case move(Move)
    case report(BoardMove)
    /// The kings placed on the centre squares to show a result.
    case resultClaim(GameResult)
}

/// What an observation means for the sync state.
enum Verdict {
    /// The board shows the game position.
    case inSync
    /// A move is being made (or one is pending).
    case inProgress
    /// Nothing explains the difference (on the given squares); the grace runs.
    case unexplained(UInt64)
    /// The board is out of sync at once (an illegal move), on the given squares.
    case outOfSync(UInt64)
}

extension GameTracker {
    // MARK: Coordinates

    func map(_ square: Square) -> Square { (orientation ?? .whiteNear).map(square) }
    func map(_ snapshot: OccupancyMap) -> OccupancyMap { (orientation ?? .whiteNear).map(snapshot) }
    func map(_ move: BoardMove) -> BoardMove { (orientation ?? .whiteNear).map(move) }

    // MARK: Sync state

    mutating func setSync(_ state: SyncState, into outputs: inout [TrackerOutput]) {
        guard state != syncState else { return }
        syncState = state
        outputs.append(.syncChanged(state))
    }

    /// Turns a verdict into the sync state, running the grace for unexplained ones.
    mutating func apply(_ verdict: Verdict, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        switch verdict {
        case .inSync:
            grace.cancel()
            alertedIllegal = nil
            closeGap()
            setSync(.inSync, into: &outputs)
        case .inProgress:
            grace.cancel()
            alertedIllegal = nil
            setSync(.moveInProgress, into: &outputs)
        case .unexplained(let mismatch):
            // The illegal move alerted stays alerted while the board is only half put
            // back or half completed (a castling's rook after its king).
            unexplainedMismatch = mismatch
            if grace.unexplained(at: time) {
                if !syncState.isOutOfSync { reportGapBeforeOutOfSync(into: &outputs) }
                setSync(.outOfSync(mismatched: mismatch.squares), into: &outputs)
            } else if !syncState.isOutOfSync {
                setSync(.moveInProgress, into: &outputs)
            } else {
                // Already out of sync: keep it, with the squares as they are now.
                setSync(.outOfSync(mismatched: mismatch.squares), into: &outputs)
            }
        case .outOfSync(let mismatch):
            grace.cancel()
            setSync(.outOfSync(mismatched: mismatch.squares), into: &outputs)
        }
    }

    /// Judges the last observation again (after a command, a takeback or a pending commit).
    mutating func reclassify(at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        switch inputPath {
        case .identity:
            guard let frame = lastFrame else {
                apply(.inSync, at: time, into: &outputs)
                return
            }
            apply(classifyIdentity(frame, at: time, into: &outputs), at: time, into: &outputs)
        case .occupancy:
            apply(classifyOccupancy(at: time, into: &outputs), at: time, into: &outputs)
        case .reportedMoves:
            apply(reportedVerdict(), at: time, into: &outputs)
        }
    }

    // MARK: Game changes

    /// Forgets everything that belonged to the previous position.
    mutating func resetForNewPosition() {
        analysis = PositionAnalysis(game.position, gameOver: isGameOver)
        previousAnalysis = nil
        illegalCache = nil
        pending = nil
        suppressed = nil
        touched = 0
        touchedSincePending = 0
        lastPlaced = nil
        pick = nil
        reportedMismatch = 0
        alertedIllegal = nil
        hold = ReportHold()
        gapObservations.clear()
        gapHistories = nil
        gapReported = false
        openGap = nil
        announcedUndos = 0
    }

    /// Collects the positions before each of the last few moves.
    mutating func rebuildRecent() {
        let keep = max(0, options.maxTakebackPlies)
        let earlier = game.positions.dropLast().suffix(keep)
        recent = earlier.map { ($0, PackedBoard(position: $0)) }
    }

    /// The illegal (pseudo-legal, king-exposing) moves of the current position, computed once.
    mutating func illegalCandidates() -> [MoveCandidate] {
        if let illegalCache { return illegalCache }
        let computed = isGameOver ? [] : analysis.illegalCandidates()
        illegalCache = computed
        return computed
    }

    /// Adds `move` (legal in the current position) to the game.
    mutating func commit(
        _ move: Move, at time: TimeInterval, recovered: Bool = false, resolved: Bool = false,
        into outputs: inout [TrackerOutput]
    ) {
        let before = game.position
        do {
            try game.play(move, clock: nil, timestamp: time)
        } catch {
            return
        }
        let previous = analysis
        recent.append((before, previous.board))
        let keep = max(0, options.maxTakebackPlies)
        if recent.count > keep { recent.removeFirst(recent.count - keep) }
        suppressed = nil
        illegalCache = nil
        pending = nil
        pick = nil
        // Game keeps its result for automatic endings; the reason is only looked up then.
        let end = isGameOver ? automaticEnd() : nil
        let placed = previous.candidate(for: move)?.result
        analysis = PositionAnalysis(game.position, gameOver: isGameOver, board: placed)
        previousAnalysis = previous
        let record = game.moves.last
        let committed = CommittedMove(
            move: move, san: record?.san ?? before.san(for: move), fen: record?.fenAfter ?? game.position.fen,
            ply: game.moves.count, color: before.sideToMove, timestamp: time,
            recovered: !resolved && (recovered || judgingGap), resolved: resolved)
        outputs.append(.move(committed))
        if let end { outputs.append(.gameEnded(end)) }
    }

    /// The end the rules impose by themselves on the game now (claimable draws do not count).
    func automaticEnd() -> GameEnd? {
        guard let termination = game.termination else { return nil }
        switch termination {
        case .checkmate(let winner):
            return GameEnd(result: winner == .white ? .whiteWins : .blackWins, reason: .checkmate(winner: winner))
        case .stalemate: return GameEnd(result: .draw, reason: .stalemate)
        case .insufficientMaterial: return GameEnd(result: .draw, reason: .insufficientMaterial)
        case .seventyFiveMoveRule: return GameEnd(result: .draw, reason: .seventyFiveMoveRule)
        case .fivefoldRepetition: return GameEnd(result: .draw, reason: .fivefoldRepetition)
        case .fiftyMoveRule, .threefoldRepetition: return nil
        }
    }

    /// Takes back `plies` moves and reports it.
    mutating func performTakeback(plies: Int, into outputs: inout [TrackerOutput]) {
        let count = min(plies, game.moves.count)
        guard count > 0 else { return }
        let undone = game.moves.suffix(count).reversed().map(\.move.uci)
        game.takeBack(plies: count)
        let keptRecent = recent.count >= count ? Array(recent.dropLast(count)) : nil
        resetForNewPosition()
        if let keptRecent { recent = keptRecent } else { rebuildRecent() }
        outputs.append(.takeback(Takeback(plies: count, undone: undone, ply: game.moves.count, fen: game.position.fen)))
    }

    /// How many plies back the game showed `board`, within the takeback bound.
    func takebackDepth(of board: PackedBoard) -> Int? {
        for depth in 1...max(1, recent.count) where depth <= recent.count {
            if recent[recent.count - depth].board == board { return depth }
        }
        return nil
    }

    /// Starts a new game from the standard position because the board shows it.
    mutating func startNewGameFromBoard(at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        var fresh = Game(startPosition: .starting)
        fresh.tags = game.tags
        game = fresh
        change.needsSnapshot = true
        resetForNewPosition()
        rebuildRecent()
        outputs.append(.newGame(fen: game.position.fen))
    }

    /// Whether a board showing the standard starting position should start a new game:
    /// the game is over, or the start is further back than a takeback reaches.
    func startPositionMeansNewGame() -> Bool {
        guard options.autoNewGame, analysis.board != Self.startBoard else { return false }
        return isGameOver || game.startPosition != .starting || game.moves.count > options.maxTakebackPlies
    }

    /// Clears per-move state after a pending move was committed late: only what was
    /// touched while it waited counts for the next move, less the squares of the pending
    /// move itself (swapping the pawn for the new piece touches the promotion square).
    mutating func afterPendingCommit(_ committed: Move) {
        let own = previousAnalysis?.candidate(for: committed)?.changed ?? 0
        touched = touchedSincePending & ~own
        touchedSincePending = 0
        lastPlaced = nil
    }

    static let startBoard = PackedBoard(position: .starting)
}
