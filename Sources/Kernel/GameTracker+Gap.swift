import BoardKit
import Chess
import FoundationEssentials

/// Moves made while nobody watched: after a new link or a restore, what the board shows
/// is searched for the legal lines that lead there from the game position
/// (``GapSearch``). One shortest line is committed move by move, each marked
/// ``CommittedMove/recovered``; several, or none within the bounds, are reported as
/// ``TrackerOutput/missedMoves(_:)`` and the board is out of sync at once (never a guess).
///
/// What the board shows after a gap no line read is kept (``GapObservations``): a line
/// found later is taken only when it passes through all of it, so that moves which undid
/// part of an unread gap are never read as a shorter line to the same position.
extension GameTracker {
    /// The longest gap searched on a piece-identity board, in plies.
    static let identityGapPlies = 4
    /// The longest gap searched on an occupancy board, in plies (occupancy says less, so
    /// longer gaps are rarely unambiguous).
    static let occupancyGapPlies = 6
    /// The most positions an occupancy board's search expands (every placement that fills
    /// the squares shown is listed; in a release build 19 ms for a median gap, 271 ms for the
    /// worst of the bench's 1 000); past that the gap is too far to read. Four times as many
    /// listed 2 more of 150 gaps, won none back and took twice the memory.
    static let occupancyGapNodes = 100_000
    /// The same once play went on after a gap (more boards than one move in progress shows:
    /// the search can then read no line, only report, and each board the game shows must not
    /// cost the full search), and from each history of an ambiguous gap when the link
    /// dropped again.
    static let occupancyLaterNodes = 5_000

    /// The least time one ply takes at a board, in seconds: both players at bullet pace,
    /// each reaching, moving a piece and pressing the clock in about a second.
    static let fastestPly: TimeInterval = 0.5

    /// The most plies that can have been made by `time` since the link dropped: `limit`, or
    /// fewer when the gap was short (a ply under way when it dropped, and one more for
    /// each ``fastestPly`` since the board last showed something). A blip of a second
    /// holds three plies at most, so the lines of four that would fill the same squares
    /// with other pieces are ruled out and the board read.
    func gapPlies(within limit: Int, at time: TimeInterval) -> Int {
        guard let since = gapSince, time >= since else { return limit }
        let plies = 1 + (time - since) / Self.fastestPly
        return plies < Double(limit) ? Int(plies) : limit
    }

    /// Searches the gap to `target` (which differs from the game on `difference`) and
    /// commits or reports what it finds; returns the verdict for the board.
    mutating func reconcileGap(
        to target: GapSearch.Target, difference: UInt64, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) -> Verdict {
        guard !isGameOver else { return .unexplained(difference) }
        guard difference != 0 else {
            // The board shows the game position again: the empty line, if what was seen
            // since lies on it.
            return takeGapLine([], to: target, difference: difference, at: time, into: &outputs)
        }
        switch search(from: game.position, board: analysis.board, to: target, at: time) {
        case .line(let moves):
            return takeGapLine(moves, to: target, difference: difference, at: time, into: &outputs)
        case .ambiguous(let plies, let lines):
            // Histories start from the first board after the gap only: a later one may be a
            // move half made (a piece in the hand), which no history of the gap explains.
            let first = gapObservations.isEmpty
            gapObservations.record(target)
            if first, let histories = GapHistories(lines: lines, from: game.position, board: analysis.board, at: time) {
                // Nothing is committed yet, not even what every line begins with: the lines
                // are the shortest ones, and a longer truth (a tempo lost, which leaves the
                // other side to move) shows only once play goes on.
                gapHistories = histories
                report(histories, difference, &outputs)
                return .outOfSync(difference)
            }
            let listed = lines.count > GapSearch.maxLines ? [] : lines.map { $0.map(\.uci) }
            reportMissed(MissedMoves(plies: plies, candidates: listed), difference, &outputs)
            return .outOfSync(difference)
        case .notFound:
            // Maybe a move in progress, maybe too far: the grace decides (even for what
            // looks like half a move), and the board that stays so is out of sync with
            // missed moves as its reason, when it looks like moves were made (more than
            // one square differs; one piece gone is a knock).
            if difference.nonzeroBitCount >= 2 {
                gapObservations.record(target)
                if !gapReported { gapMissed = MissedMoves(plies: nil, candidates: []) }
            }
            return .unexplained(difference)
        }
    }

