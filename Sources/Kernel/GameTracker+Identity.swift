import BoardKit
import Chess
import FoundationEssentials

/// The identity path: each snapshot is the whole board, so it is compared with the game
/// position, the results of the legal moves, recent positions (takebacks), the results
/// of illegal moves, and the states a move passes through.
extension GameTracker {
    mutating func observeIdentity(_ physical: PackedBoard, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        // Boards stream the same frame again and again: only time can change its meaning.
        if let lastPhysical, physical == lastPhysical {
            outputs += tick(at: time)
            return
        }
        lastPhysical = physical
        let frame = orient(physical, into: &outputs)
        lastFrame = frame
        if let suppressed, frame != suppressed { self.suppressed = nil }
        if gapHistories != nil {
            apply(
                followHistories(to: .placement(frame), touched: nil, at: time, into: &outputs), at: time, into: &outputs
            )
            return
        }
        if isGapUnread {
            let difference = frame.differences(from: analysis.board)
            apply(
                reconcileGap(to: .placement(frame), difference: difference, at: time, into: &outputs), at: time,
                into: &outputs)
            return
        }
        // After a gap the search for the moves made meanwhile goes before the readings of
        // an illegal or a corrected move (moves that partly cancel out look like one).
        judgingGap = catchingUp
        var verdict = classifyIdentity(frame, at: time, into: &outputs)
        judgingGap = false
        if catchingUp, pending == nil, case .inProgress = verdict {
            // Half a move, or moves made meanwhile that leave the board looking like one.
            let difference = frame.differences(from: analysis.board)
            if difference.nonzeroBitCount >= 2 { verdict = .unexplained(difference) }
        }
        if catchingUp, case .unexplained(let difference) = verdict {
            verdict = reconcileGap(to: .placement(frame), difference: difference, at: time, into: &outputs)
            if case .unexplained = verdict {
                verdict = classifyIdentity(frame, at: time, into: &outputs)
                if case .outOfSync = verdict { gapMissed = nil }
                if case .inProgress = verdict, gapMissed != nil { verdict = .unexplained(difference) }
            }
        }
        apply(verdict, at: time, into: &outputs)
    }

    /// Maps a physical frame to game coordinates, detecting the orientation when asked to.
    private mutating func orient(_ physical: PackedBoard, into outputs: inout [TrackerOutput]) -> PackedBoard {
        if let orientation { return orientation == .whiteNear ? physical : physical.rotated }
        func known(_ board: PackedBoard) -> Bool {
            board == analysis.board || board == Self.startBoard || analysis.legal.contains { $0.result == board }
        }
        if known(physical) {
            orientation = .whiteNear
            outputs.append(.orientationDetected(.whiteNear))
            return physical
        }
        let rotated = physical.rotated
        if known(rotated) {
            orientation = .blackNear
            outputs.append(.orientationDetected(.blackNear))
            return rotated
        }
        return physical
    }

