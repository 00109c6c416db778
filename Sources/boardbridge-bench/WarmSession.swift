import BoardKit
import Bridge
import Chess
import Config
import Contract
import Emulation
import Foundation
import Kernel
import Logging
import TestSupport

/// The bridge's own work on a move, in process and warm: the floor of its own time per move
/// (#33), measured in the same run as the end-to-end figures it is compared with.
///
/// A Chessnut board emulated in process (``InMemoryBoardTransport``: the personality's
/// notifications go through the real adapter) hands its events straight to a real
/// ``BoardSession`` — kernel, clock, journal written to a state directory (and flushed in
/// the background, as in the bridge), every message built — whose messages go to a
/// publisher that keeps them (the MQTT client and the sockets are not part of it). Random
/// games are played move after move, back to back, so code and data stay in the caches
/// (the journal is flushed between moves, untimed, as it is at a human pace): what the
/// bridge's own time per move takes beyond this, between moves seconds apart, is the cost
/// of caches gone cold and of everything else on the machine, not of more work.
@MainActor
enum WarmSession {
    /// What one run measured.
    struct Measurement {
        /// Per move: from the completing action to the move's message handed to the publisher.
        var toPublish: [Double] = []
        /// The main thread's CPU time over the moves timed (every action's handling, every
        /// message), in seconds.
        var total: Double = 0
        /// Moves timed.
        var moves = 0

        /// The main thread's CPU time for a whole move, in seconds.
        var cpuPerMove: Double { total / Double(max(moves, 1)) }
    }

    /// Plays `games` random games of up to `plies` plies.
    static func measure(games: Int, plies: Int) throws -> Measurement {
        let directory = try TestTools.temporaryDirectory("bench-warm-session")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateWriter(store: try StateStore(directory: directory.path), onError: { _, _ in })
        let topics = try Topics(base: "boardbridge", node: "bench")
        var measurement = Measurement()
        for index in 0..<games {
            let moves = RandomGames.game(seed: 0x5E55_1000 &+ UInt64(index), maxPlies: plies)
            try play(moves, id: "board-\(index)", store: store, topics: topics, into: &measurement)
        }
        return measurement
    }

    private static func play(
        _ moves: [Move], id: String, store: StateWriter, topics: Topics, into measurement: inout Measurement
    ) throws {
        let transport = InMemoryBoardTransport(family: .chessnut, name: "Chessnut Air")
        let time = ManualTime()
        let publisher = KeepingPublisher()
        let board = ConfiguredBoard(
            id: id, match: .namePattern(GlobPattern("Chessnut*")!), family: .chessnut,
            timeControl: try TimeControl(pgn: "300+2"))
        let session = BoardSession(
            board: board, transport: transport, game: GameConfiguration(), builder: MessageBuilder(topics: topics),
            publisher: publisher, store: store, clock: SessionClock(now: { [time] in time.now }),
            logger: Logger(label: "bench", level: .info, sink: DiscardingSink()))
        session.start()
        transport.establishLink()
        var generator = SeededGenerator(seed: 0xAC7)
        for move in moves {
            let actions = HumanMoves.actions(
                for: move, on: transport.personality.board, style: .standard, using: &generator)
            guard let last = actions.last else { continue }
            // At a human pace the journal's flush of the move before is done by now.
            store.flush()
            let before = publisher.moves
            let start = threadCPUNanoseconds()
            for action in actions.dropLast() { transport.perform(action) }
            let completing = ContinuousClock.now
            transport.perform(last)
            let cpu = Double(threadCPUNanoseconds() - start) / 1e9
            time.advance(2)
            if publisher.moves == before {
                // A rook moved next to its king may be the first half of castling: the
                // kernel waits for the king before it commits. Not timed.
                time.advance(5)
                session.tick()
                guard publisher.moves == before + 1 else {
                    throw BenchError(description: "the warm session did not publish \(move.uci)")
                }
                continue
            }
            guard publisher.moves == before + 1, let handed = publisher.lastMoveAt else {
                throw BenchError(description: "the warm session published \(move.uci) twice")
            }
            measurement.toPublish.append((handed - completing).inSeconds)
            measurement.total += cpu
            measurement.moves += 1
        }
        session.stop()
        store.flush()
    }
}

/// Keeps the time the last move's message was handed over, and counts the moves.
@MainActor
private final class KeepingPublisher: MessagePublishing {
    private(set) var moves = 0
    private(set) var lastMoveAt: ContinuousClock.Instant?

    func publish(_ message: OutgoingMessage) {
        publish(message, origin: nil)
    }

    func publish(_ message: OutgoingMessage, origin: ContinuousClock.Instant?) {
        if message.topic.hasSuffix("/move") {
            lastMoveAt = .now
            moves += 1
        }
    }
}
