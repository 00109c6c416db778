import Adapters
import BoardKit
import Chess
import Emulation
import Foundation
import Kernel
import TestScheduling
import TestSupport
import Testing

/// Random legal games played by hand on each emulated board: physical actions →
/// notifications → adapter → events → GameTracker, which must recover every move.
@Suite(.cpuBound) struct HumanMovesRoundTripTests {
    static let gameCount = 100

    /// A seeded random legal game that often castles, takes en passant and promotes.
    static func randomGame(seed: UInt64, underpromotions: Bool, maxPlies: Int = 100) -> [Move] {
        var generator = SeededGenerator(seed: seed)
        var game = Game()
        var moves: [Move] = []
        while moves.count < maxPlies, game.result == .ongoing {
            let position = game.position
            var legal = position.legalMoves()
            if !underpromotions { legal.removeAll { $0.promotion != nil && $0.promotion != .queen } }
            guard !legal.isEmpty else { break }
            let special = legal.filter { move in
                guard let mover = position[move.from] else { return false }
                if move.promotion != nil { return true }
                if mover.kind == .king, abs(move.to.file - move.from.file) == 2 { return true }
                return mover.kind == .pawn && move.from.file != move.to.file && position[move.to] == nil
            }
            let pawnMoves = legal.filter { position[$0.from]?.kind == .pawn }
            let homeRank = position.sideToMove == .white ? 0 : 7
            let development = legal.filter {
                $0.from.rank == homeRank && [.knight, .bishop, .queen].contains(position[$0.from]?.kind)
            }
            let roll = Int.random(in: 0..<10, using: &generator)
            let pool: [Move]
            if !special.isEmpty, roll < 6 {
                pool = special
            } else if !development.isEmpty, roll < 8, moves.count < 30 {
                pool = development
            } else if !pawnMoves.isEmpty, roll < 8 {
                pool = pawnMoves
            } else {
                pool = legal
            }
            guard let move = pool.randomElement(using: &generator) else { break }
            do { try game.play(move) } catch { break }
            moves.append(move)
        }
        return moves
    }

    /// Plays `moves` on `link` and returns the tracker after the game.
    static func replay<A: BoardAdapter, P: BoardPersonality>(
        _ moves: [Move], on link: inout EmulatedLink<A, P>, options: TrackerOptions, seed: UInt64
    ) -> (tracker: GameTracker, outputs: [TrackerOutput]) {
        var tracker = GameTracker(capabilities: link.adapter.capabilities, options: options)
        var outputs: [TrackerOutput] = []
        var seen = 0
        func drain(_ link: EmulatedLink<A, P>) {
            for event in link.events[seen...] { outputs += tracker.handle(event, at: link.time) }
            seen = link.events.count
            outputs += tracker.tick(at: link.time)
        }
        link.connect()
        drain(link)
        var generator = SeededGenerator(seed: seed)
        for move in moves {
            let actions = HumanMoves.actions(
                for: move, on: link.personality.board, style: .random, using: &generator)
            for action in actions {
                link.perform(action)
                drain(link)
            }
            link.run(for: 0.3)
            drain(link)
        }
        link.time += 10
        drain(link)
        return (tracker, outputs)
    }

    static func check(_ moves: [Move], _ result: (tracker: GameTracker, outputs: [TrackerOutput]), game: Int) {
        #expect(result.tracker.game.moves.map(\.move) == moves, "game \(game)")
        #expect(result.tracker.syncState == .inSync, "game \(game)")
        for output in result.outputs {
            switch output {
            case .takeback, .illegalMove, .newGame: Issue.record("game \(game): unexpected \(output)")
            default: break
            }
        }
    }

    @Test func theGamesHoldTheSpecialMoves() {
        var castlings = 0
        var enPassants = 0
        var underpromotions = 0
        var plies = 0
        for index in 0..<Self.gameCount {
            var game = Game()
            for move in Self.randomGame(seed: 0xC4E5 + UInt64(index), underpromotions: true) {
                let position = game.position
                let mover = position[move.from]
                if mover?.kind == .king, abs(move.to.file - move.from.file) == 2 { castlings += 1 }
                if mover?.kind == .pawn, move.from.file != move.to.file, position[move.to] == nil { enPassants += 1 }
                if let promotion = move.promotion, promotion != .queen { underpromotions += 1 }
                try? game.play(move)
                plies += 1
            }
        }
        #expect(castlings >= 50)
        #expect(enPassants >= 20)
        #expect(underpromotions >= 20)
        #expect(plies >= 50 * Self.gameCount)
    }

    @Test func chessnutGamesAreRecovered() {
        for index in 0..<Self.gameCount {
            let moves = Self.randomGame(seed: 0xC4E5 + UInt64(index), underpromotions: true)
            let personality = ChessnutPersonality(isFlipped: index % 4 == 3)
            var link = EmulatedLink(ChessnutAdapter(), personality)
            let result = Self.replay(moves, on: &link, options: TrackerOptions(), seed: UInt64(index))
            Self.check(moves, result, game: index)
            #expect(link.personality.violations.total == 0)
        }
    }

