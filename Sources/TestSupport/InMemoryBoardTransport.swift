import Adapters
public import BoardKit
public import Emulation
public import Foundation

/// A ``BoardTransport`` that hosts an emulated board in-process: writes go straight to
/// the personality, its notifications straight into the adapter. It behaves like the
/// real transport (fresh adapter per link, handshake, acks drained after every feed,
/// `.disconnected(error:)` on a drop) without D-Bus or timers, so the bridge's board
/// sessions can be tested deterministically. Time is a manual clock (``now``).
@MainActor
public final class InMemoryBoardTransport: BoardCommandChecking {
    /// The link state.
    public private(set) var state: BoardTransportState = .idle
    /// The hosted board, once "scanned".
    public private(set) var discovered: [DiscoveredBoardDevice] = []
    /// The hosted board's name while connected.
    public private(set) var connectedDeviceName: String?
    /// The last error.
    public private(set) var lastError: String?
    /// Decoded and link events.
    public let events: AsyncStream<BoardEvent>
    /// The emulated firmware.
    public private(set) var personality: any BoardPersonality
    /// Every payload written to the board, with the manual time it was written at.
    public private(set) var writes: [(time: TimeInterval, bytes: Data)] = []
    /// The manual clock, in seconds.
    public var now: TimeInterval = 0
    /// Observers of state changes (the bridge publishes them).
    public var onStateChange: (@MainActor (BoardTransportState) -> Void)?

    private let family: BoardFamily
    private let name: String
    private var adapter: (any BoardAdapter)?
    private var hasConnectedBefore = false
    private let continuation: AsyncStream<BoardEvent>.Continuation

    /// A transport hosting `personality`, a board of `family` advertising `name`.
    public init(family: BoardFamily, name: String, personality: any BoardPersonality) {
        self.family = family
        self.name = name
        self.personality = personality
        (events, continuation) = AsyncStream.makeStream(of: BoardEvent.self)
    }

    /// A transport hosting a fresh emulated board of `family`.
    public convenience init(family: BoardFamily, name: String, board: BoardSnapshot = .startingPosition) {
        self.init(
            family: family, name: name,
            personality: PersonalityFactory.makePersonality(family: family, name: name, board: board))
    }

    /// "Finds" the hosted board.
    public func startScan() {
        setState(.scanning)
        discovered = [
            DiscoveredBoardDevice(
                id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, name: name, rssi: -50, token: "memory")
        ]
    }

    /// Stops "scanning".
    public func stopScan() {
        if state == .scanning { setState(.idle) }
    }

    /// Establishes the link at once and runs the handshake (delays are not waited for).
    public func connect(_ device: DiscoveredBoardDevice) {
        establishLink()
    }

    /// Establishes (or re-establishes) the link.
    public func establishLink() {
        setState(.connecting)
        adapter = try? AdapterFactory.makeAdapter(for: family, options: AdapterOptions(advertisedName: name))
        connectedDeviceName = name
        setState(.connected)
        continuation.yield(.connected)
        deliver(personality.linkEstablished(at: now))
        guard let adapter else { return }
        for step in adapter.handshakeCommands(isReconnect: hasConnectedBefore) {
            send(step.command)
        }
        hasConnectedBefore = true
    }

    /// Closes the link on the user's request.
    public func disconnect() {
        personality.linkLost()
        adapter = nil
        connectedDeviceName = nil
        setState(.disconnected)
        continuation.yield(.disconnected(error: nil))
    }

    /// The board drops the link (out of range, switched off).
    public func dropLink(reason: String = "link lost") {
        personality.linkLost()
        adapter = nil
        lastError = reason
        setState(.disconnected)
        continuation.yield(.disconnected(error: reason))
    }

    /// Shows a reconnect attempt (the bridge publishes it).
    public func markReconnecting(attempt: Int) {
        setState(.reconnecting(attempt: attempt))
    }

    /// Encodes `command` and writes it to the board; unsupported commands are skipped.
    public func send(_ command: BoardCommand) {
        _ = sendIfSupported(command)
    }

    /// Encodes `command` once and writes it; `false` when the adapter encodes nothing for it.
    public func sendIfSupported(_ command: BoardCommand) -> Bool {
        guard let bytes = adapter?.encode(command) else { return false }
        write(bytes)
        return true
    }

    /// A person acts on the board.
    public func perform(_ action: PhysicalAction) {
        deliver(personality.perform(action, at: now))
    }

    /// Lets `seconds` pass on the manual clock, ticking the firmware.
    public func advance(by seconds: TimeInterval) {
        now += seconds
        deliver(personality.tick(at: now))
    }

    /// Ends the event stream.
    public func finish() {
        continuation.finish()
    }

    private func write(_ bytes: Data) {
        writes.append((now, bytes))
        deliver(personality.handleWrite(bytes, at: now))
    }

    private func deliver(_ notifications: [Data]) {
        for notification in notifications {
            guard adapter != nil else { return }
            for event in adapter!.feed(bytes: notification) {
                continuation.yield(event)
            }
            for response in adapter!.takePendingResponses() {
                write(response)
            }
        }
    }

    private func setState(_ newState: BoardTransportState) {
        state = newState
        onStateChange?(newState)
    }
}
