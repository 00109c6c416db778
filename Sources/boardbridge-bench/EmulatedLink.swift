import Adapters
import BoardKit
import Chess
import Emulation
import Foundation
import TestSupport

/// An emulated board wired to its adapter the way the bridge's transport wires a real one,
/// in simulated time: the handshake and every write paced by the adapter's write floor,
/// every notification fed to the adapter, mandatory responses written back. It records
/// the notifications (to replay them into a fresh adapter) and the events with their
/// times (to replay them into the kernel).
struct EmulatedLink {
    /// Why a notification was sent.
    enum Origin: Equatable {
        /// The handshake, or an answer to a host write.
        case write
        /// A person's action (a board change).
        case action
        /// The firmware's periodic work (state streaming, retransmission).
        case tick
    }

    /// The simulated firmware.
    var personality: any BoardPersonality
    /// The adapter under test.
    var adapter: any BoardAdapter
    /// Simulated seconds.
    var time: TimeInterval = 0
    /// Every notification since the handshake ended, in order.
    var notifications: [Data] = []
    /// The origin of each of ``notifications``.
    var origins: [Origin] = []
    /// Every event since the link came up (handshake included), with its time.
    var events: [(event: BoardEvent, time: TimeInterval)] = []
    /// The adapter as it was when recording started (replays begin from it).
    private(set) var adapterAtRecordingStart: (any BoardAdapter)?
    private var lastWrite: TimeInterval?
    private var recording = false

    /// A link to a fresh emulated board of `family`, advertising the family's usual name.
    init(family: BoardFamily) throws {
        let name = AdapterFactory.profile(for: family).namePrefixes.first ?? family.displayName
        personality = PersonalityFactory.makePersonality(family: family, name: name)
        adapter = try AdapterFactory.makeAdapter(for: family, options: AdapterOptions(advertisedName: name))
    }

    /// Brings the link up and runs the handshake (the transport's `.connected` comes first).
    /// Recording of notifications starts after it.
    mutating func connect() {
        events.append((.connected, time))
        deliver(personality.linkEstablished(at: time), origin: .write)
        for step in adapter.handshakeCommands(isReconnect: false) {
            idle(for: step.delayBefore)
            if let bytes = adapter.encode(step.command) { write(bytes) }
        }
        // Let the board settle (first state frames) before recording.
        idle(for: 1)
        recording = true
        adapterAtRecordingStart = adapter
    }

    /// A person acts on the board `gap` seconds after the previous action.
    mutating func perform(_ action: PhysicalAction, gap: TimeInterval) {
        idle(for: gap)
        deliver(personality.perform(action, at: time), origin: .action)
    }

    /// Lets `seconds` pass, ticking the firmware at its interval.
    mutating func idle(for seconds: TimeInterval) {
        let end = time + seconds
        if let interval = personality.tickInterval, interval > 0 {
            while time + interval <= end + 1e-9 {
                time += interval
                deliver(personality.tick(at: time), origin: .tick)
            }
        }
        time = end
    }

    /// Plays `move` by hand (random human style), one action every `actionGap` seconds.
    mutating func play(_ move: Move, actionGap: TimeInterval, using generator: inout SeededGenerator) {
        let actions = HumanMoves.actions(for: move, on: personality.board, style: .random, using: &generator)
        for action in actions { perform(action, gap: actionGap) }
    }

    private mutating func write(_ bytes: Data) {
        if let lastWrite { time = max(time, lastWrite + adapter.minimumWriteInterval) }
        lastWrite = time
        deliver(personality.handleWrite(bytes, at: time), origin: .write)
    }

    private mutating func deliver(_ batch: [Data], origin: Origin) {
        for notification in batch {
            if recording {
                notifications.append(notification)
                origins.append(origin)
            }
            for event in adapter.feed(bytes: notification) { events.append((event, time)) }
            for response in adapter.takePendingResponses() { write(response) }
        }
    }
}
