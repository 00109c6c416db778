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
/// ``SessionJournalCursor`` makes entries, ``SessionSnapshot/applying(_:)`` replays them.
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

/// What a journal keeps of the last state it saved, to express the next one as a
/// ``SessionJournalEntry``: everything but the game's moves, of which only the last few.
///
/// Keeping the whole game would share its storage with the live session, and every move
/// played next would then copy the game. The kernel changes a game only at its end (moves
/// appended, plies taken back, the clock of the last ply recorded), so the last
/// ``window`` moves are compared and the ones before are taken as they were.
public struct SessionJournalCursor: Sendable {
    /// How many of the last moves are kept for comparison.
    public static let window = 8

    /// The sequence number of the last entry saved (or included in the snapshot saved).
    public private(set) var sequence: Int
    private var version: Int
    private var startPosition: Position
    private var tags: PGNTags
    private var plies: Int
    private var recent: [GameMove]
    private var clockStart: ClockStartPolicy
    private var inputPath: TrackerInputPath
    private var options: TrackerOptions
    private var orientation: BoardOrientation?
    private var setUpWait: SetUpWait?

    /// A cursor at `snapshot`, which includes the entries up to `sequence`.
    public init(at snapshot: SessionSnapshot, sequence: Int) {
        self.sequence = sequence
        version = snapshot.version
        startPosition = snapshot.game.startPosition
        tags = snapshot.game.tags
        plies = snapshot.game.moves.count
        recent = Array(snapshot.game.moves.suffix(Self.window))
        clockStart = snapshot.clockStart
        inputPath = snapshot.inputPath
        options = snapshot.options
        orientation = snapshot.orientation
        setUpWait = snapshot.setUpWait
    }

    /// The entry that turns the cursor's state into `next` (numbered ``sequence`` + 1);
    /// `nil` when only a whole snapshot can say it: another start position, other tags, a
    /// new format, an orientation that was cleared, or a set-up wait begun or ended.
    public func entry(to next: SessionSnapshot) -> SessionJournalEntry? {
        guard next.version == version, next.game.startPosition == startPosition, next.game.tags == tags,
            next.orientation != nil || orientation == nil, next.setUpWait == setUpWait
        else { return nil }
        let moves = next.game.moves
        let firstRecent = plies - recent.count
        var kept = min(plies, moves.count)
        var index = firstRecent
        while index < kept {
            if recent[index - firstRecent] != moves[index] {
                kept = index
                break
            }
            index += 1
        }
        return SessionJournalEntry(
            sequence: sequence + 1, keptPlies: kept, moves: Array(moves[kept...]), result: next.game.result,
            clock: next.clock, clockWasRunning: next.clockWasRunning, savedAt: next.savedAt,
            clockStart: next.clockStart == clockStart ? nil : next.clockStart,
            inputPath: next.inputPath == inputPath ? nil : next.inputPath,
            options: next.options == options ? nil : next.options,
            orientation: next.orientation == orientation ? nil : next.orientation)
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
