import BoardKit
import Chess
public import FoundationEssentials

/// When a move-reporting board's reports are confirmed by the board's own game before
/// they are committed (ChessUp: its `67` state frame, full placement).
///
/// A report names a move and nothing else: no ply, no sequence number. When the link loses
/// a notification (bluetoothd drops what its notify socket has no room for), the next
/// report is taken for the lost one's successor; after an even number of lost reports it
/// is often legal in the game position and would be committed in the wrong place. That
/// cannot be seen in the reports, so they are not trusted where losses happen: a report
/// that comes ``burstInterval`` after the one before (the bridge is working through a
/// backlog, or the board plays faster than hands can), a report the game position rejects
/// (a report was lost, or a stale one came back), and every report after either until a
/// state taken once the board was quiet for ``trustDelay`` confirms the game (a report lost
/// at the end of a burst shows in no later report). Such reports are held, the board is
/// asked for its state, and the state decides (``ReportedLineSearch``): the line that
/// explains it is committed, the moves nobody reported marked recovered; an ambiguous or
/// too distant state is refused as missed moves, out of sync, and nothing more is committed
/// until the board shows the game's position again or a new game or position is set.
public struct ReportCheck: Hashable, Sendable {
    /// Reports closer together than this (seconds) are held for the board's state.
    public var burstInterval: TimeInterval
    /// How long the board must have been quiet (no report) before a state that confirms
    /// the game makes reports trusted again (seconds).
    public var trustDelay: TimeInterval
    /// How long a state request waits for its answer before it is sent again (seconds).
    public var retryInterval: TimeInterval
    /// The most reports held for one state (more: the gap is too long to search).
    public var maxHeld: Int

    /// Creates a policy.
    public init(burstInterval: TimeInterval, trustDelay: TimeInterval, retryInterval: TimeInterval, maxHeld: Int) {
        self.burstInterval = burstInterval
        self.trustDelay = trustDelay
        self.retryInterval = retryInterval
        self.maxHeld = maxHeld
    }

    /// Never holds: every legal report is committed at once, a rejected one is an illegal move.
    public static let off = ReportCheck(burstInterval: 0, trustDelay: 0, retryInterval: 0, maxHeld: 0)
    /// The bridge's policy for a ChessUp: reports under 0.3 s apart (no two hands play that
    /// fast) are confirmed, and every report after until the board was quiet for 2 s (a
    /// stale retransmission comes back within a few retransmission intervals); a lost
    /// answer is asked for again after 0.5 s; at most 48 reports wait for one state.
    public static let standard = ReportCheck(burstInterval: 0.3, trustDelay: 2, retryInterval: 0.5, maxHeld: 48)

    /// Whether reports are ever held.
    public var isEnabled: Bool { maxHeld > 0 }
}

/// The reports held for the board's state (see ``ReportCheck``).
struct ReportHold: Sendable {
    /// The held reports, in order, with the time each came.
    var reports: [(move: BoardMove, time: TimeInterval)] = []
    /// Whether more came than ``ReportCheck/maxHeld``.
    var overflowed = false
    /// When the last report came (held or not).
    var lastReportTime: TimeInterval?
    /// Whether reports are held until a state, asked for once the board was quiet for
    /// ``ReportCheck/trustDelay``, confirms the game.
    var awaitingState = false
    /// Whether a state could not be explained: nothing is committed until one shows the
    /// game's position.
    var refused = false
    /// When the unanswered state request went out, or `nil`.
    var askedAt: TimeInterval?
    /// Whether a state request is due (taken by the ``GameSession``).
    var requestDue = false
    /// Whether reports were held because they came after a new link before the board's
    /// state: their order is not the order they were played in (``ReportedLineSearch/unordered``).
    var sinceNewLink = false
}

extension GameTracker {
    /// Takes a due state request (the session sends ``BoardCommand/requestState``).
    mutating func takeStateRequest() -> Bool {
        guard hold.requestDue else { return false }
        hold.requestDue = false
        return true
    }

