/// A round to broadcast: its name as `Round` tags write it, the event's tags and the
/// pairings in board order.
public struct BroadcastRound: Sendable, Equatable {
    /// The round as PGN's `Round` tag names it before the board number (`"3"`).
    public var round: String
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
