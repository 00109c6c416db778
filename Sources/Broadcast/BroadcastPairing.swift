/// One game of a broadcast round: who plays it, at which board number, on which physical
/// board, and the id that names it to the relay for the whole round.
public struct BroadcastPairing: Hashable, Sendable {
    /// The board number of the round (1 is the top board); `Round "r.b"` uses it.
    public var boardNumber: Int
    /// The bridge's board id the game is played on (`board-07`); `nil` while the game has
    /// no e-board (it is then listed with its pairing and no moves).
    public var boardID: String?
    /// White.
    public var white: BroadcastPlayer
    /// Black.
    public var black: BroadcastPlayer
    /// The relay's `GameId`: stays with the game when it is moved to another board number
    /// or another physical board.
    public var gameID: String

    /// A pairing; without `gameID` one is derived from the round and the two players, so
    /// renumbering boards or swapping e-boards never changes it.
    public init(
        boardNumber: Int, boardID: String?, white: BroadcastPlayer, black: BroadcastPlayer, round: String,
        gameID: String? = nil
    ) {
        self.boardNumber = boardNumber
        self.boardID = boardID
        self.white = white
        self.black = black
        self.gameID = gameID ?? Self.derivedGameID(round: round, white: white, black: black)
    }

    /// `<round>-<8 hex digits>`: a 32-bit FNV-1a hash of the players' identities, so the
    /// same two players in the same round always get the same id.
    static func derivedGameID(round: String, white: BroadcastPlayer, black: BroadcastPlayer) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(white.identity)|\(black.identity)".utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return "\(round)-" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