    /// Judges a frame (game coordinates), committing moves and takebacks it shows.
    mutating func classifyIdentity(
        _ shown: PackedBoard, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) -> Verdict {
        let frame = withStandIns(shown)
        if setUpWait != nil, let verdict = judgeSetUp(difference: frame.differences(from: analysis.board)) {
            return verdict
        }
        if let pending {
            if pending.move.promotion == nil,
                frame == analysis.legal.first(where: { $0.move == pending.move })?.result
            {
                return .inProgress
            }
            if let alternative = pending.alternatives.first(where: { $0.result == frame }) {
                commit(alternative.move, at: time, into: &outputs)
                return frame == analysis.board ? .inSync : classifyIdentity(frame, at: time, into: &outputs)
            }
            let difference = frame.differences(from: analysis.board)
            if difference != 0,
                pending.alternatives.contains(where: { $0.isIntermediate(frame, difference: difference) })
            {
                return .inProgress
            }
            self.pending = nil
            if difference != 0 {
                commit(pending.move, at: pending.time, into: &outputs)
            }
        }
        if frame == analysis.board { return .inSync }
        if frame == suppressed { return .unexplained(frame.differences(from: analysis.board)) }
        if let candidate = analysis.legal.first(where: { $0.result == frame }) {
            if let castling = candidate.castlingCompletion, let completion = analysis.candidate(for: castling),
                options.castlingWait > 0
            {
                pending = PendingCommit(
                    move: candidate.move, alternatives: [completion], time: time, deadline: time + options.castlingWait)
                return .inProgress
            }
            commit(candidate.move, at: time, into: &outputs)
            return .inSync
        }
        if let depth = takebackDepth(of: frame) {
            performTakeback(plies: depth, into: &outputs)
            return .inSync
        }
        if frame == Self.startBoard, startPositionMeansNewGame() {
            startNewGameFromBoard(at: time, into: &outputs)
            return .inSync
        }
        let difference = frame.differences(from: analysis.board)
        if options.desyncGrace > 0, let promotion = promotionShownByPawn(frame) {
            // The pawn stands on the last rank and no piece replaces it (the player has no
            // spare one): after the grace it is the default promotion.
            pending = PendingCommit(
                move: promotion.move, alternatives: promotion.group, time: time, deadline: time + options.desyncGrace)
            return .inProgress
        }
        // No state a legal move passes through is the result of an illegal move (that
        // has a piece on a square no legal move fills from there), so the cheap check
        // goes first and normal play never generates the illegal moves.
        if analysis.legal.contains(where: { $0.isIntermediate(frame, difference: difference) }) {
            return .inProgress
        }
        if judgingGap { return .unexplained(difference) }
        if !isGameOver, let claim = Self.resultClaim(in: frame, game: analysis.board) {
            if alertedIllegal != .resultClaim(claim) {
                alertedIllegal = .resultClaim(claim)
                outputs.append(.resultClaim(claim))
            }
            return .outOfSync(difference)
        }
        if let illegal = illegalCandidates().first(where: { $0.result == frame }) {
            let reason: IllegalMove.Reason = illegal.isCastling ? .castlingNotAllowed : .leavesKingInCheck
            alertIllegal(.move(illegal.move), move: illegal.move, reason: reason, into: &outputs)
            return .outOfSync(difference)
        }
        if let previousAnalysis, let lastMove = game.moves.last?.move,
            let corrected = previousAnalysis.legal.first(where: { $0.result == frame && $0.move != lastMove }),
            !recent.isEmpty
        {
            // The last move was changed before the opponent moved: a slide that passed a
            // legal square, or a change of mind.
            performTakeback(plies: 1, into: &outputs)
            commit(corrected.move, at: time, into: &outputs)
            return .inSync
        }
        if !isGameOver,
            let illegal = analysis.illegalPlacement(frame, difference: difference)
        {
            alertIllegal(.move(illegal.move), move: illegal.move, reason: illegal.reason, into: &outputs)
            return .outOfSync(difference)
        }
        return .unexplained(difference)
    }

    /// The promotion (with the default piece, and its group of pieces) that `frame` shows
    /// complete but for the pawn still standing on the promotion square.
    private func promotionShownByPawn(_ frame: PackedBoard) -> (move: Move, group: [MoveCandidate])? {
        let kind = options.validPromotionDefault
        guard
            let promotion = analysis.legal.first(where: { candidate in
                guard candidate.move.promotion == kind else { return false }
                var withPawn = candidate.result
                withPawn.setCode(candidate.pawnCode, at: candidate.move.to.rawValue)
                return withPawn == frame
            })
        else { return nil }
        let group = analysis.legal.filter { $0.move.from == promotion.move.from && $0.move.to == promotion.move.to }
        return (promotion.move, group)
    }

    /// `frame` with a pawn on its last rank read as the game's piece there of the same
    /// colour: a promoted piece the player had no spare for (the pawn stands in for it
    /// while it stays on the last rank).
    private func withStandIns(_ frame: PackedBoard) -> PackedBoard {
        var result = frame
        for (rank, pawn) in [(7, UInt64(1)), (0, UInt64(9))] {
            for file in 0..<8 {
                let square = rank * 8 + file
                guard frame.code(at: square) == pawn else { continue }
                let actual = analysis.board.code(at: square)
                if actual != 0, actual & 8 == pawn & 8, actual & 7 != 1, actual & 7 != 6 {
                    result.setCode(actual, at: square)
                }
            }
        }
        return result
    }

    /// Reports an illegal move once per distinct observation.
    mutating func alertIllegal(
        _ key: IllegalKey, move: Move, reason: IllegalMove.Reason, into outputs: inout [TrackerOutput]
    ) {
        guard alertedIllegal != key else { return }
        alertedIllegal = key
        let record = IllegalMove(
            move: move, reason: reason, color: game.position.sideToMove, fen: game.position.fen)
        outputs.append(.illegalMove(record))
    }
}

extension PackedBoard {
    /// The same placement seen from the other side (a1 ↔ h8).
    var rotated: PackedBoard {
        var result = PackedBoard()
        for square in 0..<64 {
            result.setCode(code(at: square), at: 63 - square)
        }
        return result
    }
}
