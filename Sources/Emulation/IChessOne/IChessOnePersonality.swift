public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of an iChessOne board (``IChessOneWire``).
///
/// Commands are ASCII without a terminator and may come one a write or several together;
/// each is recognised by its first letters (`CPIRQ`, `RP`, `RB`, `EL` + 14 bytes, `ES` + 3
/// bytes for the buzzer). Anything else, or commands closer than 100 ms (picochess's pacing),
/// counts as a ``ProtocolViolations`` entry. The position is reported when asked (`RP`) and,
/// once `CPIRQ` turned reports on, at every change; the report mode is forgotten with the
/// link (the harsher reading: the host must ask again). Notifications carry at most
/// ``Options/notificationLimit`` bytes, so a 34-byte position comes in two at the default
/// ATT MTU of 23. A board set up the other way round (``isFlipped``) reports its squares
/// turned round, as the real one does.
public struct IChessOnePersonality: BoardPersonality {
    /// Link settings.
    public struct Options: Hashable, Sendable {
        /// The notification payload limit; `nil` = whole replies.
        public var notificationLimit: Int?

        /// Creates options (20-byte notifications: the default ATT MTU).
        public init(notificationLimit: Int? = 20) {
            self.notificationLimit = notificationLimit
        }
    }

    /// The least time between two commands the firmware takes without complaint.
    public static let commandFloor: TimeInterval = 0.1

    /// The advertised name.
    public let name: String
    /// Link settings.
    public let options: Options
    /// Whether the board is used the other way round.
    public var isFlipped: Bool
    /// The physical board.
    public internal(set) var physical: PhysicalBoard
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// Whether the board reports every change (after `CPIRQ`, until the link goes).
    public internal(set) var reportsChanges = false
    /// The squares the last `EL` lit, in the board's own (wire) orientation.
    public internal(set) var litWireSquares: Set<Square> = []
    /// The colour of the last `EL` (red, green, blue nibbles).
    public internal(set) var ledColour = IChessOneWire.Colour(red: 0, green: 0, blue: 0)
    /// How many buzzer commands (`ES`) arrived.
    public internal(set) var buzzes = 0

    var pending: [UInt8] = []
    var lastCommandTime: TimeInterval?

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "iChessOne", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board)
    }

    /// iChessOne.
    public var family: BoardFamily { .iChessOne }
    /// ``IChessOneAdapter/profile``.
    public var profile: BoardProfile { IChessOneAdapter.profile }
    /// The pieces standing on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// The firmware acts only when asked or when a piece moves.
    public var tickInterval: TimeInterval? { nil }

    /// The squares lit, seen from White's side.
    public var litSquares: Set<Square> {
        isFlipped ? Set(litWireSquares.map(\.rotated)) : litWireSquares
    }

    /// Nothing is sent on a new link.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        pending = []
        lastCommandTime = nil
        return []
    }

    /// Forgets a half-received command and the report mode.
    public mutating func linkLost() {
        pending = []
        lastCommandTime = nil
        reportsChanges = false
    }

    /// Nothing happens on its own.
    public mutating func tick(at time: TimeInterval) -> [Data] { [] }

    /// Applies the action; a change is reported at once once reports are on.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .emptied, .placed:
            return reportsChanges ? positionReport() : []
        case .none, .battery, .button:
            return []
        }
    }

    /// The `=p` reply of the current board, as notifications.
    public func positionReport() -> [Data] {
        notifications(IChessOneWire.positionFrame(isFlipped ? physical.pieces.rotated : physical.pieces))
    }

    /// Reads commands from the bytes and answers each complete one.
    public mutating func handleWrite(_ bytes: Data, at time: TimeInterval) -> [Data] {
        pending += bytes
        var output: [Data] = []
        while !pending.isEmpty {
            // The command whose first letters the bytes show (all of them while they are fewer).
            guard let command = Self.commands.first(where: { $0.prefix.starts(with: pending.prefix($0.prefix.count)) })
            else {
                violations.malformedCommands += 1
                pending.removeFirst()
                continue
            }
            guard pending.count >= command.length else { break }
            let bytes = Array(pending.prefix(command.length))
            pending.removeFirst(command.length)
            if let last = lastCommandTime, time - last < Self.commandFloor - 1e-9 { violations.writesTooClose += 1 }
            lastCommandTime = time
            output += execute(bytes)
        }
        return output
    }

    /// Every command the firmware knows: its first letters and its whole length.
    static let commands: [(prefix: [UInt8], length: Int)] = [
        (Array("CPIRQ".utf8), 5), (Array("RP".utf8), 2), (Array("RB".utf8), 2),
        (Array("EL".utf8), IChessOneWire.ledCommandLength), (Array("ES".utf8), 5),
    ]

    private mutating func execute(_ command: [UInt8]) -> [Data] {
        switch String(decoding: command.prefix(2), as: UTF8.self) {
        case "CP":
            reportsChanges = true
            return []
        case "RP":
            return positionReport()
        case "RB":
            return notifications(
                IChessOneWire.batteryFrame(percent: physical.batteryPercent, charging: physical.isCharging))
        case "EL":
            ledColour = IChessOneWire.Colour(
                red: command[2] & 0x0F, green: command[3] >> 4, blue: command[3] & 0x0F)
            let squares = RankBitmasks.squares(lit: command[5..<13])
            let replaces = command[14] & 0x0F == 0x01
            litWireSquares = command[2] >> 4 == 0 ? [] : (replaces ? squares : litWireSquares.union(squares))
            return []
        default:
            buzzes += 1
            return []
        }
    }

    func notifications(_ frame: [UInt8]) -> [Data] {
        PhysicalBoard.notifications(frame, limit: options.notificationLimit).map { Data($0) }
    }
}
