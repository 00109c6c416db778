/// What a board can sense and do. Queried once at connect time; the session routes
/// events through the matching kernel path (identity, occupancy or reported moves).
public struct BoardCapabilities: OptionSet, Hashable, Sendable, Codable {
    /// The bit set.
    public let rawValue: UInt32

    /// Creates a set from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The board senses which squares are occupied.
    public static let occupancySensing = BoardCapabilities(rawValue: 1 << 0)
    /// The board knows which piece stands on each square.
    public static let pieceIdentity = BoardCapabilities(rawValue: 1 << 1)
    /// The board has an LED per square (or per square corner) the host can light.
    public static let perSquareLEDs = BoardCapabilities(rawValue: 1 << 2)
    /// The board can show a move (from/to) to the player.
    public static let moveIndication = BoardCapabilities(rawValue: 1 << 3)
    /// The board moves pieces itself.
    public static let motorised = BoardCapabilities(rawValue: 1 << 4)
    /// The board reports its battery level.
    public static let batteryReporting = BoardCapabilities(rawValue: 1 << 5)
    /// The board stores games played offline and can hand them over.
    public static let gameArchive = BoardCapabilities(rawValue: 1 << 6)
    /// The board reports completed moves rather than (or besides) raw sensor changes.
    public static let reportsMoves = BoardCapabilities(rawValue: 1 << 7)
    /// The board keeps a game of its own and only reports moves that fit it (ChessUp): the
    /// host starts it (``BoardCommand/startSession``) and loads set-up positions into it
    /// (``BoardCommand/loadPosition(fen:)``).
    public static let ownGame = BoardCapabilities(rawValue: 1 << 8)
    /// The board keeps the host's position and waits for the host to judge each move it
    /// reports (the Chess Peripheral Protocol): the host loads every position the game
    /// reaches other than by a reported move (``BoardCommand/loadPosition(fen:)``), answers
    /// each report (``BoardCommand/judgeMove(reported:taken:)``) and says when the game is
    /// over (``BoardCommand/endGame(reason:)``).
    public static let refereedMoves = BoardCapabilities(rawValue: 1 << 9)

    /// The names of the members, for logs and published info.
    public var names: [String] {
        let all: [(BoardCapabilities, String)] = [
            (.occupancySensing, "occupancy_sensing"), (.pieceIdentity, "piece_identity"),
            (.perSquareLEDs, "per_square_leds"), (.moveIndication, "move_indication"),
            (.motorised, "motorised"), (.batteryReporting, "battery_reporting"),
            (.gameArchive, "game_archive"), (.reportsMoves, "reports_moves"), (.ownGame, "own_game"),
            (.refereedMoves, "refereed_moves"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
