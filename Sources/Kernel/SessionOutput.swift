public import BoardKit
public import FoundationEssentials

/// Something the session did to its clock, with both remaining times after it.
public struct ClockUpdate: Hashable, Sendable, Codable {
    /// What happened.
    public enum Action: Hashable, Sendable, Codable {
        /// The clock started for `color`.
        case start(PieceColor)
        /// The clock was paused.
        case pause
        /// The clock resumed for `color`.
        case resume(PieceColor)
        /// A takeback handed the clock to `color`.
        case switchSide(PieceColor)
        /// The game ended; the clock stopped.
        case stop
        /// `color` ran out of time.
        case flag(PieceColor)
        /// A host command set the times.
        case adjust
        /// A new game set the clock up afresh (not started).
        case reset

        /// The side concerned, if any.
        public var color: PieceColor? {
            switch self {
            case .start(let color), .resume(let color), .switchSide(let color), .flag(let color): color
            case .pause, .stop, .adjust, .reset: nil
            }
        }
    }

    /// Who asked for it.
    public enum Cause: String, Hashable, Sendable, Codable {
        /// The sync gate (the board went out of sync, or back in sync).
        case gate
        /// A host command.
        case command
        /// A move, a takeback or the end of the game.
        case game
    }

    /// What happened.
    public var action: Action
    /// Who asked for it.
    public var cause: Cause
    /// White's remaining time after it (`nil` when untimed).
    public var white: TimeInterval?
    /// Black's remaining time after it (`nil` when untimed).
    public var black: TimeInterval?
    /// When it happened.
    public var time: TimeInterval

    /// Creates a record.
    public init(action: Action, cause: Cause, white: TimeInterval?, black: TimeInterval?, time: TimeInterval) {
        self.action = action
        self.cause = cause
        self.white = white
        self.black = black
        self.time = time
    }
}

/// Something a ``GameSession`` reports, for the bridge to publish.
public enum SessionOutput: Hashable, Sendable {
    /// What the tracker saw (moves, sync state, takebacks, illegal moves, game end, …).
    case tracker(TrackerOutput)
    /// What happened to the clock; only for a timed game (an untimed game's clock, which
    /// the gate still pauses and resumes, reports nothing).
    case clock(ClockUpdate)
    /// The board just went out of sync (the one-shot "haptic" of the sync gate): an
    /// arbiter alert, with the mismatched squares in game coordinates.
    case alert(mismatched: [Square])
    /// A command for the board: `.requestState` when the board stays out of sync (see
    /// ``ResyncPolicy``). The bridge sends it through the board's transport.
    case command(BoardCommand)
    /// The board's battery fell to ``BatteryWatch/lowPercent`` or below (reported once
    /// until it is charged above ``BatteryWatch/recoveredPercent``).
    case batteryLow(percent: Int)
    /// What the event said about the board itself rather than its game (its link, battery,
    /// identity, a button, a frame no adapter understood), first in the outputs of the
    /// event: the kernel classifies each event once, and the bridge acts on this output, not
    /// on the event again.
    case board(BoardReport)
}

/// What an event said about the board itself (``SessionOutput/board(_:)``).
public enum BoardReport: Hashable, Sendable {
    /// The link came up (the handshake is still to come).
    case connected
    /// The link went down.
    case disconnected
    /// The link is up and the handshake done.
    case ready
    /// The board refused its protocol unlock: moves are not tracked.
    case handshakeFailed(reason: String)
    /// The board's battery level.
    case battery(percent: Int, charging: Bool?)
    /// A button on the board was pressed.
    case button(BoardButton)
    /// The board's serial number.
    case serialNumber(String)
    /// The board's firmware version.
    case version(String)
    /// A frame no adapter decoded.
    case unhandled(Data)
    /// Where a board that recognises pieces by tag stands with learning them.
    case calibration(BoardCalibrationEvent)
}

/// When the session starts the clock by itself.
public enum ClockStartPolicy: String, Hashable, Sendable, Codable {
    /// Black's time starts when White completes the first move (White's first move is untimed).
    case onFirstMove = "first_move"
    /// Only ``GameSession/startClock(at:)`` starts it.
    case manual
}
