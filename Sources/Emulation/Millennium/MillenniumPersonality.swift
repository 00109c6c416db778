public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a Millennium ChessLink board (board-protocols.md §5).
///
/// Commands arrive as a byte stream (a long `L` may span several writes); each is checked
/// for parity, length and checksum (failures count as ``ProtocolViolations/malformedCommands``;
/// messages closer than 100 ms as ``ProtocolViolations/writesTooClose``) and answered with
/// its lower-case reply. Status reports follow E2ROM register `02`: every scan (the
/// factory default, via ``tick(at:)``), timed, or on change. A board set up the other way
/// round (``isFlipped``) sends the status string reversed.
public struct MillenniumPersonality: BoardPersonality {
    /// Firmware and link settings.
    public struct Options: Hashable, Sendable {
        /// The `v` reply: version high and low byte (0 Exclusive, 1 Performance, 2 eONE).
        public var version: UInt8
        /// The version's low byte.
        public var versionMinor: UInt8
        /// Whether replies carry odd parity (the eONE's reportedly do not).
        public var repliesWithParity: Bool
        /// The notification payload limit (the board's server MTU is 160); `nil` = whole.
        public var notificationLimit: Int?

        /// Creates options (firmware 1.3, parity on, whole notifications).
        public init(
            version: UInt8 = 1, versionMinor: UInt8 = 3, repliesWithParity: Bool = true, notificationLimit: Int? = nil
        ) {
            self.version = version
            self.versionMinor = versionMinor
            self.repliesWithParity = repliesWithParity
            self.notificationLimit = notificationLimit
        }
    }

    /// The advertised name.
    public let name: String
    /// Firmware and link settings.
    public let options: Options
    /// Whether the board is used the other way round (the status string is reversed).
    public var isFlipped: Bool
    /// The physical board.
    public internal(set) var physical: PhysicalBoard
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// The 81 corner-LED patterns in the board's own numbering (index 0 = LED 1).
    public internal(set) var ledPatterns = [UInt8](repeating: 0, count: 81)
    /// The E2ROM (256 registers).
    public internal(set) var e2rom: [UInt8]

    var pendingCommand: [UInt8] = []
    var isSkipping = false
    var lastCommandTime: TimeInterval?
    var lastReportTime: TimeInterval?

    /// A board called `name` with `board` set up on it and factory E2ROM settings.
    public init(
        name: String = "MILLENNIUM CHESS", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board)
        e2rom = Self.factoryE2ROM
    }

    /// Factory E2ROM: scan time 20 (40.96 ms), reports every scan, brightness 15.
    static let factoryE2ROM: [UInt8] = {
        var registers = [UInt8](repeating: 0, count: 256)
        registers[0x01] = 20
        registers[0x02] = 0
        registers[0x03] = 50
        registers[0x04] = 15
        return registers
    }()

    /// Millennium.
    public var family: BoardFamily { .millennium }
    /// ``MillenniumAdapter/profile``.
    public var profile: BoardProfile { MillenniumAdapter.profile }
    /// The pieces standing on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// One scan (E2ROM register `01` × 2.048 ms).
    public var tickInterval: TimeInterval? { Double(max(15, e2rom[0x01])) * 0.002048 }

    /// The auto-report mode (E2ROM register `02`, bits 2…0).
    public var reportMode: UInt8 { e2rom[0x02] & 0x07 }

    /// The physical squares whose four corner LEDs are all on (lighting two squares of a
    /// file with one square between them also lights all four corners of that one).
    public var litSquares: Set<Square> {
        Set(
            Square.allCases.filter { square in
                let boardSquare = isFlipped ? square.rotated : square
                return MillenniumWire.leds(for: boardSquare).allSatisfy { ledPatterns[$0 - 1] != 0 }
            })
    }

    /// Nothing is sent on a new link.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        pendingCommand = []
        lastCommandTime = nil
        return []
    }

    /// Forgets a half-received command.
    public mutating func linkLost() {
        pendingCommand = []
        lastCommandTime = nil
    }

    /// Reports every scan (mode 0) or every report interval (mode 2).
    public mutating func tick(at time: TimeInterval) -> [Data] {
        switch reportMode {
        case 0:
            return statusReport(at: time)
        case 2:
            let interval = Double(e2rom[0x03]) * 0.004096
            if let last = lastReportTime, time - last < interval - 1e-9 { return [] }
            return statusReport(at: time)
        default:
            return []
        }
    }

    /// Applies the action; a change is reported at once in the on-change modes.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .emptied, .placed:
            return reportMode >= 3 ? statusReport(at: time) : []
        case .none, .battery, .button:
            return []
        }
    }

    /// The `s` report of the current board.
    public mutating func statusReport(at time: TimeInterval) -> [Data] {
        lastReportTime = time
        let wire = isFlipped ? physical.pieces.rotated : physical.pieces
        return reply(Array("s".utf8) + MillenniumWire.statusCharacters(wire))
    }

    func reply(_ characters: [UInt8]) -> [Data] {
        var message = Array(MillenniumWire.message(characters))
        if !options.repliesWithParity { message = message.map { $0 & 0x7F } }
        return PhysicalBoard.notifications(message, limit: options.notificationLimit).map { Data($0) }
    }
}
