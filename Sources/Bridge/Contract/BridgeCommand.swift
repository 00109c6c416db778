import BoardKit

/// A command received on `<base>/<board>/set[/<name>]`, parsed and validated.
public enum BridgeCommand: Equatable, Sendable {
    /// Something for the board itself: encoded by its adapter and written to it.
    case board(BoardCommand)
    /// Something for the board's game session: the kernel, the clock, the PGN.
    case game(GameCommand)
}

/// A command for a board's game session.
public enum GameCommand: Equatable, Sendable {
    /// Starts a new game (`new_game`).
    case newGame(NewGame)
    /// Declares the position on the board (`position`). The FEN has passed a structural
    /// check only; the session validates it fully with the Chess module.
    case setPosition(fen: String)
    /// Takes back `plies` half-moves (`takeback`), at least 1.
    case takeback(plies: Int)
    /// Pauses the game clock (`clock: pause`).
    case pauseClock
    /// Resumes the game clock for the side to move (`clock: resume`).
    case resumeClock
    /// Sets the remaining time of one or both clocks, in seconds (`clock: adjust`).
    case adjustClock(white: Double?, black: Double?)
    /// Records the game result (`result`).
    case setResult(PGNResult)
    /// Sets which side of the physical board White sits on (`orientation`).
    case setOrientation(Orientation)

    /// The parameters of a new game.
    public struct NewGame: Equatable, Sendable {
        /// The PGN tags of the game (players, event, round, board number…).
        public var tags: Tags
        /// The time control in PGN `TimeControl` syntax (`5400+30`, `40/5400+30:1800+30`),
        /// syntax-checked; `nil` when not given (the session keeps its default).
        public var timeControl: String?
        /// The start position, structurally checked; `nil` for the standard start position.
        public var fen: String?

        /// Creates the parameters.
        public init(tags: Tags = Tags(), timeControl: String? = nil, fen: String? = nil) {
            self.tags = tags
            self.timeControl = timeControl
            self.fen = fen
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

    /// A game result in PGN notation.
    public enum PGNResult: String, CaseIterable, Equatable, Sendable {
        /// `1-0`.
        case whiteWins = "1-0"
        /// `0-1`.
        case blackWins = "0-1"
        /// `1/2-1/2`.
        case draw = "1/2-1/2"
        /// `*`: unknown or still in progress.
        case ongoing = "*"
    }

    /// Which way the physical board faces.
    public enum Orientation: String, CaseIterable, Equatable, Sendable {
        /// White's pieces on the board's own first rank.
        case white
        /// The board is turned: White sits on the board's eighth rank.
        case black
        /// The session decides from the position the pieces are set up in.
        case auto
    }
}
