public import Adapters
public import BoardKit
public import FoundationEssentials

/// Something a person (or the simulator's script) does to a physical board.
public enum PhysicalAction: Hashable, Sendable {
    /// Lifts whatever stands on the square (nothing happens on an empty square).
    case lift(Square)
    /// Puts `piece` down on the square.
    case place(Piece, on: Square)
    /// Knocks the piece on the square over so the sensor loses it (occupancy boards see
    /// the square empty; identity boards see it empty or unreadable).
    case knockOver(Square)
    /// Sets the battery level in percent and whether it is charging.
    case setBattery(percent: Int, charging: Bool)
    /// Presses a button, named as the family names it.
    case pressButton(String)
}

/// Counters of the host's protocol violations, as the firmware would notice them.
public struct ProtocolViolations: Hashable, Sendable, Codable {
    /// Writes closer together than the firmware's floor (Chessnut: 200 ms).
    public var writesTooClose = 0
    /// Frames that needed an ack that never came before the board retransmitted.
    public var missingAcks = 0
    /// Writes the firmware could not parse.
    public var malformedCommands = 0
    /// Commands sent before the board was unlocked or a session was open.
    public var commandsBeforeUnlock = 0

    /// No violations.
    public init() {}

    /// The sum of all counters.
    public var total: Int { writesTooClose + missingAcks + malformedCommands + commandsBeforeUnlock }
}

/// The firmware of one emulated board: it owns the physical board state, answers host
/// writes like the real firmware, and turns physical actions into the notifications the
/// real board would send.
///
/// Time is passed in (seconds on any monotonic scale); personalities never read a clock.
/// Every method returns the notifications to deliver, in order, one `Data` per BLE
/// notification (the host, e.g. boardsim, emits one `PropertiesChanged(Value)` for each).
public protocol BoardPersonality: Sendable {
    /// The family this firmware belongs to.
    var family: BoardFamily { get }
    /// The GATT layout and identification the host must expose.
    var profile: BoardProfile { get }
    /// What is physically on the board, in ``Square`` order from White's side.
    var board: BoardSnapshot { get }
    /// Protocol violations counted so far.
    var violations: ProtocolViolations { get }
    /// Whether the board was set up with Black on the near side (the wire order flips).
    var isFlipped: Bool { get set }
    /// How often the host should call ``tick(at:)`` (periodic state streaming,
    /// retransmissions), or `nil` when the firmware never acts on its own.
    var tickInterval: TimeInterval? { get }

    /// The host subscribed to notifications: a link is up.
    mutating func linkEstablished(at time: TimeInterval) -> [Data]
    /// The link went away (the firmware forgets per-link state, keeps the board).
    mutating func linkLost()
    /// The host wrote `bytes` to the write characteristic.
    mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data]
    /// A person acted on the board.
    mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data]
    /// Periodic work: streaming, retransmission of unacknowledged frames.
    mutating func tick(at time: TimeInterval) -> [Data]
}
