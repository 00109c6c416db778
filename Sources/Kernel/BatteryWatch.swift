/// When a board's battery counts as low: at ``lowPercent`` or below, reported once, and
/// again only after a charge above ``recoveredPercent`` (the gap keeps a level that
/// wavers around the threshold from reporting on every reading).
public struct BatteryWatch: Hashable, Sendable {
    /// The level at or below which the battery is low.
    public static let lowPercent = 15
    /// The level above which a low battery counts as charged again.
    public static let recoveredPercent = 20

    /// Whether the current low battery was reported.
    public private(set) var reported = false

    /// A watch that has reported nothing.
    public init() {}

    /// Takes a reading; returns `true` when it is the one to report as low.
    public mutating func observe(percent: Int) -> Bool {
        if percent <= Self.lowPercent, !reported {
            reported = true
            return true
        }
        if percent > Self.recoveredPercent { reported = false }
        return false
    }
}
