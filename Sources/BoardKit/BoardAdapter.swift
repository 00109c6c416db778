public import FoundationEssentials

/// Pure wire framing for one board family: accumulates raw bytes, parses frames and
/// emits ``BoardEvent``s; encodes ``BoardCommand``s. No I/O, no async, no concurrency
/// primitives. Every conformer is a value type, so a test harness can copy it cheaply.
///
/// `feed(bytes:)` must be called serially; after every call the transport must drain
/// ``takePendingResponses()`` onto the same paced writer it uses for commands.
public protocol BoardAdapter: Sendable {
    /// What the board can sense and do; queried once at connect time.
    var capabilities: BoardCapabilities { get }

    /// The least time, in seconds, the transport leaves between two physical writes
    /// (commands, handshake steps and pending responses alike). Defaults to 0.
    var minimumWriteInterval: TimeInterval { get }

    /// Accumulates `bytes` (framing is stateful across calls) and returns the events of
    /// every frame completed by them. An empty `Data` is a no-op.
    mutating func feed(bytes: Data) -> [BoardEvent]

    /// The wire bytes for `command`, or `nil` when this board does not support it.
    func encode(_ command: BoardCommand) -> Data?

    /// The ordered handshake the transport executes after a link is established,
    /// each step after waiting `delayBefore` seconds (and the write floor).
    /// `isReconnect` is `true` for a restored link, `false` for a fresh connection.
    func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)]

    /// Mandatory wire-level responses (acks) queued while parsing the latest input.
    /// Draining is destructive: each response is returned exactly once. Defaults to `[]`.
    mutating func takePendingResponses() -> [Data]
}

extension BoardAdapter {
    /// No write floor.
    public var minimumWriteInterval: TimeInterval { 0 }

    /// No mandatory responses.
    public mutating func takePendingResponses() -> [Data] { [] }
}
