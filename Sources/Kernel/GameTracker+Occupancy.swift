import BoardKit
import Chess
import FoundationEssentials

/// The occupancy path: the board only says which squares hold a piece, so a move is
/// inferred from which squares were touched (lifted or placed) since the board last
/// matched the game, and from the occupancy that results.
///
/// A legal move is recognised when the occupancy equals its result and every square it
/// changes was touched; that covers every real-world order (the captured piece lifted
/// before or after the capturing piece, king or rook first when castling, the
/// en-passant pawn removed at any time). A capture is told from a mere lift by the
/// touched target square; two captures that fit are told apart by the square placed last.
extension GameTracker {
    mutating func observeLift(_ square: Square, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        // A square change is relative to a board state: before the first full state since the
        // link came up (or the game was restored), there is none to apply it to. Taking the
        // game's own position for it would read moves played while the bridge was away as
        // one move from the game (issue #29). The full state the handshake asks for shows
        // the change too: boards switch their updates on before they send it.
        guard let before = observed else { return }
        let bit = UInt64(1) << UInt64(square.rawValue)
        observed = before & ~bit
        touch(bit)
        if judgeUnreadGap(at: time, lifted: true, into: &outputs) { return }
        judgeOccupancy(at: time, into: &outputs)
    }

    mutating func observePlace(
        _ square: Square, piece: Piece?, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) {
        guard let before = observed else { return }  // no full state yet (see observeLift)
        let bit = UInt64(1) << UInt64(square.rawValue)
        observed = before | bit
        touch(bit)
        lastPlaced = square
        let mover = game.position.sideToMove
        if let piece, piece.color == mover, [.knight, .bishop, .rook, .queen].contains(piece.kind),
            square.rank == (mover == .white ? 7 : 0)
        {
            pick = piece.kind
        }
        if judgeUnreadGap(at: time, into: &outputs) { return }
        judgeOccupancy(at: time, into: &outputs)
    }

    mutating func observeOccupancy(_ bits: UInt64, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        let before = observed ?? analysis.occupancy
        if observed != nil, bits == before {
            outputs += tick(at: time)
            return
        }
        let filled = bits & ~before
        touch((before & ~bits) | filled)
        if filled.nonzeroBitCount == 1 { lastPlaced = Square(rawValue: filled.trailingZeroBitCount) }
        observed = bits
        if judgeUnreadGap(at: time, into: &outputs) { return }
        judgingGap = catchingUp && inputPath == .occupancy
        defer { judgingGap = false }
        if catchingUp, inputPath == .occupancy, pending == nil, suppressed == nil, bits != analysis.occupancy {
            // A full dump after a new link or a restore: moves may have been made meanwhile.
            let verdict = reconcileGap(
                to: .occupancy(bits), difference: bits ^ analysis.occupancy, at: time, into: &outputs)
            switch verdict {
            case .inSync:
                touched = 0
                lastPlaced = nil
                apply(verdict, at: time, into: &outputs)
                return
            case .outOfSync:
                // The gap's squares are no move's: nothing is committed from them.
                touched = 0
                lastPlaced = nil
                apply(verdict, at: time, into: &outputs)
                return
            case .inProgress, .unexplained:
                break
            }
        }
        judgeOccupancy(at: time, into: &outputs)
    }

    /// While a gap is unread (``isGapUnread``), judges the occupancy seen only as a whole
    /// line from the game; returns whether it did.
    /// After a lift (`lifted`) a piece is in the hand: the board is a move half made, which is
    /// never read as a line (a piece lifted leaves the squares a capture leaves); it is only
    /// kept as a board the line must pass.
    private mutating func judgeUnreadGap(
        at time: TimeInterval, lifted: Bool = false, into outputs: inout [TrackerOutput]
    ) -> Bool {
        if inputPath == .occupancy, gapHistories != nil, let bits = observed {
            apply(
                followHistories(to: .occupancy(bits), touched: touched, at: time, into: &outputs), at: time,
                into: &outputs)
            return true
        }
        guard inputPath == .occupancy, isGapUnread, let bits = observed else { return false }
        if lifted {
            gapObservations.record(.occupancy(bits))
            let difference = bits ^ analysis.occupancy
            apply(syncState.isOutOfSync ? .outOfSync(difference) : .unexplained(difference), at: time, into: &outputs)
            return true
        }
        let verdict = reconcileGap(
            to: .occupancy(bits), difference: bits ^ analysis.occupancy, at: time, into: &outputs)
        touched = 0
        lastPlaced = nil
        apply(verdict, at: time, into: &outputs)
        return true
    }

    mutating func observePick(_ kind: PieceKind, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        guard [.knight, .bishop, .rook, .queen].contains(kind) else { return }
        pick = kind
        switch inputPath {
        case .identity: break
        case .occupancy: apply(classifyOccupancy(at: time, into: &outputs), at: time, into: &outputs)
        case .reportedMoves:
            if holdPick(kind) {
                pick = nil
                return
            }
            if let pending, let chosen = pending.alternatives.first(where: { $0.move.promotion == kind }) {
                self.pending = nil
                commit(chosen.move, at: pending.time, into: &outputs)
            }
            apply(reportedVerdict(), at: time, into: &outputs)
        }
    }

