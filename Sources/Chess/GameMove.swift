public import FoundationEssentials

/// One move of a ``Game`` with what was recorded about it.
public struct GameMove: Hashable, Sendable, Codable {
    /// The move.
    public var move: Move
    /// The move in Standard Algebraic Notation, as played in its position.
    public var san: String
    /// The FEN of the position after the move (always set by ``Game``).
    public var fenAfter: String?
    /// The mover's remaining clock time after the move, in seconds (PGN `[%clk]`).
    public var clock: TimeInterval?
    /// When the move was played, in seconds on whatever time base the caller uses
    /// (not written to PGN).
    public var timestamp: Double?
    /// A free-text comment after the move (PGN `{…}` without the `[%clk]` command).
    public var comment: String?

    /// Creates a record.
    public init(
        move: Move, san: String, fenAfter: String? = nil, clock: TimeInterval? = nil, timestamp: Double? = nil,
        comment: String? = nil
    ) {
        self.move = move
        self.san = san
        self.fenAfter = fenAfter
        self.clock = clock
        self.timestamp = timestamp
        self.comment = comment
    }
}