    /// The lines from `position` (placed as `board`) to `target`: the shortest ones on a
    /// piece board; on an occupancy board every placement that fills the squares, each with
    /// its shortest lines (ambiguous when more than one line, or when the search gave up
    /// after it found one; not found when it gave up before, which the grace then judges as
    /// a gap too far).
    private func search(
        from position: Position, board: PackedBoard, to target: GapSearch.Target, at time: TimeInterval
    ) -> GapSearch.Outcome {
        switch target {
        case .placement(let placement):
            var search = GapSearch(maxPlies: gapPlies(within: Self.identityGapPlies, at: time))
            return search.run(from: position, board: board, to: placement)
        case .occupancy(let occupancy):
            let nodes =
                gapObservations.count <= GapObservations.oneMove ? Self.occupancyGapNodes : Self.occupancyLaterNodes
            let plies = gapPlies(within: Self.occupancyGapPlies, at: time)
            switch Self.occupancyLines(from: position, board: board, occupancy, plies: plies, nodes: nodes) {
            case .lines(let lines):
                guard let first = lines.first else { return .notFound }
                return lines.count == 1 ? .line(first) : .ambiguous(plies: first.count, lines: lines)
            case .tooMany(let plies):
                // A line found, but maybe others to other placements: never read as it.
                guard let plies else { return .notFound }
                return .ambiguous(plies: plies, lines: [])
            }
        }
    }

    /// Every line of up to `plies` from `position` (placed as `board`) to each placement
    /// that fills `occupancy` (``OccupancyGapSearch``), searching at most `nodes` positions.
    private static func occupancyLines(
        from position: Position, board: PackedBoard, _ occupancy: UInt64, plies: Int, nodes: Int
    ) -> OccupancyGapSearch.Found {
        var search = OccupancyGapSearch(maxPlies: plies)
        search.nodeLimit = nodes
        return search.lines(from: position, board: board, occupancy: occupancy)
    }

    /// While an ambiguous gap's histories are followed, judges what the board shows by them
    /// (``GapHistories/observe(_:touched:at:)``): commits what they all agree on, reports
    /// them again when they changed, and says whether the board is in sync.
    mutating func followHistories(
        to target: GapSearch.Target, touched: UInt64?, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) -> Verdict {
        guard var histories = gapHistories else { return .unexplained(0) }
        // After a new link the squares touched are counted from the game, not from the
        // histories' ends: no move of theirs is held to them.
        let relinked = histories.relinked
        var outcome = histories.observe(target, touched: relinked ? nil : touched, at: time)
        if relinked, outcome == .unexplained, difference(to: target) != 0 {
            outcome = histories.bridge({ lines(from: $0, board: $1, to: target, at: time) }, at: time)
        }
        // Only the first board after the link came back is searched so (a later one may be
        // a move half made).
        histories.relinked = false
        gapHistories = histories
        switch outcome {
        case .unexplained:
            // The board back on the game position: the moves were taken back, or it was set
            // up again (``takeGapLine(_:to:difference:at:into:)`` judges the empty line).
            let difference = difference(to: target)
            guard difference == 0 else { return .outOfSync(difference) }
            return takeGapLine([], to: target, difference: 0, at: time, into: &outputs)
        case .overflowed:
            gapHistories = nil
            reportMissed(MissedMoves(plies: nil, candidates: []), difference(to: target), &outputs)
            return .outOfSync(difference(to: target))
        case .explained(let changed):
            // What is touched from now on belongs to the next move.
            self.touched = 0
            lastPlaced = nil
            guard histories.followedPlay else {
                // Shown, not committed: the lines still lead to the board as it is now.
                if changed { report(histories, difference(to: target), &outputs) }
                return .outOfSync(difference(to: target))
            }
            return afterHistories(to: target, at: time, reporting: changed, into: &outputs)
        }
    }

    /// Every shortest line (on an occupancy board: to each placement) from `position` to
    /// `target`, for a history crossing a new gap; `nil` when too many to follow.
    private func lines(
        from position: Position, board: PackedBoard, to target: GapSearch.Target, at time: TimeInterval
    ) -> [[Move]]? {
        switch target {
        case .placement:
            switch search(from: position, board: board, to: target, at: time) {
            case .line(let line): return [line]
            case .ambiguous(_, let lines): return lines.isEmpty ? nil : lines
            case .notFound: return []
            }
        case .occupancy(let occupancy):
            let plies = gapPlies(within: Self.occupancyGapPlies, at: time)
            let found = Self.occupancyLines(
                from: position, board: board, occupancy, plies: plies, nodes: Self.occupancyLaterNodes)
            guard case .lines(let lines) = found else { return nil }
            return lines
        }
    }

    /// Commits the moves every history agrees on; the board is in sync when one history is
    /// left and all of it is in; otherwise the histories left are reported (when
    /// `reporting`, or when moves were committed) and the board is out of sync.
    private mutating func afterHistories(
        to target: GapSearch.Target, at time: TimeInterval, reporting: Bool, into outputs: inout [TrackerOutput]
    ) -> Verdict {
        guard var histories = gapHistories else { return .unexplained(0) }
        let certain = histories.takeCertainMoves()
        gapHistories = histories
        for (move, seen) in certain {
            guard analysis.candidate(for: move) != nil else { break }
            commit(move, at: seen, recovered: true, into: &outputs)
        }
        if histories.isRead {
            closeGap()
            return difference(to: target) == 0 ? .inSync : .unexplained(difference(to: target))
        }
        if reporting || !certain.isEmpty { report(histories, difference(to: target), &outputs) }
        return .outOfSync(difference(to: target))
    }

