import BoardKit
public import Chess
public import FoundationEssentials

/// One change of a saved session, relative to the state before it: the line a bridge
/// appends to a board's journal after each move, takeback or clock change instead of
/// rewriting the whole ``SessionSnapshot`` (whose size grows with the game).
///
/// An entry keeps the first ``keptPlies`` moves of the state it follows, plays ``moves``
/// after them, and replaces everything else that changes while a game goes on: the result,
/// the clock, the time of saving, and — only when they changed, `nil` otherwise — the
/// clock-start policy, input path, tracker options and orientation. A new game, a set-up
/// position or changed tags cannot be expressed so: those are saved as a whole snapshot.
///
/// ``init(sequence:change:after:)`` makes entries from the kernel's ``SessionChange``,
/// ``SessionSnapshot/applying(_:)`` replays them.
/// Entries are numbered: a snapshot records the ``sequence`` of the last entry it includes
/// (``SessionSnapshot/sequence``), so entries left in a journal by a crash between writing
/// a new snapshot and emptying the journal are recognised and skipped.
public struct SessionJournalEntry: Codable, Sendable, Equatable {
    /// This entry's number (greater than that of every earlier entry and snapshot).
    public var sequence: Int
    /// How many moves of the previous state stay (fewer than it had: a takeback).
    public var keptPlies: Int
    /// The moves played after those.
    public var moves: [GameMove]
    /// The game's result afterwards.
    public var result: GameResult
    /// The clock, paused at ``savedAt``.
    public var clock: GameClock
    /// Whether the clock was running.
    public var clockWasRunning: Bool
    /// When the change was saved.
    public var savedAt: TimeInterval
    /// The clock-start policy, when it changed.
    public var clockStart: ClockStartPolicy?
    /// The input path, when it changed.
    public var inputPath: TrackerInputPath?
    /// The tracker options, when they changed.
    public var options: TrackerOptions?
    /// The orientation, when it changed (a cleared orientation cannot be expressed: that is
    /// saved as a whole snapshot).
    public var orientation: BoardOrientation?

    /// Creates an entry; the rarely changing settings are `nil` (unchanged) unless given.
    public init(
        sequence: Int, keptPlies: Int, moves: [GameMove], result: GameResult, clock: GameClock,
        clockWasRunning: Bool, savedAt: TimeInterval, clockStart: ClockStartPolicy? = nil,
        inputPath: TrackerInputPath? = nil, options: TrackerOptions? = nil, orientation: BoardOrientation? = nil
    ) {
        self.sequence = sequence
        self.keptPlies = keptPlies
        self.moves = moves
        self.result = result
        self.clock = clock
        self.clockWasRunning = clockWasRunning
        self.savedAt = savedAt
        self.clockStart = clockStart
        self.inputPath = inputPath
        self.options = options
        self.orientation = orientation
    }
}

/// Why a journal entry cannot be applied to a snapshot.
public enum SessionJournalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The entry keeps more moves than the snapshot has.
    case missingPlies(kept: Int, available: Int)
    /// A move of the entry is illegal after the kept ones.
    case illegalMove(ply: Int, uci: String)
    /// A move of the entry leads to another position than the one it recorded: the entry
    /// follows another state than this one.
    case otherPosition(ply: Int, uci: String)

    /// A readable message.
    public var description: String {
        switch self {
        case .missingPlies(let kept, let available):
            "the entry keeps \(kept) plies of a game of \(available)"
        case .illegalMove(let ply, let uci):
            "the entry's move \(uci) at ply \(ply + 1) is illegal"
        case .otherPosition(let ply, let uci):
            "the entry's move \(uci) at ply \(ply + 1) leads to another position than it recorded"
        }
    }
}

extension SessionJournalEntry {
    /// The entry numbered `sequence` that turns the state last saved into `snapshot`, as
    /// `change` (the kernel's record since that save) says; `nil` when only a whole snapshot
    /// can say it.
    public init?(sequence: Int, change: SessionChange, after snapshot: SessionSnapshot) {
        let moves = snapshot.game.moves
        guard !change.needsSnapshot, change.keptPlies <= moves.count else { return nil }
        self.init(
            sequence: sequence, keptPlies: change.keptPlies, moves: Array(moves[change.keptPlies...]),
            result: snapshot.game.result, clock: snapshot.clock, clockWasRunning: snapshot.clockWasRunning,
            savedAt: snapshot.savedAt, clockStart: change.clockStartChanged ? snapshot.clockStart : nil,
            options: change.optionsChanged ? snapshot.options : nil,
            orientation: change.orientationChanged ? snapshot.orientation : nil)
    }
}

extension SessionSnapshot {
    /// This snapshot with `entry` applied (its ``sequence`` becomes the entry's). The moves
    /// are replayed and each must lead to the position it recorded (`fenAfter`), so the
    /// result is a consistent game or an error, never moves played from the wrong state.
    public func applying(_ entry: SessionJournalEntry) throws(SessionJournalError) -> SessionSnapshot {
        guard entry.keptPlies >= 0, entry.keptPlies <= game.moves.count else {
            throw .missingPlies(kept: entry.keptPlies, available: game.moves.count)
        }
        var result = self
        result.game.takeBack(plies: game.moves.count - entry.keptPlies)
        for record in entry.moves {
            let ply = result.game.moves.count
            do {
                try result.game.play(record.move, clock: record.clock, timestamp: record.timestamp)
            } catch {
                throw .illegalMove(ply: ply, uci: record.move.uci)
            }
            if let recorded = record.fenAfter, result.game.moves.last?.fenAfter != recorded {
                throw .otherPosition(ply: ply, uci: record.move.uci)
            }
            result.game.setComment(record.comment, forPly: ply)
        }
        result.game.result = entry.result
        result.clock = entry.clock
        result.clockWasRunning = entry.clockWasRunning
        result.savedAt = entry.savedAt
        if let clockStart = entry.clockStart { result.clockStart = clockStart }
        if let inputPath = entry.inputPath { result.inputPath = inputPath }
        if let options = entry.options { result.options = options }
        if let orientation = entry.orientation { result.orientation = orientation }
        result.sequence = entry.sequence
        return result
    }
}
