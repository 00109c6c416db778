public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a DGT Pegasus (board-protocols.md §4.2): an occupancy board behind a
/// developer-key lock.
///
/// Until a host writes an accepted key (`63 07 <key> 00`) on the current link, the board
/// dumps `7F` on every square, sends no field updates and no battery, and counts every
/// data command (`42`, `44`, `4C`, `60`) as ``ProtocolViolations/commandsBeforeUnlock``.
/// Unlocked, `44` turns field updates on (`8E 00 05 <field> 00|01`) and LEDs light; a lit
/// pattern clears itself when the occupancy under a lit square changes.
public struct PegasusPersonality: BoardPersonality {
    /// Firmware and link settings.
    public struct Options: Hashable, Sendable {
        /// The keys the firmware accepts; `nil` = no key needed (an unlocked firmware).
        public var acceptedDeveloperKeys: [Data]?
        /// The notification payload limit: longer messages are split (the dump is 67 bytes).
        public var notificationLimit: Int?
        /// Firmware version (`93` reply); major 1 identifies a Pegasus.
        public var version: (major: UInt8, minor: UInt8)
        /// The serial number (`91`, 5 ASCII digits).
        public var serialNumber: String

        /// Creates options.
        public init(
            acceptedDeveloperKeys: [Data]? = [PegasusAdapter.defaultDeveloperKey], notificationLimit: Int? = 20,
            version: (major: UInt8, minor: UInt8) = (1, 0), serialNumber: String = "12345"
        ) {
            self.acceptedDeveloperKeys = acceptedDeveloperKeys
            self.notificationLimit = notificationLimit
            self.version = version
            self.serialNumber = serialNumber
        }

        /// Options are equal when every setting is.
        public static func == (lhs: Options, rhs: Options) -> Bool {
            lhs.acceptedDeveloperKeys == rhs.acceptedDeveloperKeys && lhs.notificationLimit == rhs.notificationLimit
                && lhs.version == rhs.version && lhs.serialNumber == rhs.serialNumber
        }

        /// Hashes every setting.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(acceptedDeveloperKeys)
            hasher.combine(notificationLimit)
            hasher.combine(version.major)
            hasher.combine(version.minor)
            hasher.combine(serialNumber)
        }
    }

    /// The advertised name.
    public let name: String
    /// Firmware and link settings.
    public let options: Options
    /// Whether the board was set up with Black on the near side (the wire order flips).
    public var isFlipped: Bool
    /// The physical board.
    public internal(set) var physical: PhysicalBoard
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// Whether a host unlocked the board on this link.
    public internal(set) var isUnlocked = false
    /// Whether field updates are on (`44`).
    public internal(set) var sendsUpdates = false
    /// The lit squares (physical).
    public internal(set) var litSquares: Set<Square> = []

    var pendingCommand: [UInt8] = []
    var pushesBattery = false

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "DGT_Pegasus_12345", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        batteryPercent: Int = 100, isCharging: Bool = false, options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board, batteryPercent: batteryPercent, isCharging: isCharging)
        isUnlocked = options.acceptedDeveloperKeys == nil
    }

    /// DGT Pegasus.
    public var family: BoardFamily { .dgtPegasus }
    /// ``PegasusAdapter/profile``.
    public var profile: BoardProfile { PegasusAdapter.profile }
    /// The pieces standing on the board (the Pegasus senses only their occupancy).
    public var board: BoardSnapshot { physical.pieces }
    /// The Pegasus never acts on its own.
    public var tickInterval: TimeInterval? { nil }

    /// A new link starts locked, without updates.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        resetLink()
        return []
    }

    /// The link state is forgotten.
    public mutating func linkLost() {
        resetLink()
    }

    private mutating func resetLink() {
        isUnlocked = options.acceptedDeveloperKeys == nil
        sendsUpdates = false
        pushesBattery = false
        pendingCommand = []
        litSquares = []
    }

    /// Nothing periodic.
    public mutating func tick(at time: TimeInterval) -> [Data] { [] }

    /// Applies the action; field updates flow when unlocked and in update mode.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .none, .button:
            return []
        case .battery:
            return isUnlocked && pushesBattery ? batteryMessage() : []
        case .emptied(let square, _):
            return fieldUpdate(square, occupied: false)
        case .placed(let square, _, let replaced):
            guard replaced == nil else { return [] }
            return fieldUpdate(square, occupied: true)
        }
    }

    private mutating func fieldUpdate(_ square: Square, occupied: Bool) -> [Data] {
        if litSquares.contains(square) { litSquares = [] }
        guard isUnlocked, sendsUpdates else { return [] }
        let wireSquare = isFlipped ? square.rotated : square
        return send(
            PegasusWire.message(PegasusWire.fieldUpdate, [PegasusWire.field(of: wireSquare), occupied ? 1 : 0]))
    }

    func send(_ message: [UInt8]) -> [Data] {
        PhysicalBoard.notifications(message, limit: options.notificationLimit).map { Data($0) }
    }

    func batteryMessage() -> [Data] {
        var status: UInt8 = physical.isCharging ? 0x01 : 0x02
        if physical.batteryPercent < 20 { status |= 0x04 }
        if physical.batteryPercent < 5 { status |= 0x08 }
        let payload: [UInt8] = [UInt8(physical.batteryPercent), 0, 0, 0, 0, 0, 0, 0, status]
        return send(PegasusWire.message(PegasusWire.batteryStatus, payload))
    }
}
