import BoardKit
import Chess
import Testing

@testable import Kernel

/// The search for every placement an occupancy board's gap may have left
/// (``OccupancyGapSearch``): complete within its plies, each placement with its shortest
/// lines, and an honest give-up past its bound.
@Suite(.cpuBound) struct OccupancyGapSearchTests {
    static let seed: UInt64 = 0x0CC_5EA2

    private func after(_ moves: [String], from start: Position = .starting) -> Position {
        moves.reduce(start) { $0.applying($0.legalMove(uci: $1)!) }
    }

    private func search(_ start: Position, _ shown: Position, plies: Int, nodes: Int) -> OccupancyGapSearch.Found {
        var search = OccupancyGapSearch(maxPlies: plies)
        search.nodeLimit = nodes
        return search.lines(
            from: start, board: PackedBoard(position: start), occupancy: PackedBoard(position: shown).occupancy)
    }

    @Test func theSquaresOfACaptureAreFilledByOtherPlacementsToo() {
        // After 1. e4 d5, 2. exd5 fills what a king and queen swapped fill, and what a pawn
        // that took on f7 instead fills (the d-pawn still on d5).
        let start = after(["e2e4", "d7d5"])
        let shown = after(["e4d5"], from: start)
        guard case .lines(let lines) = search(start, shown, plies: 6, nodes: 1_000_000) else {
            Issue.record("the search gave up")
            return
        }
        let ucis = lines.map { $0.map(\.uci) }
        #expect(ucis.first == ["e4d5"])
        #expect(ucis.contains(["e1e2", "e8d7", "e2e1", "d8e8", "e4d5", "d7d8"]))
        #expect(ucis.contains(["e4e5", "b8c6", "e5e6", "c6b8", "e6f7"]))
        // Each placement once, with its shortest lines only.
        let ends = lines.map { line in line.reduce(start) { $0.applying($1) } }
        #expect(ends.allSatisfy { PackedBoard(position: $0).occupancy == PackedBoard(position: shown).occupancy })
        #expect(Set(ends.map { PackedBoard(position: $0) }).count >= 3)
        // With a bound it cannot list them within, it gives up, saying how long a line it found.
        #expect(search(start, shown, plies: 6, nodes: 1_000) == .tooMany(plies: 1))
    }

    @Test func theOrdersOfTheSameMovesAreAllListed() {
        // 1. e4 and 1... e5 2. d4: the two White moves in either order.
        let shown = after(["e2e4", "e7e5", "d2d4"])
        guard case .lines(let lines) = search(.starting, shown, plies: 3, nodes: 100_000) else {
            Issue.record("the search gave up")
            return
        }
        #expect(Set(lines.map { $0.map(\.uci) }) == [["e2e4", "e7e5", "d2d4"], ["d2d4", "e7e5", "e2e4"]])
    }

    /// Random games, a gap of 1–6 plies at random moments, searched 2–6 plies deep within
    /// limits from 30 to 20,000 positions: the search that stops building a ply it cannot
    /// expand within its limit answers exactly as the one that builds it (the lines, or the
    /// give-up with the shortest line found), in fewer positions. 300 gaps; fails when the
    /// shortcut takes the first line of the next ply from a position the full search would
    /// not have expanded, or misses one it would have.
    @Test func givingUpOnceSureChangesNoAnswer() throws {
        var rng = SplitMix64(seed: Self.seed &+ 7)
        let limits = [30, 100, 300, 1_000, 3_000, 20_000]
        var gaveUp = 0
        var sooner = 0
        for index in 0..<300 {
            let moves = randomGame(seed: Self.seed &+ UInt64(index), maxPlies: 60)
            guard moves.count > 10 else { continue }
            let start = Int(rng.next() % UInt64(moves.count - 7))
            let length = 1 + Int(rng.next() % 6)
            let from = moves.prefix(start).reduce(Position.starting) { $0.applying($1) }
            let shown = moves[start..<(start + length)].reduce(from) { $0.applying($1) }
            let plies = 2 + Int(rng.next() % 5)
            let limit = limits[Int(rng.next() % UInt64(limits.count))]
            var quick = OccupancyGapSearch(maxPlies: plies)
            quick.nodeLimit = limit
            var full = quick
            full.givesUpOnceSure = false
            let board = PackedBoard(position: from)
            let occupancy = PackedBoard(position: shown).occupancy
            let answer = quick.lines(from: from, board: board, occupancy: occupancy)
            let expected = full.lines(from: from, board: board, occupancy: occupancy)
            let context = "game \(index), ply \(start), gap \(length), \(plies) plies, limit \(limit)"
            switch (answer, expected) {
            case (.lines(let lines), .lines(let expectedLines)):
                // The lines of one placement come in the order found, the placements in no order.
                #expect(Set(lines.map { $0.map(\.uci) }) == Set(expectedLines.map { $0.map(\.uci) }), "\(context)")
                #expect(lines.map(\.count) == expectedLines.map(\.count), "\(context)")
            default:
                #expect(answer == expected, "\(context)")
            }
            if case .tooMany = expected { gaveUp += 1 }
            #expect(quick.nodes <= full.nodes, "\(context)")
            if quick.nodes < full.nodes { sooner += 1 }
        }
        // The comparison covers both answers and the shortcut.
        #expect(gaveUp >= 60, "\(gaveUp) give-ups")
        #expect(sooner >= 30, "\(sooner) searches gave up sooner")
    }

    /// Random games, a gap of 1–3 plies at random moments, searched four plies deep: the
    /// true line's placement is always among those listed (never missed, so never guessed
    /// around), with a line no longer than the true one; and every line listed is legal and
    /// fills the squares shown.
    @Test func theTruePlacementIsAlwaysListed() throws {
        var gaps = 0
        var gaveUp = 0
        for index in 0..<20 {
            let moves = randomGame(seed: Self.seed &+ UInt64(index), maxPlies: 80)
            var rng = SplitMix64(seed: Self.seed &* UInt64(index + 1))
            var position = Position.starting
            var ply = 0
            while ply + 3 < moves.count {
                let length = 1 + Int(rng.next() % 3)
                let shown = moves[ply..<(ply + length)].reduce(position) { $0.applying($1) }
                gaps += 1
                switch search(position, shown, plies: 4, nodes: 20_000) {
                case .tooMany:
                    gaveUp += 1
                case .lines(let lines):
                    let truth = PackedBoard(position: shown)
                    let ends = lines.map { line in PackedBoard(position: line.reduce(position) { $0.applying($1) }) }
                    let context = "\(position.fen) \(moves[ply..<(ply + length)].map(\.uci))"
                    #expect(ends.contains(truth), "\(context)")
                    #expect(ends.allSatisfy { $0.occupancy == truth.occupancy }, "\(context)")
                    let shortest = zip(ends, lines).filter { $0.0 == truth }.map(\.1.count).min() ?? .max
                    #expect(shortest <= length, "\(context)")
                }
                position = moves[ply..<(ply + 5)].reduce(position) { $0.applying($1) }
                ply += 5
            }
        }
        print("occupancy gap search: \(gaps) gaps, gave up on \(gaveUp), seed \(Self.seed)")
        #expect(gaps >= 200)
        #expect(gaveUp < gaps / 4)
    }
}
