import BoardKit
import Chess
import FoundationEssentials

/// The reported-moves path: the board says which move was made; it is validated against
/// the legal moves. Occupancy and snapshots, when the board sends them, only feed the
/// sync state. A promotion reported without its piece waits for the board's pick (which
/// ChessUp sends right after the move) until the next event or ``TrackerOptions/promotionPickWait``.
extension GameTracker {
    mutating func observeReport(_ reported: BoardMove, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        resolveReportedPending(into: &outputs)
        let mismatch = (UInt64(1) << UInt64(reported.from.rawValue)) | (UInt64(1) << UInt64(reported.to.rawValue))
        guard !isGameOver else {
            alertIllegal(.report(reported), move: reported, reason: .gameOver, into: &outputs)
            reportedMismatch = mismatch
            apply(.outOfSync(mismatch), at: time, into: &outputs)
            return
        }
        if mustHold(reported, at: time) {
            holdReport(reported, at: time, into: &outputs)
            return
        }
        var group = analysis.legal.filter { $0.move.from == reported.from && $0.move.to == reported.to }
        if group.isEmpty {
            // Some boards name castling as the king taking its own rook.
            group = analysis.legal.filter { $0.move.from == reported.from && $0.castlingRook?.from == reported.to }
        }
        guard !group.isEmpty else {
            if reportCheck.isEnabled {
                // The board only reports moves legal in its own game: the two games parted
                // (a report was lost, or a stale one came back). Its state decides.
                holdReport(reported, at: time, into: &outputs)
                return
            }
            let shaped = illegalCandidates().contains { $0.move.from == reported.from && $0.move.to == reported.to }
            alertIllegal(
                .report(reported), move: reported, reason: shaped ? .leavesKingInCheck : .notAMove,
                into: &outputs)
            reportedMismatch = mismatch
            apply(.outOfSync(mismatch), at: time, into: &outputs)
            return
        }
        reportedMismatch = 0
        if group[0].isPromotion {
            if let kind = reported.promotion ?? pick, let chosen = group.first(where: { $0.move.promotion == kind }) {
                commit(chosen.move, at: time, into: &outputs)
            } else if options.promotionPickWait > 0 {
                let fallback = options.validPromotionDefault
                let move = group.first { $0.move.promotion == fallback }?.move ?? group[0].move
                pending = PendingCommit(
                    move: move, alternatives: group, time: time, deadline: time + options.promotionPickWait)
            } else {
                let fallback = options.validPromotionDefault
                commit(group.first { $0.move.promotion == fallback }?.move ?? group[0].move, at: time, into: &outputs)
            }
        } else {
            commit(group[0].move, at: time, into: &outputs)
        }
        observed = nil
        touched = 0
        apply(reportedVerdict(), at: time, into: &outputs)
    }

    /// Commits a promotion still waiting for its pick with the default piece (another
    /// event arrived first).
    mutating func resolveReportedPending(into outputs: inout [TrackerOutput]) {
        guard inputPath == .reportedMoves, let pending else { return }
        self.pending = nil
        commit(pending.move, at: pending.time, into: &outputs)
    }

    /// The sync state of a move-reporting board: out of sync after a rejected report, in
    /// progress while a promotion waits or the occupancy shows a move not yet reported.
    func reportedVerdict() -> Verdict {
        if reportedMismatch != 0 { return .outOfSync(reportedMismatch) }
        if pending != nil { return .inProgress }
        guard let occupancy = observed, occupancy != analysis.occupancy else { return .inSync }
        let difference = occupancy ^ analysis.occupancy
        if analysis.legal.contains(where: { $0.resultOccupancy == occupancy }) || legalMovePassesThrough(difference) {
            return .inProgress
        }
        return .unexplained(difference)
    }

    /// The illegal move a move-reporting board's sensors show, alerted, as the verdict
    /// (out of sync on the squares that differ); `nil` when they show none. The board's
    /// own engine refuses such a move and reports nothing (a bishop moved like a rook, a
    /// pinned piece moved, castling without the right): only the occupancy tells. Judged
    /// as the occupancy path judges (capture shape first, then the states a legal move
    /// passes through, which win, then a move into check, then any relocation), and only
    /// while the game is caught up with the board (no report held for its state, refused or
    /// waiting for its pick, no gap since a new link) and no legal move ends on what stands.
    mutating func sensedIllegalMove(into outputs: inout [TrackerOutput]) -> Verdict? {
        guard sensesOccupancy, !isGameOver, !decidesByState, !catchingUp, reportedMismatch == 0, pending == nil,
            let occupancy = observed,
            occupancy != analysis.occupancy, !analysis.legal.contains(where: { $0.resultOccupancy == occupancy })
        else { return nil }
        let difference = occupancy ^ analysis.occupancy
        let captured = shownRelocation(occupancy, difference: difference, captureShaped: true)
        if captured == nil, legalMovePassesThrough(difference) { return nil }
        guard
            let illegal = captured ?? shapedIllegalMove(occupancy)
                ?? shownRelocation(occupancy, difference: difference, captureShaped: false)
        else { return nil }
        alertIllegal(.move(illegal.move), move: illegal.move, reason: illegal.reason, into: &outputs)
        return .outOfSync(difference)
    }
}
