import Adapters
public import BoardKit
public import Emulation
public import Foundation

/// A ``BoardTransport`` that hosts an emulated board in-process: writes go straight to
/// the personality, its notifications straight into the adapter. It behaves like the
/// real transport (fresh adapter per link, handshake, acks drained after every feed,
/// `.disconnected(error:)` on a drop) without D-Bus or timers, so the bridge's board
/// sessions can be tested deterministically. Time is a manual clock (``now``).
///
/// Like the BlueZ transports it hands its events straight to a handler when one is set
/// (``BoardEventDelivering``), so a board session has handled an action when ``perform(_:)``
/// returns; an event raised while one is being handled waits for it (never nested). Without
/// a handler the events go to ``events``.
@MainActor
public final class InMemoryBoardTransport: BoardCommandChecking, BoardEventDelivering {
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
    private var handler: (@MainActor (BoardEvent) -> Void)?
    private var waiting: [BoardEvent] = []
    private var isHandling = false

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
        emit(.connected)
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
        emit(.disconnected(error: nil))
    }

    /// The board drops the link (out of range, switched off).
    public func dropLink(reason: String = "link lost") {
        personality.linkLost()
        adapter = nil
        lastError = reason
        setState(.disconnected)
        emit(.disconnected(error: reason))
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

    /// Delivers every later event to `handler` instead of the stream; `nil` returns to the stream.
    public func deliverEvents(to handler: (@MainActor (BoardEvent) -> Void)?) {
        self.handler = handler
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
                emit(event)
            }
            for response in adapter!.takePendingResponses() {
                write(response)
            }
        }
    }

    private func emit(_ event: BoardEvent) {
        guard handler != nil else {
            continuation.yield(event)
            return
        }
        waiting.append(event)
        guard !isHandling else { return }
        isHandling = true
        defer { isHandling = false }
        while !waiting.isEmpty, let handler {
            handler(waiting.removeFirst())
        }
        // The handler went away while handling: what is left goes to the stream, in order.
        for event in waiting { continuation.yield(event) }
        waiting = []
    }

    private func setState(_ newState: BoardTransportState) {
        state = newState
        onStateChange?(newState)
    }
}
