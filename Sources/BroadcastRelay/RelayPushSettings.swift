/// Where and how a round is pushed to a lichess-compatible relay.
public struct RelayPushSettings: Sendable, Equatable {
    /// The push URL (`https://lichess.org/api/broadcast/round/<id>/push`).
    public var url: String
    /// The bearer token (from `_file` or `_env` in the configuration; never logged).
    public var token: String
    /// The least time between two pushes, in seconds.
    public var minimumInterval: Double
    /// The longest back-off after failures, in seconds.
    public var maximumBackoff: Double
    /// The longest one push may take, in seconds.
    public var timeout: Double
    /// The `User-Agent` every push carries (lichess asks API clients to name themselves).
    public var userAgent: String

    /// Settings; by default at most one push a second, backing off to a minute.
    public init(
        url: String, token: String, minimumInterval: Double = 1, maximumBackoff: Double = 60, timeout: Double = 10,
        userAgent: String = "BoardBridge"
    ) {
        self.url = url
        self.token = token
        self.minimumInterval = minimumInterval
        self.maximumBackoff = maximumBackoff
        self.timeout = timeout
        self.userAgent = userAgent
    }
}

/// How the last push went, for the hall view and the log.
public struct RelayPushReport: Sendable, Equatable {
    /// When it ended (the pusher's clock).
    public var time: Double
    /// The HTTP status, `nil` when the relay could not be reached.
    public var status: Int?
    /// Why the push failed as a whole (`nil` when the relay took it).
    public var failure: String?
    /// The games the relay refused, with its reason for each.
    public var gameErrors: [BroadcastPushGameError]
    /// Pushes that failed in a row so far.
    public var failures: Int
}

/// A game a relay refused.
public struct BroadcastPushGameError: Sendable, Equatable {
    /// The game's `GameId`, when the relay echoed it.
    public var gameID: String?
    /// `White - Black`.
    public var players: String
    /// The relay's reason.
    public var error: String

    /// A refused game.
    public init(gameID: String?, players: String, error: String) {
        self.gameID = gameID
        self.players = players
        self.error = error
    }
}
