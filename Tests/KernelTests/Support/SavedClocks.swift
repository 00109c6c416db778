import Kernel

/// Clocks in every state, under every kind of time control: what a journal line or a
/// snapshot may carry (the journal's tests write and read each).
enum SavedClocks {
    static var all: [GameClock] {
        var clocks: [GameClock] = []
        for pgn in ["?", "-", "*60", "300+2", "40/5400+30:1800+30", "0.5"] {
            var clock = GameClock(timeControl: try! TimeControl(pgn: pgn))
            clocks.append(clock)
            _ = clock.start(.white, at: 10.25)
            clocks.append(clock)
            _ = clock.moveMade(by: .white, at: 12.5)
            clocks.append(clock)
            _ = clock.pause(at: 13)
            clocks.append(clock)
            _ = clock.resume(.black, at: 14)
            _ = clock.checkFlag(at: 100_000)
            clocks.append(clock)
            _ = clock.stop(at: 100_001)
            clocks.append(clock)
        }
        return clocks
    }
}