    private mutating func touch(_ bits: UInt64) {
        touched |= bits
        if pending != nil { touchedSincePending |= bits }
    }

    private mutating func judgeOccupancy(at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        if inputPath == .reportedMoves {
            resolveReportedPending(into: &outputs)
            if observed == analysis.occupancy { reportedMismatch = 0 }
            apply(sensedIllegalMove(into: &outputs) ?? reportedVerdict(), at: time, into: &outputs)
        } else {
            var verdict = classifyOccupancy(at: time, into: &outputs)
            if judgingGap, gapMissed != nil, case .inProgress = verdict, let observed {
                // Moves were missed: what looks like half a move is no reason to wait.
                verdict = .unexplained(observed ^ analysis.occupancy)
            }
            apply(verdict, at: time, into: &outputs)
        }
    }

    /// Judges the observed occupancy, committing the moves and takebacks it shows.
    mutating func classifyOccupancy(at time: TimeInterval, into outputs: inout [TrackerOutput]) -> Verdict {
        guard let occupancy = observed else { return .inSync }
        if setUpWait != nil, let verdict = judgeSetUp(difference: occupancy ^ analysis.occupancy) { return verdict }
        if pending != nil, let verdict = resolveOccupancyPending(occupancy, at: time, into: &outputs) {
            return verdict
        }
        let expected = analysis.occupancy
        if occupancy == expected {
            // A pick stays: boards may report it before the promoting move.
            touched = 0
            lastPlaced = nil
            return .inSync
        }
        if let suppressed {
            // The host took back the move the board still shows.
            if suppressed.occupancy == occupancy { return .unexplained(occupancy ^ expected) }
            self.suppressed = nil
        }
        let matches = analysis.legal.filter { $0.resultOccupancy == occupancy && $0.changed & ~touched == 0 }
        if !matches.isEmpty {
            guard let group = choose(matches) else { return .inProgress }
            let move: Move
            if group[0].isPromotion {
                if let pick, let picked = group.first(where: { $0.move.promotion == pick }) {
                    move = picked.move
                } else if options.promotionPickWait > 0 {
                    startPending(group, default: options.validPromotionDefault, at: time)
                    return .inProgress
                } else {
                    move = group.first { $0.move.promotion == options.validPromotionDefault }?.move ?? group[0].move
                }
            } else if let castling = group[0].castlingCompletion, options.castlingWait > 0,
                let completion = analysis.candidate(for: castling)
            {
                pending = PendingCommit(
                    move: group[0].move, alternatives: [completion], time: time, deadline: time + options.castlingWait)
                touchedSincePending = 0
                return .inProgress
            } else {
                move = group[0].move
            }
            commit(move, at: time, into: &outputs)
            touched = 0
            lastPlaced = nil
            return classifyOccupancy(at: time, into: &outputs)
        }
        for depth in 1...max(1, recent.count) where depth <= recent.count {
            let earlier = recent[recent.count - depth].board
            if earlier.occupancy == occupancy, earlier.differences(from: analysis.board) & ~touched == 0 {
                performTakeback(plies: depth, into: &outputs)
                return .inSync
            }
        }
        if occupancy == Self.startBoard.occupancy, startPositionMeansNewGame() {
            startNewGameFromBoard(at: time, into: &outputs)
            return .inSync
        }
        let difference = occupancy ^ expected
        if let illegal = shownRelocation(occupancy, difference: difference, captureShaped: true) {
            alertIllegal(.move(illegal.move), move: illegal.move, reason: illegal.reason, into: &outputs)
            return .outOfSync(difference)
        }
        // A state some legal move passes through goes first (cheap, and normal play then
        // never generates the illegal moves). Occupancy alone cannot always tell an
        // illegal move from half a legal one; the legal reading wins.
        if legalMovePassesThrough(difference) {
            return .inProgress
        }
        if let illegal = shapedIllegalMove(occupancy) {
            alertIllegal(.move(illegal.move), move: illegal.move, reason: illegal.reason, into: &outputs)
            return .outOfSync(difference)
        }
        // The piece just moved was lifted again and put elsewhere (a slide, or a change
        // of mind): the last move is corrected. Only the same piece counts: occupancy
        // cannot tell another piece of the same side moved there instead from a knock.
        let landed = game.moves.last.map { UInt64(1) << UInt64($0.move.to.rawValue) } ?? 0
        if let previousAnalysis, let lastMove = game.moves.last?.move, !recent.isEmpty, touched & landed != 0 {
            let lastChanged = previousAnalysis.candidate(for: lastMove)?.changed ?? 0
            if let corrected = previousAnalysis.legal.first(where: {
                $0.move.from == lastMove.from && $0.move != lastMove && $0.resultOccupancy == occupancy
                    && $0.changed & ~(touched | lastChanged) == 0
            }) {
                performTakeback(plies: 1, into: &outputs)
                commit(corrected.move, at: time, into: &outputs)
                touched = 0
                lastPlaced = nil
                return .inSync
            }
        }
        if let illegal = shownRelocation(occupancy, difference: difference, captureShaped: false) {
            alertIllegal(.move(illegal.move), move: illegal.move, reason: illegal.reason, into: &outputs)
            return .outOfSync(difference)
        }
        return .unexplained(difference)
    }

