/// Both sides' remaining time in seconds, as the game's clock last showed them.
public struct BroadcastClocks: Hashable, Sendable {
    /// White's remaining seconds.
    public var white: Double?
    /// Black's remaining seconds.
    public var black: Double?

    /// Clocks; either side may be unknown.
    public init(white: Double?, black: Double?) {
        self.white = white
        self.black = black
    }
}
