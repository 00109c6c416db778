public import FoundationEssentials

/// A button on a board (or on a clock built into it).
public enum BoardButton: Hashable, Sendable, Codable {
    /// A named button (`"play"`, `"left"`, `"power"`, …) as the family calls it.
    case named(String)
    /// A button the adapter only knows by number.
    case code(Int)

    /// An undo made on a board that keeps its own game (ChessUp): its next state frame
    /// shows its game a move back.
    public static let undo = BoardButton.named("undo")

    /// A stable name for logs and MQTT payloads.
    public var name: String {
        switch self {
        case .named(let name): name
        case .code(let code): "button_\(code)"
        }
    }
}

/// Something that happened on a board, as decoded by its ``BoardAdapter`` or
/// reported by its ``BoardTransport``.
public enum BoardEvent: Hashable, Sendable {
    /// The transport has a writable link and an active notification subscription.
    /// Precedes the handshake: wait for ``ready`` before trusting the sensor stream.
    case connected
    /// The board acknowledged the handshake; its sensor stream can be trusted.
    case ready
    /// The board refused the protocol unlock (a Pegasus that rejects the developer key):
    /// the link is up but the board sends no usable data until the cause is fixed.
    /// `reason` says what happened, for the connection state and the log.
    case handshakeFailed(reason: String)
    /// The link dropped (`error` says why) or was closed by the user (`error` is `nil`).
    case disconnected(error: String?)
    /// A full piece-identity snapshot (Chessnut, Millennium, DGT e-Board).
    case pieces(BoardSnapshot)
    /// The board's own game (a ChessUp's `67` state frame): its pieces, the side to move and
    /// the full-move number, so the plies it played are known. Sent for every state frame,
    /// also one identical to the frame before (a ``pieces(_:)`` of the same pieces follows
    /// unless it is).
    case gameState(BoardSnapshot, sideToMove: PieceColor, fullmoveNumber: Int)
    /// A full occupancy snapshot (Square Off, Pegasus, ChessUp bitmaps).
    case occupancy(OccupancyMap)
    /// A piece was lifted from `square`.
    case pieceLifted(Square)
    /// A piece was put down on `square`; `piece` when the board knows which.
    case piecePlaced(Square, piece: Piece?)
    /// The board reports a completed move (ChessUp, Square Off).
    case moveReported(BoardMove)
    /// The player picked a promotion piece on the board itself.
    case promotionPicked(PieceKind)
    /// Battery level in percent (0…100); `charging` when the board says.
    case battery(percent: Int, charging: Bool?)
    /// A board button was pressed.
    case button(BoardButton)
    /// The board told its firmware or hardware version.
    case version(String)
    /// The board told its serial number (DGT e-Boards).
    case serialNumber(String)
    /// The clock attached to the board showed these times (DGT 3000 on a DGT e-Board);
    /// `nil` when the board says no clock is attached.
    case clock(BoardClockReading?)
    /// Where a board that recognises pieces by tag (Certabo) stands with learning them.
    case calibration(BoardCalibrationEvent)
    /// A board that holds the host's position (``BoardCapabilities/refereedMoves``) says its
    /// squares show the position it was last given, without saying what they show (the
    /// Chess Peripheral Protocol's 2024 dialect answers `fen` with a bare `ok`).
    case positionConfirmed
    /// Bytes the adapter could not (or need not) interpret: logged, never a move.
    case raw(Data)
}