    /// When the state is asked for (again): an unanswered request after
    /// ``ReportCheck/retryInterval``, a confirmation once the board was quiet for
    /// ``ReportCheck/trustDelay``; `nil` when reports are trusted.
    var stateRetryDeadline: TimeInterval? {
        guard hold.awaitingState || hold.refused else { return nil }
        if let asked = hold.askedAt { return asked + reportCheck.retryInterval }
        return hold.awaitingState ? (hold.lastReportTime ?? 0) + reportCheck.trustDelay : nil
    }

    /// Whether `reported`, coming at `time`, must wait for the board's state: also every
    /// report before the board has shown the game since a new link or a restore
    /// (``catchingUp``). The board resends all its unacknowledged reports when the link
    /// comes up, before the host listens and again at once: the first one heard may be a
    /// later move than the first one made (after a restart, `d3` was published as the
    /// first of five moves made while the bridge was down; `Bc4` and `Nf6` came before it),
    /// and as its acks take off the oldest frames whichever the host heard, the order of
    /// the rest is not the order of play either (later `Bc5` came before `d3`): such
    /// reports are taken in any order (``ReportHold/sinceNewLink``).
    mutating func mustHold(_ reported: BoardMove, at time: TimeInterval) -> Bool {
        guard reportCheck.isEnabled else { return false }
        let burst = hold.lastReportTime.map { time - $0 < reportCheck.burstInterval } ?? false
        hold.lastReportTime = time
        if catchingUp { hold.sinceNewLink = true }
        return hold.awaitingState || hold.refused || burst || catchingUp
    }

    /// Holds `reported` until the board's state decides it, asking for the state.
    mutating func holdReport(_ reported: BoardMove, at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        if hold.reports.count < reportCheck.maxHeld {
            hold.reports.append((reported, time))
        } else {
            hold.overflowed = true
        }
        hold.lastReportTime = time
        hold.awaitingState = true
        if hold.askedAt.map({ time - $0 >= reportCheck.retryInterval }) ?? true { requestState(at: time) }
        if !hold.refused { apply(.inProgress, at: time, into: &outputs) }
    }

    /// A board-side promotion pick for the last held report.
    mutating func holdPick(_ kind: PieceKind) -> Bool {
        guard hold.awaitingState, let last = hold.reports.last else { return false }
        if last.move.promotion == nil, last.move.to.rank == 0 || last.move.to.rank == 7 {
            hold.reports[hold.reports.count - 1].move.promotion = kind
        }
        return true
    }

    /// Asks for the state when ``stateRetryDeadline`` has come.
    mutating func retryStateRequest(at time: TimeInterval) {
        guard let retry = stateRetryDeadline, time >= retry else { return }
        requestState(at: time)
    }

    /// Asks the board for its state (an undo announced on it).
    mutating func askForState(at time: TimeInterval) { requestState(at: time) }

    private mutating func requestState(at time: TimeInterval) {
        hold.requestDue = true
        hold.askedAt = time
    }

    /// Whether a state frame of the board's own game decides held reports (or a refusal).
    var decidesByState: Bool { reportCheck.isEnabled && (hold.awaitingState || hold.refused) }

    /// How many plies the board's game (`side` to move at full move `fullmove`, one byte on
    /// the wire) is ahead of the game; `nil` when it is behind.
    func pliesAhead(_ side: PieceColor, _ fullmove: Int) -> Int? {
        let ahead = pliesFromGame(side, fullmove)
        return ahead < 256 ? ahead : nil
    }

    /// The board's game (`side` to move at full move `fullmove`) less the game, in plies,
    /// modulo 512: the wire's move number wraps at 256 moves.
    func pliesFromGame(_ side: PieceColor, _ fullmove: Int) -> Int {
        let position = game.position
        let board = 2 * (fullmove - 1) + (side == .black ? 1 : 0)
        let ours = 2 * (position.fullmoveNumber - 1) + (position.sideToMove == .black ? 1 : 0)
        return ((board - ours) % 512 + 512) % 512
    }

