public import FoundationEssentials

/// How lit squares should look. Boards with single-colour LEDs light every style alike.
public enum IndicationStyle: String, CaseIterable, Hashable, Sendable, Codable {
    /// A neutral highlight.
    case highlight
    /// The squares of a move (from and to).
    case move
    /// A king in check.
    case check
    /// Something is wrong (out of sync, illegal move): the arbiter colour.
    case alert
    /// A suggestion.
    case hint
}

/// Something the host asks a board to do. Adapters encode each command they support
/// and return `nil` for the rest (the transport then skips it).
public enum BoardCommand: Hashable, Sendable {
    /// Opens a session or switches the board into host mode.
    case startSession
    /// Asks the board to send its full state (position, battery) now.
    case requestState
    /// Asks for the battery level.
    case requestBattery
    /// Lights `squares` in `style` (the set replaces what was lit before).
    case indicate(squares: [Square], style: IndicationStyle)
    /// Turns all square indications off.
    case clearIndications
    /// Makes a motorised board execute a move given in UCI notation.
    case executeMove(uci: String)
    /// Raw bytes written as they are (enabled per board in the bridge config).
    case custom(Data)
    /// Loads the position `fen` into the game a board keeps itself (ChessUp `66`), after a
    /// ``startSession`` that started the board's game afresh; a board that keeps the host's
    /// position (a Chess Peripheral Protocol `begin`) takes it as the game's position now.
    /// Boards without a game of their own encode nothing.
    case loadPosition(fen: String)
    /// The host's verdict on a move the board reported and waits to have judged (a board
    /// that keeps the host's position, ``BoardCapabilities/refereedMoves``): `taken` is the
    /// move as the game took it (with the promotion piece the host chose), `nil` when the
    /// game refused it.
    case judgeMove(reported: BoardMove, taken: BoardMove?)
    /// Tells a board that keeps the host's position that the game is over; `reason` is the
    /// game's termination (`checkmate`, `stalemate`, `resignation`, `time_forfeit`, …).
    case endGame(reason: String)
}
