import BoardKit
public import Chess
public import FoundationEssentials

/// Everything a ``GameSession`` needs to continue after a restart, as `Codable` data:
/// the game (tags, start position, moves with clock stamps, result), the clock (paused
/// at the moment of saving), and how the board was being read.
///
/// Timestamps of different runs need not share a time base: the clock is restored
/// paused and only resumes once the board shows the game position again.
public struct SessionSnapshot: Codable, Sendable, Equatable {
    /// The format version (``formatVersion`` when written by this build).
    public var version: Int
    /// The format version this build writes (1).
    public static let formatVersion = 1
    /// The game.
    public var game: Game
    /// The clock, paused at ``savedAt``.
    public var clock: GameClock
    /// Whether the clock was running when the snapshot was taken.
    public var clockWasRunning: Bool
    /// When the clock starts by itself.
    public var clockStart: ClockStartPolicy
    /// How the board's events are read.
    public var inputPath: TrackerInputPath
    /// The tracker options.
    public var options: TrackerOptions
    /// The orientation detected or configured, if any.
    public var orientation: BoardOrientation?
    /// The set-up the board had not shown yet (``GameTracker/setUpWait``), if any; absent
    /// in files written before it existed.
    public var setUpWait: SetUpWait?
    /// When the snapshot was taken, on the saving run's time base.
    public var savedAt: TimeInterval
    /// The ``SessionJournalEntry/sequence`` of the last journal entry this state includes
    /// (`nil`: none; set by whoever keeps the journal).
    public var sequence: Int?

    /// Creates a snapshot.
    public init(
        game: Game, clock: GameClock, clockWasRunning: Bool, clockStart: ClockStartPolicy,
        inputPath: TrackerInputPath, options: TrackerOptions, orientation: BoardOrientation?, savedAt: TimeInterval,
        setUpWait: SetUpWait? = nil
    ) {
        version = Self.formatVersion
        self.game = game
        self.clock = clock
        self.clockWasRunning = clockWasRunning
        self.clockStart = clockStart
        self.inputPath = inputPath
        self.options = options
        self.orientation = orientation
        self.savedAt = savedAt
        self.setUpWait = setUpWait
    }
}

extension SessionSnapshot {
    private enum CodingKeys: String, CodingKey {
        case version, game, clock, clockWasRunning, clockStart, inputPath, options, orientation, savedAt, sequence
        case setUpWait
    }

    private enum GameKeys: String, CodingKey {
        case moves
    }

    /// Decodes a snapshot; its game is replayed (`Game`'s decoding) and each move must lead
    /// to the position it recorded (`fenAfter`), so a damaged file that still parses (a
    /// changed square number) is refused instead of restoring a move that was not played.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        game = try container.decode(Game.self, forKey: .game)
        let recorded = try container.nestedContainer(keyedBy: GameKeys.self, forKey: .game)
            .decode([GameMove].self, forKey: .moves)
        for (ply, (record, replayed)) in zip(recorded, game.moves).enumerated()
        where record.fenAfter != nil && record.fenAfter != replayed.fenAfter {
            throw DecodingError.dataCorruptedError(
                forKey: .game, in: container,
                debugDescription:
                    "the move \(record.move.uci) at ply \(ply + 1) leads to another position than recorded")
        }
        clock = try container.decode(GameClock.self, forKey: .clock)
        clockWasRunning = try container.decode(Bool.self, forKey: .clockWasRunning)
        clockStart = try container.decode(ClockStartPolicy.self, forKey: .clockStart)
        inputPath = try container.decode(TrackerInputPath.self, forKey: .inputPath)
        options = try container.decode(TrackerOptions.self, forKey: .options)
        orientation = try container.decodeIfPresent(BoardOrientation.self, forKey: .orientation)
        savedAt = try container.decode(TimeInterval.self, forKey: .savedAt)
        sequence = try container.decodeIfPresent(Int.self, forKey: .sequence)
        setUpWait = try container.decodeIfPresent(SetUpWait.self, forKey: .setUpWait)
    }
}

extension GameSession {
    /// The session's state at `time`, to persist. The session itself is not changed.
    public func snapshot(at time: TimeInterval) -> SessionSnapshot {
        var frozen = clock
        // A clock the gate paused counts as running: it resumes once the board is back.
        let running = frozen.pause(at: time) || (gate.isDesynced && gate.clockWasRunningBeforeDesync)
        return SessionSnapshot(
            game: game, clock: frozen, clockWasRunning: running,
            clockStart: clockStart, inputPath: tracker.inputPath, options: tracker.options,
            orientation: tracker.orientation, savedAt: time, setUpWait: tracker.setUpWait)
    }

    /// Restores a session at `time` (on the new run's time base). The clock stays paused;
    /// when it was running, the gate resumes it for the side to move as soon as the board
    /// shows the game position (or a move from it) — the reconciliation with what the
    /// board shows after the restart runs through the ordinary tracker paths: in sync,
    /// a move made meanwhile, a takeback, or out of sync after the grace period. A set-up
    /// that was awaited is awaited still: the board must show it before moves are tracked.
    public init(restoring snapshot: SessionSnapshot, at time: TimeInterval) {
        self.init(
            game: snapshot.game, timeControl: snapshot.clock.timeControl, inputPath: snapshot.inputPath,
            options: snapshot.options, clockStart: snapshot.clockStart)
        tracker = GameTracker(
            game: snapshot.game, inputPath: snapshot.inputPath, options: snapshot.options,
            orientation: snapshot.orientation, setUpWait: snapshot.setUpWait)
        clock = snapshot.clock
        clock.pause(at: time)
        if snapshot.clockWasRunning, !tracker.isGameOver {
            awaitingBoard = true
            // Prime the gate as if it had paused a running clock on a desync.
            _ = gate.update(isOutOfSync: true, clockIsRunning: true, currentActiveColor: position.sideToMove)
            gate.acknowledgeHaptic()
        }
    }
}
