import Adapters
import BoardKit
import Chess
import Emulation
import Foundation
import Kernel
import TestSupport

/// An emulated board wired to its adapter the way the bridge's transport wires a real one:
/// notifications go into `feed(bytes:)`, pending responses are written back at once (when
/// `writesResponses`), handshake steps are encoded and written after their delays.
/// Time advances by a fixed step per physical action.
struct ChessUpSquareOffLink<Personality: BoardPersonality, Adapter: BoardAdapter> {
    var personality: Personality
    var adapter: Adapter
    var time: TimeInterval = 0
    var events: [BoardEvent] = []
    /// Every notification the board sent, in order.
    var notifications: [Data] = []
    /// Every write the host made (commands and responses), in order.
    var writes: [Data] = []
    var writesResponses = true

    init(_ personality: Personality, _ adapter: Adapter) {
        self.personality = personality
        self.adapter = adapter
    }

    /// The moves reported so far, each with the promotion pick folded in.
    var reportedMoves: [BoardMove] {
        var moves: [BoardMove] = []
        for event in events {
            switch event {
            case .moveReported(let move): moves.append(move)
            case .promotionPicked(let kind): if !moves.isEmpty { moves[moves.count - 1].promotion = kind }
            default: break
            }
        }
        return moves
    }

    /// Feeds `frames` to the adapter and writes its responses back.
    mutating func deliver(_ frames: [Data]) {
        for frame in frames {
            notifications.append(frame)
            events += adapter.feed(bytes: frame)
            let responses = adapter.takePendingResponses()
            guard writesResponses else { continue }
            for response in responses { write(response) }
        }
    }

    /// Writes `bytes` to the board and delivers its answers.
    mutating func write(_ bytes: Data) {
        writes.append(bytes)
        deliver(personality.handleWrite(bytes, at: time))
    }

    /// Sends `command` through the adapter; `false` when the adapter cannot encode it.
    @discardableResult
    mutating func send(_ command: BoardCommand) -> Bool {
        guard let bytes = adapter.encode(command) else { return false }
        write(bytes)
        return true
    }

    /// Brings the link up and runs the adapter's handshake.
    mutating func connect(isReconnect: Bool = false) {
        deliver(personality.linkEstablished(at: time))
        for step in adapter.handshakeCommands(isReconnect: isReconnect) {
            advance(by: step.delayBefore)
            send(step.command)
        }
    }

    /// Drops the link (the adapter must be reset by the caller, as a transport does).
    mutating func disconnect() {
        personality.linkLost()
    }

    /// Performs `actions`, one per 50 ms.
    mutating func perform(_ actions: [PhysicalAction]) {
        for action in actions {
            time += 0.05
            deliver(personality.perform(action, at: time))
        }
    }

    /// Lets `seconds` pass, ticking the board at its tick interval.
    mutating func advance(by seconds: TimeInterval) {
        let end = time + seconds
        guard let interval = personality.tickInterval else {
            time = end
            return
        }
        while time + interval <= end + 1e-9 {
            time += interval
            deliver(personality.tick(at: time))
        }
        time = end
    }
}

/// The outcome of a random game played by hand through a link and a ``GameTracker``.
struct ChessUpSquareOffRoundTrip {
    /// The moves played on the board (UCI).
    var played: [String] = []
    /// The moves the tracker committed (UCI).
    var tracked: [String] = []
    /// Every tracker output.
    var outputs: [TrackerOutput] = []
    /// How many castlings, en-passant captures and promotions were played.
    var castlings = 0
    var enPassants = 0
    var promotions = 0
}

extension ChessUpSquareOffLink {
    /// Plays a random legal game (seeded) by hand on the emulated board, with every board
    /// event run through a ``GameTracker`` built from the adapter's capabilities. Promotions
    /// other than a queen are only chosen when `underpromotes` (an occupancy board cannot
    /// tell which piece was put down), and only moves `allows` takes (a promotion needs a
    /// piece of that kind off the board, on a board that knows its pieces by tag).
    mutating func playRandomGame(
        seed: UInt64, maxPlies: Int, underpromotes: Bool, allows: (Move, Personality) -> Bool = { _, _ in true }
    ) -> ChessUpSquareOffRoundTrip {
        var generator = SeededGenerator(seed: seed)
        var tracker = GameTracker(
            capabilities: adapter.capabilities, options: TrackerOptions(orientation: .whiteNear))
        var result = ChessUpSquareOffRoundTrip()
        var consumed = 0
        func feedTracker(_ link: inout Self) {
            while consumed < link.events.count {
                result.outputs += tracker.handle(link.events[consumed], at: link.time)
                consumed += 1
            }
            if let deadline = tracker.nextDeadline, deadline <= link.time {
                result.outputs += tracker.tick(at: link.time)
            }
        }
        connect()
        feedTracker(&self)
        var position = Position.starting
        for _ in 0..<maxPlies {
            var moves = position.legalMoves()
            if !underpromotes { moves.removeAll { $0.promotion != nil && $0.promotion != .queen } }
            moves.removeAll { !allows($0, personality) }
            // Castling, en passant and promotion are taken whenever they are legal (three
            // times in four), so that the corpus exercises them.
            let special = moves.filter { candidate in
                let piece = position[candidate.from]
                return candidate.promotion != nil
                    || (piece?.kind == .king && abs(candidate.to.file - candidate.from.file) == 2)
                    || (piece?.kind == .pawn && candidate.from.file != candidate.to.file
                        && position[candidate.to] == nil)
            }
            if !special.isEmpty, Int.random(in: 0..<4, using: &generator) > 0 { moves = special }
            guard !tracker.isGameOver, let move = moves.randomElement(using: &generator) else { break }
            let mover = position[move.from]
            if mover?.kind == .king, abs(move.to.file - move.from.file) == 2 { result.castlings += 1 }
            if mover?.kind == .pawn, move.from.file != move.to.file, position[move.to] == nil { result.enPassants += 1 }
            if move.promotion != nil { result.promotions += 1 }
            let actions = HumanMoves.actions(
                for: move, on: personality.board, style: .random, using: &generator)
            for action in actions {
                perform([action])
                feedTracker(&self)
            }
            position.apply(move)
            result.played.append(move.uci)
            advance(by: 0.3)
            feedTracker(&self)
        }
        for _ in 0..<12 {
            advance(by: 0.25)
            feedTracker(&self)
        }
        result.tracked = tracker.game.moves.map(\.move.uci)
        return result
    }
}
