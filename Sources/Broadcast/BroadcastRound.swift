/// A round to broadcast: its name as `Round` tags write it, the event's tags and the
/// pairings in board order.
public struct BroadcastRound: Sendable, Equatable {
    /// The round's name (its URL path and files: `"3"`, `"final"`).
    public var round: String
    /// The round's number for the `Round` tag when its name is not one (`final` played as
    /// round 7); `nil`: the name is the number.
    public var number: Int?
    /// The games lichess keeps of one round (its docs say 64; it shows at most 100
    /// chapters): a bigger round is served, with a warning (``sizeWarning``).
    public static let lichessGameLimit = 64
    /// `Event`, when set.
    public var event: String?
    /// `Site`, when set.
    public var site: String?
    /// `Date` as PGN writes it (`2026.12.05`), when set.
    public var date: String?
    /// The round's PGN `TimeControl` (`5400+30`), when set.
    public var timeControl: String?
    /// The games, sorted by board number.
    public private(set) var pairings: [BroadcastPairing]

    /// A round; `pairings` are sorted by board number. Two pairings may not share a board
    /// number, an e-board or a game id.
    public init(
        round: String, event: String? = nil, site: String? = nil, date: String? = nil, timeControl: String? = nil,
        pairings: [BroadcastPairing]
    ) throws(PairingsError) {
        self.round = round
        self.event = event
        self.site = site
        self.date = date
        self.timeControl = timeControl
        self.pairings = pairings.sorted { $0.boardNumber < $1.boardNumber }
        try Self.checkUnique(self.pairings)
    }

    /// What PGN's `Round` tag names before the board number: the ``number`` when set, else
    /// the name.
    public var tagRound: String { number.map(String.init) ?? round }

    /// Whether `name` is a round number as PGN's `Round` tag and lichess read it (digits).
    public static func isNumber(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 9 && name.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A warning when the round has more games than lichess keeps, else `nil`.
    public var sizeWarning: String? {
        guard pairings.count > Self.lichessGameLimit else { return nil }
        return "round \(round) has \(pairings.count) games; lichess keeps at most \(Self.lichessGameLimit) per round"
            + " (split it into several broadcast rounds)"
    }

    /// The pairing played on the e-board `boardID`.
    public func pairing(onBoard boardID: String) -> BroadcastPairing? {
        pairings.first { $0.boardID == boardID }
    }

    /// Puts the game `gameID` on another e-board and/or board number (an arbiter moves a
    /// game to a spare board, or renumbers the boards); its game id stays.
    public mutating func move(gameID: String, toBoard boardID: String?, number: Int? = nil) throws(PairingsError) {
        guard let index = pairings.firstIndex(where: { $0.gameID == gameID }) else {
            throw PairingsError(line: 0, column: 0, message: "no game \(gameID) in round \(round)")
        }
        var moved = pairings
        moved[index].boardID = boardID
        if let number { moved[index].boardNumber = number }
        moved.sort { $0.boardNumber < $1.boardNumber }
        try Self.checkUnique(moved)
        pairings = moved
    }

    private static func checkUnique(_ pairings: [BroadcastPairing]) throws(PairingsError) {
        var numbers = Set<Int>()
        var boards = Set<String>()
        var games = Set<String>()
        for pairing in pairings {
            guard numbers.insert(pairing.boardNumber).inserted else {
                throw PairingsError(line: 0, column: 0, message: "board number \(pairing.boardNumber) is paired twice")
            }
            if let board = pairing.boardID, !boards.insert(board).inserted {
                throw PairingsError(line: 0, column: 0, message: "e-board \(board) is given two games")
            }
            guard games.insert(pairing.gameID).inserted else {
                throw PairingsError(line: 0, column: 0, message: "game id \(pairing.gameID) is given twice")
            }
        }
    }
}