    /// Whether some legal move passes through a board that differs from the game on
    /// `difference` (half a move made).
    func legalMovePassesThrough(_ difference: UInt64) -> Bool {
        analysis.legal.contains { difference & ~$0.changed == 0 }
    }

    /// The move of the right shape that is not legal (into check, a pinned piece, castling
    /// through check or without the right) whose result `occupancy` shows, made on touched
    /// squares only.
    mutating func shapedIllegalMove(_ occupancy: UInt64) -> (move: Move, reason: IllegalMove.Reason)? {
        guard
            let shaped = illegalCandidates().first(where: {
                $0.resultOccupancy == occupancy && $0.changed & ~touched == 0
            })
        else { return nil }
        return (shaped.move, shaped.isCastling ? .castlingNotAllowed : .leavesKingInCheck)
    }

    /// The illegal move the last lift and place show: a piece lifted from one square and
    /// put on another (`captureShaped`: on a square whose opponent's piece was lifted, so
    /// the occupancy differs on the piece's old square only), when no legal move
    /// explains it. The capture shape is judged before the states a legal move passes
    /// through (a lifted piece with legal moves looks like one), so it asks for exactly
    /// those two squares touched, the second placed last.
    func shownRelocation(
        _ occupancy: UInt64, difference: UInt64, captureShaped: Bool
    ) -> (move: Move, reason: IllegalMove.Reason)? {
        guard !isGameOver, let placed = lastPlaced else { return nil }
        let to = placed.rawValue
        let toBit = UInt64(1) << UInt64(to)
        guard occupancy & toBit != 0, touched & toBit != 0 else { return nil }
        let expected = analysis.occupancy
        if captureShaped {
            guard difference.nonzeroBitCount == 1, expected & toBit != 0, touched == difference | toBit else {
                return nil
            }
            let from = difference.trailingZeroBitCount
            let mover = analysis.board.code(at: from)
            let victim = analysis.board.code(at: to)
            let moverIsWhite = mover & 8 == 0
            guard mover != 0, victim != 0, victim & 8 != mover & 8, moverIsWhite == (game.position.sideToMove == .white)
            else { return nil }
            return analysis.illegalRelocation(from: from, to: to)
        }
        guard difference.nonzeroBitCount == 2, difference & toBit != 0, expected & toBit == 0 else { return nil }
        let fromBit = difference & ~toBit
        guard expected & fromBit != 0, touched & fromBit != 0 else { return nil }
        return analysis.illegalRelocation(from: fromBit.trailingZeroBitCount, to: to)
    }

    /// The move (as a group of promotion choices) the touched squares mean, or `nil` when
    /// several fit equally.
    private func choose(_ matches: [MoveCandidate]) -> [MoveCandidate]? {
        var groups: [[MoveCandidate]] = []
        for match in matches {
            if let index = groups.firstIndex(where: {
                $0[0].move.from == match.move.from && $0[0].move.to == match.move.to
            }) {
                groups[index].append(match)
            } else {
                groups.append([match])
            }
        }
        if groups.count == 1 { return groups[0] }
        let placedLast = groups.filter { $0[0].move.to == lastPlaced }
        return placedLast.count == 1 ? placedLast[0] : nil
    }

    private mutating func startPending(_ group: [MoveCandidate], default kind: PieceKind, at time: TimeInterval) {
        let move = group.first { $0.move.promotion == kind }?.move ?? group[0].move
        pending = PendingCommit(move: move, alternatives: group, time: time, deadline: time + options.promotionPickWait)
        touchedSincePending = 0
    }

    /// Settles a pending move against the occupancy; returns a verdict while it still waits.
    private mutating func resolveOccupancyPending(
        _ occupancy: UInt64, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) -> Verdict? {
        guard let pending, let first = pending.alternatives.first else {
            self.pending = nil
            return nil
        }
        if first.isPromotion {
            if let pick, let picked = pending.alternatives.first(where: { $0.move.promotion == pick }) {
                self.pending = nil
                commit(picked.move, at: pending.time, into: &outputs)
                afterPendingCommit(picked.move)
                return nil
            }
            let target = UInt64(1) << UInt64(first.move.to.rawValue)
            if (occupancy ^ first.resultOccupancy) & ~target == 0 { return .inProgress }
        } else {
            if occupancy == first.resultOccupancy, first.changed & ~touched == 0 {
                self.pending = nil
                commit(first.move, at: time, into: &outputs)
                touched = 0
                lastPlaced = nil
                return nil
            }
            let difference = occupancy ^ analysis.occupancy
            if difference != 0, difference & ~first.changed == 0 { return .inProgress }
            if difference == 0 {
                self.pending = nil
                return nil
            }
        }
        self.pending = nil
        commit(pending.move, at: pending.time, into: &outputs)
        afterPendingCommit(pending.move)
        return nil
    }
}
