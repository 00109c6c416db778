public import BoardKit
public import Chess
public import Kernel

/// A command received on `<base>/<board>/set[/<name>]`, parsed and validated.
public enum BridgeCommand: Equatable, Sendable {
    /// Something for the board itself: encoded by its adapter and written to it.
    case board(BoardCommand)
    /// Something for the board's game session: the kernel, the clock, the PGN.
    case game(GameCommand)
    /// Forgets the tags a Certabo board learned and has it learn them again from the start
    /// position (`calibrate`): its link is re-established with an uncalibrated adapter.
    case calibrate
}

/// A command for a board's game session.
public enum GameCommand: Equatable, Sendable {
    /// Starts a new game (`new_game`).
    case newGame(NewGame)
    /// Declares the position on the board (`position`): a FEN the parser has read into a
    /// legal ``Position`` (4 or 6 fields, as the contract says).
    case setPosition(Position)
    /// Takes back `plies` half-moves (`takeback`), at least 1.
    case takeback(plies: Int)
    /// Enters the line played while the board could not tell it (`resolve`): moves in UCI
    /// or SAN, oldest first; `ply`, when given, is the game's ply the line was chosen at (a
    /// resolution for a game that has moved on since is stale and refused).
    case resolve(moves: [String], ply: Int?)
    /// Pauses the game clock (`clock: pause`).
    case pauseClock
    /// Resumes the game clock for the side to move (`clock: resume`).
    case resumeClock
    /// Sets the remaining time of one or both clocks, in seconds (`clock: adjust`).
    case adjustClock(white: Double?, black: Double?)
    /// Records the game result (`result`: `1-0`, `0-1`, `1/2-1/2`, `*`).
    case setResult(GameResult)
    /// Sets which side of the physical board White sits on (`orientation`: the contract's
    /// words are ``OrientationSetting/spellings``).
    case setOrientation(OrientationSetting)
    /// Lights the board's LEDs in a pattern the game decides (`leds`: `"last_move"`,
    /// `"check"`, `"off"`).
    case ledPattern(LEDPattern)

    /// An LED pattern of the game (Home Assistant's LED select).
    public enum LEDPattern: String, CaseIterable, Equatable, Sendable {
        /// Every LED off.
        case off
        /// The last move's squares, in the `move` style.
        case lastMove = "last_move"
        /// The king in check (the side to move's), in the `check` style; off when none is.
        case check
    }

    /// The parameters of a new game.
    public struct NewGame: Equatable, Sendable {
        /// The PGN tags of the game (players, event, round, board number…).
        public var tags: Tags
        /// The time control, read from PGN `TimeControl` syntax (`5400+30`,
        /// `40/5400+30:1800+30`); `nil` when not given (the session keeps its default).
        public var timeControl: TimeControl?
        /// The start position, read from a FEN; `nil` for the standard start position.
        public var position: Position?

        /// Creates the parameters.
        public init(tags: Tags = Tags(), timeControl: TimeControl? = nil, position: Position? = nil) {
            self.tags = tags
            self.timeControl = timeControl
            self.position = position
        }
    }

    /// The PGN tags a game carries, as published in the board state (`game`).
    public struct Tags: Equatable, Sendable {
        /// `[Event]`.
        public var event: String?
        /// `[Site]`.
        public var site: String?
        /// `[Round]`, e.g. `"3"` or `"3.7"`.
        public var round: String?
        /// `[Board]`: the board number in the round.
        public var board: String?
        /// `[White]`.
        public var white: String?
        /// `[Black]`.
        public var black: String?
        /// Any other tags, in the order given (`WhiteElo`, `ECO`…).
        public var extra: [Tag]

        /// Creates tags.
        public init(
            event: String? = nil, site: String? = nil, round: String? = nil, board: String? = nil,
            white: String? = nil, black: String? = nil, extra: [Tag] = []
        ) {
            self.event = event
            self.site = site
            self.round = round
            self.board = board
            self.white = white
            self.black = black
            self.extra = extra
        }
    }

    /// One PGN tag pair.
    public struct Tag: Equatable, Sendable {
        /// The tag name (`[A-Za-z0-9_]+`).
        public var name: String
        /// The value.
        public var value: String

        /// Creates a tag pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
}
