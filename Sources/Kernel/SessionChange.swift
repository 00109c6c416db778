/// What a session changed of its saved state since it was last saved, recorded by the kernel
/// as it makes each change — moves taken back, new moves, a new game, changed settings — so
/// that the journal entry is made from it (``SessionJournalEntry/init(sequence:change:after:)``)
/// and never found afterwards by comparing the state with the one saved before.
///
/// The clock, the result and the time of saving are in every entry; only what may stay the
/// same from one save to the next is recorded here. ``GameSession/takeChange()`` hands the
/// record over and starts a new one.
public struct SessionChange: Sendable, Equatable {
    /// How many moves of the saved game stay: the game never had fewer since the save (a
    /// takeback), and none of them was changed. The moves after them are the entry's.
    public private(set) var keptPlies: Int
    /// Whether only a whole snapshot can say it: a new game or set-up position (other start,
    /// other tags), a set-up wait begun, ended or advanced, an orientation cleared.
    public internal(set) var needsSnapshot = false
    /// Whether the clock-start policy was set.
    public internal(set) var clockStartChanged = false
    /// Whether the tracker options were set.
    public internal(set) var optionsChanged = false
    /// Whether an orientation was detected or set.
    public internal(set) var orientationChanged = false

    /// No change yet to a saved game of `plies` moves.
    public init(keptPlies plies: Int) {
        keptPlies = plies
    }

    /// This change and `later`, the change after it, as one (saved together: the save of
    /// this one failed).
    public func followed(by later: SessionChange) -> SessionChange {
        var both = later
        both.keep(atMost: keptPlies)
        both.needsSnapshot = needsSnapshot || later.needsSnapshot
        both.clockStartChanged = clockStartChanged || later.clockStartChanged
        both.optionsChanged = optionsChanged || later.optionsChanged
        both.orientationChanged = orientationChanged || later.orientationChanged
        return both
    }

    /// The game had `plies` moves, or the move after them changed.
    mutating func keep(atMost plies: Int) {
        if plies < keptPlies { keptPlies = max(0, plies) }
    }
}
