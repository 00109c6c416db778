public import FoundationEssentials

/// The state of a board's link.
public enum BoardTransportState: Equatable, Sendable {
    /// The radio (adapter) is off.
    case poweredOff
    /// The process may not use the radio.
    case unauthorized
    /// Ready, doing nothing.
    case idle
    /// Looking for boards.
    case scanning
    /// Establishing a link.
    case connecting
    /// A writable link with an active notification subscription. Precedes the adapter
    /// handshake: wait for ``BoardEvent/ready`` before trusting the sensor stream.
    case connected
    /// No link, and none being re-established.
    case disconnected
    /// Re-establishing a dropped link; `attempt` is 1-indexed.
    case reconnecting(attempt: Int)
}

/// A board seen during a scan.
public struct DiscoveredBoardDevice: Identifiable, Equatable, Sendable {
    /// A stable identifier for the peripheral (derived from its address on Linux).
    public let id: UUID
    /// The advertised device name ("Chessnut Air", …).
    public let name: String
    /// Signal strength in dBm; use for proximity sorting.
    public let rssi: Int
    /// An opaque transport token (the BlueZ object path on Linux); do not interpret.
    public let token: String

    /// Creates a discovered-device record.
    public init(id: UUID, name: String, rssi: Int, token: String) {
        self.id = id
        self.name = name
        self.rssi = rssi
        self.token = token
    }
}

/// The platform radio side of a board link: owns the link, holds a ``BoardAdapter``
/// and exposes the decoded events. Main-actor isolated: one event loop drives it.
///
/// On data: `adapter.feed(bytes:)` → yield events → drain `takePendingResponses()` onto
/// the serialized, paced writer. On link up: yield `.connected`, run the handshake.
/// On link drop: yield `.disconnected(error:)`.
@MainActor
public protocol BoardTransport: AnyObject {
    /// The link state.
    var state: BoardTransportState { get }
    /// Boards seen by the current or last scan.
    var discovered: [DiscoveredBoardDevice] { get }
    /// The name of the connected board, if any.
    var connectedDeviceName: String? { get }
    /// The last error, readable.
    var lastError: String? { get }
    /// Decoded events and link events, in order.
    var events: AsyncStream<BoardEvent> { get }

    /// Starts looking for boards.
    func startScan()
    /// Stops looking for boards.
    func stopScan()
    /// Connects to `device` (one from ``discovered``).
    func connect(_ device: DiscoveredBoardDevice)
    /// Closes the link on the user's request (no reconnect follows).
    func disconnect()
    /// Encodes `command` with the adapter and queues it on the paced writer;
    /// unsupported commands are skipped.
    func send(_ command: BoardCommand)
}

/// A transport that can hand its events straight to one consumer on the main actor, in
/// place of ``BoardTransport/events``.
///
/// An `AsyncStream` consumed on the main actor resumes its waiting task on the global
/// executor and hops back for every event: two thread switches per event. A consumer that
/// lives on the main actor anyway (the bridge's board session) skips that by registering a
/// handler; events are then delivered to it in order and no longer yielded to the stream.
/// The events decoded from a notification are delivered as soon as the transport is done
/// with that notification (its adapter fed, its responses queued); link events raised in the
/// middle of the transport's own work are delivered in a later turn of the main queue.
@MainActor
public protocol BoardEventDelivering: BoardTransport {
    /// Delivers every later event to `handler` instead of the stream; `nil` returns to the
    /// stream.
    func deliverEvents(to handler: (@MainActor (BoardEvent) -> Void)?)
}

/// A transport that can take in at once what its board has sent and the main loop has not
/// read yet (notifications waiting in its sockets), delivering their events before it
/// returns (``BoardEventDelivering``).
///
/// The bridge calls it before it applies a command to the board's session: the loop serves
/// the broker connection and the boards' sockets in turns, so a command read in one turn
/// could otherwise be applied ahead of a board's moves that arrived before it (a
/// `new_game` read during a flood of commands started the new game while the old game's
/// last moves still waited in the socket, and they were lost, #29). Not part of the
/// BoardKit specification: the bridge's own extension, like ``BoardEventDelivering``.
@MainActor
public protocol BoardInputTaking: BoardTransport {
    /// Reads and handles what waits unread on the link (a bounded amount).
    func takeWaitingInput()
}

/// A transport that tells whoever sends a command whether the board it is connected to
/// can carry it out: the command is encoded once, and sent or refused on that encoding
/// (``BoardTransport/send(_:)`` skips one silently).
@MainActor
public protocol BoardCommandChecking: BoardTransport {
    /// Encodes `command` with the connected board's adapter and queues it, as
    /// ``BoardTransport/send(_:)`` does; `false` (nothing sent) when the adapter encodes
    /// nothing for it or there is no link.
    func sendIfSupported(_ command: BoardCommand) -> Bool
}