    /// Reports the histories left as the gap's missed moves (their lines, when few).
    private mutating func report(_ histories: GapHistories, _ difference: UInt64, _ outputs: inout [TrackerOutput]) {
        reportMissed(MissedMoves(plies: histories.plies, candidates: histories.listed), difference, &outputs)
    }

    /// The squares where `target` differs from the game position.
    private func difference(to target: GapSearch.Target) -> UInt64 {
        switch target {
        case .placement(let board): board.differences(from: analysis.board)
        case .occupancy(let bits): bits ^ analysis.occupancy
        }
    }

    /// Commits `moves`, the one line found to `target`, when what the board showed since
    /// the gap lies on it; otherwise the gap stays missed (reported once) and the board out
    /// of sync.
    private mutating func takeGapLine(
        _ moves: [Move], to target: GapSearch.Target, difference: UInt64, at time: TimeInterval,
        into outputs: inout [TrackerOutput]
    ) -> Verdict {
        guard gapObservations.allow(moves, from: game.position, showing: target), readsAfterTheGap(target) else {
            gapObservations.record(target)
            gapMissed = nil
            reportMissed(gapReported ? nil : MissedMoves(plies: nil, candidates: []), difference, &outputs)
            return .outOfSync(difference)
        }
        for move in moves {
            guard analysis.candidate(for: move) != nil else { break }
            commit(move, at: time, recovered: true, into: &outputs)
        }
        closeGap()
        return .inSync
    }

    /// Whether a line from the game position may still be read for a board of `target`'s kind:
    /// on an occupancy board only while the boards seen since the gap are no more than one
    /// move in progress makes (``GapObservations/oneMove``). Past that, play has gone on, the
    /// true line may be longer than the search reaches, and a line within its bound that
    /// fills the same squares is no reading (issue #29): the gap stays the histories' or the
    /// arbiter's.
    private func readsAfterTheGap(_ target: GapSearch.Target) -> Bool {
        guard case .occupancy = target else { return true }
        return gapObservations.count <= GapObservations.oneMove
    }

    /// Whether a gap is being caught up and something the board showed since was not read:
    /// the board is then judged only as a whole line from the game that passes through all
    /// of it (``reconcileGap(to:difference:at:into:)``), never as one move from the game
    /// position, which the board left long ago.
    var isGapUnread: Bool { catchingUp && !gapObservations.isEmpty }

    /// Reports the missed moves of a gap found too far, as the board goes out of sync.
    mutating func reportGapBeforeOutOfSync(into outputs: inout [TrackerOutput]) {
        guard catchingUp, let gapMissed else { return }
        self.gapMissed = nil
        gapReported = true
        noteMissed(gapMissed, into: &outputs)
    }

    /// Reports missed moves (`nil`: reported already for this gap), with the out-of-sync
    /// state they mean right after (even when the board was out of sync already, so that the
    /// report has its state).
    private mutating func reportMissed(
        _ missed: MissedMoves?, _ difference: UInt64, _ outputs: inout [TrackerOutput]
    ) {
        if let missed {
            noteMissed(missed, into: &outputs)
            gapReported = true
        }
        syncState = .outOfSync(mismatched: difference.squares)
        outputs.append(.syncChanged(syncState))
    }

    /// The gap the board is out of sync for: the one open, unless the board waits for a set-up
    /// (whose reason comes first, in the state and in its events).
    public var outOfSyncGap: MissedMoves? { setUpWait == nil ? openGap : nil }

    /// Ends the gap being caught up (the board was read, or the arbiter named the line):
    /// nothing seen during it is judged again, and nothing of it is open any more.
    mutating func closeGap() {
        catchingUp = false
        gapMissed = nil
        gapObservations.clear()
        gapHistories = nil
        gapReported = false
        openGap = nil
    }

    /// Reports `missed` and keeps it as the gap open for the arbiter (``openGap``); with a
    /// gap open already, as its update (``MissedMoves/isUpdate``), and only when its
    /// candidates changed (`candidates` "each time they change"): every later board of a gap
    /// too wide to list was reported anew, one `missed_moves` correction per move after it.
    mutating func noteMissed(_ missed: MissedMoves, into outputs: inout [TrackerOutput]) {
        if let openGap, openGap.candidates == missed.candidates { return }
        var missed = missed
        missed.isUpdate = openGap != nil
        openGap = missed
        outputs.append(.missedMoves(missed))
    }
}

extension BoardEvent {
    /// Whether the event shows what stands on the board (a state, a square, a move made):
    /// the moves of a gap were made after the last such event before the link dropped.
    var showsTheBoard: Bool {
        switch self {
        case .pieces, .gameState, .occupancy, .pieceLifted, .piecePlaced, .moveReported: true
        default: false
        }
    }
}
