import Adapters
import BoardKit
import Emulation
import Foundation
import TestSupport

/// An adapter wired to an emulated board the way a transport wires it to a real one:
/// handshake and commands paced by the write floor, every notification fed to the
/// adapter, pending responses written back. Time is simulated.
struct EmulatedLink<Adapter: BoardAdapter, Personality: BoardPersonality> {
    var adapter: Adapter
    var personality: Personality
    var time: TimeInterval = 0
    var events: [BoardEvent] = []
    var lastWrite: TimeInterval?

    init(_ adapter: Adapter, _ personality: Personality) {
        self.adapter = adapter
        self.personality = personality
    }

    /// Brings the link up and runs the adapter's handshake.
    mutating func connect(isReconnect: Bool = false) {
        deliver(personality.linkEstablished(at: time))
        for step in adapter.handshakeCommands(isReconnect: isReconnect) {
            time += step.delayBefore
            send(step.command)
        }
    }

    /// Encodes and writes `command` no sooner than the write floor allows.
    mutating func send(_ command: BoardCommand) {
        guard let bytes = adapter.encode(command) else { return }
        write(bytes)
    }

    /// Writes raw bytes, respecting the write floor.
    mutating func write(_ bytes: Data) {
        if let lastWrite { time = max(time, lastWrite + adapter.minimumWriteInterval) }
        lastWrite = time
        deliver(personality.handleWrite(bytes, at: time))
    }

    /// Writes raw bytes now, ignoring the floor (to provoke violations).
    mutating func writeUnpaced(_ bytes: Data) {
        lastWrite = time
        deliver(personality.handleWrite(bytes, at: time))
    }

    /// Feeds notifications to the adapter and writes back its mandatory responses.
    mutating func deliver(_ notifications: [Data]) {
        for notification in notifications {
            events += adapter.feed(bytes: notification)
            for response in adapter.takePendingResponses() { write(response) }
        }
    }

    /// A person acts on the board, 0.3 s after the previous action.
    mutating func perform(_ action: PhysicalAction) {
        time += 0.3
        deliver(personality.perform(action, at: time))
    }

    /// Lets the firmware run its periodic work for `seconds`.
    mutating func run(for seconds: TimeInterval) {
        guard let interval = personality.tickInterval else {
            time += seconds
            return
        }
        let end = time + seconds
        while time + interval <= end + 1e-9 {
            time += interval
            deliver(personality.tick(at: time))
        }
    }

    /// The last full piece snapshot the adapter reported.
    var lastPieces: BoardSnapshot? {
        for event in events.reversed() {
            if case .pieces(let snapshot) = event { return snapshot }
        }
        return nil
    }

    /// The occupancy the events describe: the last snapshot, then lifts and placements.
    var foldedOccupancy: OccupancyMap? {
        var map: OccupancyMap?
        for event in events {
            switch event {
            case .occupancy(let snapshot): map = snapshot
            case .pieces(let snapshot): map = snapshot.occupancy
            case .pieceLifted(let square): map?.remove(square)
            case .piecePlaced(let square, _): map?.insert(square)
            default: break
            }
        }
        return map
    }
}

/// Move lists shared by the personality tests.
enum SampleGames {
    /// A line with captures, en passant, castling on both sides and a capture-promotion.
    static let specialMoves = [
        "e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "c7d6", "g1f3", "b8c6", "f1c4", "c8e6",
        "e1g1", "d8d7", "b2b4", "e8c8", "b4b5", "a6b5", "c4b5", "h7h5", "a2a4", "h5h4",
        "g2g3", "h4g3", "d2d3", "g3h2", "g1h1", "h2g1q", "f1g1",
    ]

    /// Plays `moves` physically on `link`, checking `reflects` after every action.
    static func play<A: BoardAdapter, P: BoardPersonality>(
        _ moves: [String], on link: inout EmulatedLink<A, P>, style: HumanMoveStyle, seed: UInt64,
        check: (EmulatedLink<A, P>) -> Void
    ) {
        var generator = SeededGenerator(seed: seed)
        for uci in moves {
            guard let move = BoardMove(uci: uci) else { continue }
            let actions = HumanMoves.actions(for: move, on: link.personality.board, style: style, using: &generator)
            for action in actions {
                link.perform(action)
                check(link)
            }
        }
    }
}
