import Adapters
import BoardKit
import Emulation
import Foundation

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