    @Test func millenniumGamesAreRecovered() {
        for index in 0..<Self.gameCount {
            let moves = Self.randomGame(seed: 0x3111 + UInt64(index), underpromotions: true)
            let personality = MillenniumPersonality(isFlipped: index % 4 == 2)
            var link = EmulatedLink(MillenniumAdapter(), personality)
            let result = Self.replay(moves, on: &link, options: TrackerOptions(), seed: UInt64(index))
            Self.check(moves, result, game: index)
            #expect(link.personality.violations.total == 0)
        }
    }

    /// The board reports a8 first however it stands: a board set up the other way round is
    /// found by the kernel from its start position.
    @Test func iChessOneGamesAreRecovered() {
        for index in 0..<Self.gameCount {
            let moves = Self.randomGame(seed: 0x1C10 + UInt64(index), underpromotions: true)
            let personality = IChessOnePersonality(isFlipped: index % 4 == 1)
            var link = EmulatedLink(IChessOneAdapter(), personality)
            let result = Self.replay(moves, on: &link, options: TrackerOptions(), seed: UInt64(index))
            Self.check(moves, result, game: index)
            #expect(link.personality.violations.total == 0)
        }
    }

    /// A Chess Peripheral Protocol board refereed as the bridge's session referees it: the
    /// position begun once the board is ready, each report answered with what the tracker
    /// made of it. Every other game the board names its promotion pieces (underpromotions
    /// too); in the others it names none and the host's queen is taken. Every third board
    /// speaks the protocol's 2024 dialect (OPENCHESSBOARD's): its `begin` refused, its round
    /// begun with `fen`, its `ok` read as the squares of the position it was given.
    @Test func chessPeripheralGamesAreRecovered() {
        for index in 0..<Self.gameCount {
            let namesPieces = index % 2 == 0
            let moves = Self.randomGame(seed: 0xC990 + UInt64(index), underpromotions: namesPieces)
            var firmware = index % 3 == 2 ? ChessPeripheralPersonality.Options.openChessBoard : .init()
            firmware.namesPromotionPiece = namesPieces
            var link = EmulatedLink(ChessPeripheralAdapter(), ChessPeripheralPersonality(options: firmware))
            var options = TrackerOptions()
            options.promotionPickWait = 0
            var tracker = GameTracker(capabilities: link.adapter.capabilities, options: options)
            var outputs: [TrackerOutput] = []
            var seen = 0
            func referee(_ link: inout EmulatedLink<ChessPeripheralAdapter, ChessPeripheralPersonality>) {
                while seen < link.events.count {
                    var event = link.events[seen]
                    seen += 1
                    // As the session reads it: the squares of the position the board holds.
                    if event == .positionConfirmed { event = .occupancy(tracker.position.snapshot.occupancy) }
                    let made = tracker.handle(event, at: link.time)
                    outputs += made
                    switch event {
                    case .ready:
                        link.send(.loadPosition(fen: tracker.position.fen))
                    case .moveReported(let reported):
                        var taken: BoardMove?
                        for case .move(let committed) in made {
                            taken = BoardMove(uci: committed.uci)
                            break
                        }
                        link.send(.judgeMove(reported: reported, taken: taken))
                    default:
                        break
                    }
                }
                outputs += tracker.tick(at: link.time)
            }
            link.connect()
            referee(&link)
            var generator = SeededGenerator(seed: UInt64(index))
            for move in moves {
                for action in HumanMoves.actions(
                    for: move, on: link.personality.board, style: .random, using: &generator)
                {
                    link.perform(action)
                    referee(&link)
                }
            }
            link.time += 10
            referee(&link)
            Self.check(moves, (tracker, outputs), game: index)
            #expect(link.personality.isSynced, "game \(index)")
            #expect(
                link.personality.heldFEN?.split(separator: " ").prefix(3)
                    == tracker.position.fen.split(separator: " ").prefix(3),
                "game \(index)")
            #expect(link.personality.verdicts.allSatisfy { $0 == "ok" || $0.hasPrefix("promote ") }, "game \(index)")
            #expect(link.personality.violations.total == 0)
            #expect(link.adapter.dialect == firmware.dialect, "game \(index)")
        }
    }

    @Test func pegasusGamesAreRecovered() throws {
        for index in 0..<Self.gameCount {
            // Occupancy cannot show which piece a pawn became: queens only.
            let moves = Self.randomGame(seed: 0xD67 + UInt64(index), underpromotions: false)
            let flipped = index % 4 == 1
            var link = EmulatedLink(try PegasusAdapter(), PegasusPersonality(isFlipped: flipped))
            let options = TrackerOptions(orientation: flipped ? .blackNear : .whiteNear)
            let result = Self.replay(moves, on: &link, options: options, seed: UInt64(index))
            Self.check(moves, result, game: index)
            #expect(link.personality.violations.total == 0)
        }
    }
}
