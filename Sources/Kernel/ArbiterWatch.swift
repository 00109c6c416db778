import BoardKit
public import Chess
public import FoundationEssentials

/// Alerts for the arbiter before anyone asks (issue #30): a timed game's clock paused too
/// long with no result, a board that differs from its game too long, and a result recorded
/// or claimed that the position does not support. Pure: it looks at the session after each
/// change and at ``nextDeadline``; each alert is given once per stretch (a pause, an
/// out-of-sync stretch) or per result.
public struct ArbiterWatch: Sendable {
    /// How long a stretch lasts before it is alerted; 0 turns the alert off.
    public struct Limits: Hashable, Sendable {
        /// A timed game's clock paused, with no result (seconds; default 300).
        public var clockPaused: TimeInterval
        /// The board out of sync with its game (seconds; default 120).
        public var outOfSync: TimeInterval

        /// The limits.
        public init(clockPaused: TimeInterval = 300, outOfSync: TimeInterval = 120) {
            self.clockPaused = clockPaused
            self.outOfSync = outOfSync
        }
    }

    /// An alert, for the `alert` event (`reason` and a sentence for people).
    public struct Alert: Hashable, Sendable {
        /// `clock_paused`, `out_of_sync_long` or `result_unsupported`.
        public var reason: String
        /// What the arbiter should know, in a sentence.
        public var detail: String
    }

    /// A stretch of time something lasts (a pause, an out-of-sync board), alerted once.
    struct Stretch: Sendable {
        var since: TimeInterval?
        var alerted = false

        /// Follows the stretch to `time` (`lasting`: whether it still does); returns how long
        /// it has lasted when that reaches `limit` for the first time (0 never does).
        mutating func update(lasting: Bool, at time: TimeInterval, limit: TimeInterval) -> TimeInterval? {
            guard lasting else {
                self = Stretch()
                return nil
            }
            let start = since ?? time
            since = start
            guard !alerted, limit > 0, time - start >= limit else { return nil }
            alerted = true
            return time - start
        }

        /// When it reaches `limit`, while it lasts and is not alerted yet.
        func deadline(_ limit: TimeInterval) -> TimeInterval? {
            guard let since, !alerted, limit > 0 else { return nil }
            return since + limit
        }
    }

    /// The limits.
    public var limits: Limits
    private var paused = Stretch()
    private var outOfSync = Stretch()
    private var checkedResult: GameResult = .ongoing

    /// A watch with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// When ``observe(_:outputs:at:)`` has an alert due, or `nil`.
    public var nextDeadline: TimeInterval? {
        [paused.deadline(limits.clockPaused), outOfSync.deadline(limits.outOfSync)].compactMap { $0 }.min()
    }

    /// Looks at `session` after a change (`outputs`, what it reported) or a tick at `time`.
    public mutating func observe(
        _ session: GameSession, outputs: [SessionOutput] = [], at time: TimeInterval
    ) -> [Alert] {
        var alerts: [Alert] = []
        let game = session.game
        let ongoing = game.result == .ongoing
        // A timed game's clock paused, by the gate or a command, with the game going on.
        var clockPaused = false
        if ongoing, session.clock.timeControl.isTimed, case .paused = session.clock.state { clockPaused = true }
        if let lasted = paused.update(lasting: clockPaused, at: time, limit: limits.clockPaused) {
            alerts.append(
                Alert(
                    reason: "clock_paused",
                    detail: "the clock has been paused for \(Self.duration(lasted)) with no result"))
        }
        var squares: [Square]?
        if ongoing, case .outOfSync(let mismatched) = session.syncState { squares = mismatched }
        if let lasted = outOfSync.update(lasting: squares != nil, at: time, limit: limits.outOfSync) {
            alerts.append(
                Alert(
                    reason: "out_of_sync_long",
                    detail: "the board has differed from its game for \(Self.duration(lasted)) on "
                        + (squares ?? []).map(\.name).joined(separator: " ")))
        }
        // A result recorded, or claimed with the kings, that the position does not support.
        if game.result != checkedResult {
            checkedResult = game.result
            if let problem = Self.unsupported(game.result, in: game) {
                alerts.append(Alert(reason: "result_unsupported", detail: "result \(game.result.rawValue): \(problem)"))
            }
        }
        for case .tracker(.resultClaim(let claimed)) in outputs {
            if let problem = Self.unsupported(claimed, in: game) {
                alerts.append(
                    Alert(reason: "result_unsupported", detail: "result \(claimed.rawValue) claimed: \(problem)"))
            }
        }
        return alerts
    }

    /// Why `result` cannot be the result of `game` as it stands, or `nil` when it can: the
    /// rules end the game otherwise (checkmate, stalemate, dead position), or the side given
    /// the win has no mating material (a flag then draws, FIDE 6.9).
    public static func unsupported(_ result: GameResult, in game: Game) -> String? {
        guard result != .ongoing else { return nil }
        let position = game.position
        switch game.termination {
        case .checkmate(let winner) where result != .win(for: winner):
            return "the position is checkmate, won by \(winner.rawValue)"
        case .stalemate where result != .draw:
            return "the position is stalemate, a draw"
        case .insufficientMaterial where result != .draw:
            return "neither side can mate, a draw"
        default:
            break
        }
        for color in [PieceColor.white, .black] where result == .win(for: color) {
            if position.hasInsufficientMaterial(for: color) {
                return "\(color.rawValue) has no mating material"
            }
        }
        return nil
    }

    private static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 120 ? "\(whole / 60) min" : "\(whole) s"
    }
}