    /// The board's own game shows `snapshot` (game coordinates), `plies` ahead of the game
    /// (`.some(nil)`: behind it; `.none`: a plain snapshot, which cannot say): the held
    /// reports are committed as the line that explains it, or refused.
    mutating func reconcileReports(
        with snapshot: BoardSnapshot, plies: Int?? = .none, at time: TimeInterval, into outputs: inout [TrackerOutput]
    ) {
        resolveReportedPending(into: &outputs)
        let target = PackedBoard(snapshot)
        sensedPlacement = target
        let held = hold.overflowed ? nil : hold.reports
        let wasRefused = hold.refused
        let unordered = hold.sinceNewLink
        hold.sinceNewLink = false
        hold.reports = []
        hold.overflowed = false
        hold.askedAt = nil
        observed = nil
        touched = 0
        if wasRefused {
            // Nothing reported since the refusal counts: only the game's own position does.
            guard target == analysis.board, plies == .none || plies == .some(0) else {
                refuse(nil, target: target, into: &outputs)
                return
            }
            accept(at: time, into: &outputs)
            return
        }
        // Without the board's move number the plies it played are unknown: never guessed.
        guard let held, !isGameOver, case .some(.some(let exact)) = plies else {
            refuse(MissedMoves(plies: nil, candidates: []), target: target, into: &outputs)
            return
        }
        // The state's answer can come after the reports of moves made meanwhile: when no line
        // plays every report, the last ones (up to three) are taken for later moves, the
        // longest prefix that some line plays deciding.
        var outcome = ReportedLineSearch.Outcome.notFound
        var consumed = held.count
        for count in stride(from: held.count, through: max(0, held.count - 3), by: -1) {
            var search = ReportedLineSearch(plies: exact)
            search.committed = game.moves.suffix(8).map(\.move)
            search.unordered = unordered
            outcome = search.run(
                from: game.position, board: analysis.board, reports: held.prefix(count).map(\.move), to: target)
            consumed = count
            if outcome != .notFound { break }
        }
        switch outcome {
        case .line(let moves, let reported):
            // Each move at the time of its report; an unreported one at the next report's.
            var times = held.map(\.time).makeIterator()
            var pendingTimes: [Int] = []
            var stamps = [TimeInterval](repeating: time, count: moves.count)
            for index in moves.indices {
                if reported[index], let stamp = times.next() {
                    for earlier in pendingTimes { stamps[earlier] = stamp }
                    pendingTimes = []
                    stamps[index] = stamp
                } else {
                    pendingTimes.append(index)
                }
            }
            for (index, move) in moves.enumerated() {
                guard analysis.candidate(for: move) != nil else { break }
                commit(move, at: stamps[index], recovered: !reported[index], into: &outputs)
            }
            accept(at: time, into: &outputs)
            let later = held.dropFirst(consumed)
            if !later.isEmpty {
                // Reports of moves made after the state: the next state decides them.
                hold.reports = Array(later)
                hold.awaitingState = true
                requestState(at: time)
                apply(.inProgress, at: time, into: &outputs)
            }
        case .ambiguous(let plies, let lines):
            refuse(MissedMoves(plies: plies, candidates: lines.map { $0.map(\.uci) }), target: target, into: &outputs)
        case .notFound:
            refuse(MissedMoves(plies: nil, candidates: []), target: target, into: &outputs)
        }
    }

    /// The state confirmed the game. Reports are trusted again only when the board had been
    /// quiet for ``ReportCheck/trustDelay`` (a report lost at the end of a burst shows only
    /// in a later state); until then they are held, and a state is asked for once it is.
    private mutating func accept(at time: TimeInterval, into outputs: inout [TrackerOutput]) {
        hold.refused = false
        hold.awaitingState = time - (hold.lastReportTime ?? -.infinity) < reportCheck.trustDelay
        reportedMismatch = 0
        apply(reportedVerdict(), at: time, into: &outputs)
    }

    /// Out of sync with `missed` as the reason (given once per refusal: `nil` when it was).
    private mutating func refuse(_ missed: MissedMoves?, target: PackedBoard, into outputs: inout [TrackerOutput]) {
        let difference = target.differences(from: analysis.board)
        reportedMismatch = difference
        hold.refused = true
        hold.awaitingState = false
        if let missed { noteMissed(missed, into: &outputs) }
        let state = SyncState.outOfSync(mismatched: difference.squares)
        if missed != nil || state != syncState {
            syncState = state
            outputs.append(.syncChanged(state))
        }
    }
}
