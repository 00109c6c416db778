public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a DGT e-Board (board-protocols.md §4.1), written from the documented
/// facts only: a piece-identity board answering the classic commands, optionally with a
/// simulated ``DGT3000Clock`` cabled to it.
///
/// `42` dumps the board (`86`, a8 first, K = 5, Q = 6); `44` turns field updates on
/// (`8E 00 05 <field> <code>`); `43` adds the clock's times every second and `4B` on
/// every change (`8D`); `41` sends them once; `45`/`55` the serial numbers, `4D` the
/// version, `47` the trademark; `4C` the battery on the Bluetooth board; `60` lights
/// fields on the Revelation II; `2B …` clock messages are taken and not answered; `40`
/// stops updates. Physical actions on the pieces send field updates; presses of the
/// lever (``PhysicalAction/pressButton(_:)`` `lever_left` / `lever_right`) and clock
/// settings send the times when a clock mode is on.
public struct DGTPersonality: BoardPersonality {
    /// Firmware and clock settings.
    public struct Options: Hashable, Sendable {
        /// The model (LEDs, battery).
        public var model: DGTAdapter.Model
        /// The serial number (`91`: 5 ASCII characters; `A2`: 10).
        public var serialNumber: String
        /// The firmware version (`93`).
        public var version: [UInt8]
        /// The clock cabled to the board, or `nil` for none.
        public var clock: DGT3000Clock?

        /// Creates options: a classic board, a stopped 5-minute DGT 3000.
        public init(
            model: DGTAdapter.Model = .classic, serialNumber: String = "12345", version: [UInt8] = [1, 2],
            clock: DGT3000Clock? = DGT3000Clock()
        ) {
            self.model = model
            self.serialNumber = serialNumber
            self.version = version
            self.clock = clock
        }
    }

    /// How the board reports on its own.
    public enum UpdateMode: Hashable, Sendable {
        /// Nothing (`40`, or no mode asked for yet).
        case idle
        /// Field updates only (`44`).
        case fields
        /// Field updates and the clock every second (`43`).
        case fieldsAndClockEverySecond
        /// Field updates and the clock when it changes (`4B`).
        case fieldsAndClockOnChange
    }

    /// The name the board is known by.
    public let name: String
    /// Firmware settings.
    public let options: Options
    /// Whether the board was set up with Black on the near side (the wire order flips).
    public var isFlipped: Bool
    /// The physical board.
    public internal(set) var physical: PhysicalBoard
    /// The clock cabled to the board.
    public internal(set) var clock: DGT3000Clock?
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// What the board sends on its own.
    public internal(set) var mode: UpdateMode = .idle
    /// The lit fields (Revelation II), as physical squares.
    public internal(set) var litSquares: Set<Square> = []

    var pendingCommand: [UInt8] = []
    var lastClockSent: BoardClockReading?
    var lastClockSecond: TimeInterval = 0

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "DGT e-Board", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board)
        clock = options.clock
    }

    /// DGT e-Board.
    public var family: BoardFamily { .dgt }
    /// ``DGTAdapter/profile`` (no GATT: the board sits behind a serial line).
    public var profile: BoardProfile { DGTAdapter.profile }
    /// The pieces on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// A quarter second with a clock attached (its displays change each second), else never.
    public var tickInterval: TimeInterval? { clock == nil ? nil : 0.25 }

    /// A new link: the board starts idle.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        resetLink()
        clock?.advance(to: time)
        return []
    }

    /// The link state is forgotten; the clock keeps running.
    public mutating func linkLost() {
        resetLink()
    }

    private mutating func resetLink() {
        mode = .idle
        pendingCommand = []
        lastClockSent = nil
    }

    /// Advances the clock; sends its times as the mode asks.
    public mutating func tick(at time: TimeInterval) -> [Data] {
        guard clock != nil else { return [] }
        clock?.advance(to: time)
        switch mode {
        case .fieldsAndClockEverySecond where time - lastClockSecond >= 1 - 1e-6:
            lastClockSecond += 1
            return clockMessage()
        case .fieldsAndClockOnChange:
            return clockMessageIfChanged()
        default:
            return []
        }
    }

    /// Applies the action: field updates for pieces, the clock for the lever.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .none, .battery:
            return []
        case .button(let name):
            guard clock != nil else { return [] }
            switch name {
            case "lever_left": clock?.press(.left, at: time)
            case "lever_right": clock?.press(.right, at: time)
            case "clock_stop": clock?.setRunning(false, at: time)
            case "clock_start": clock?.setRunning(true, at: time)
            default: return []
            }
            return clockAfterChange()
        case .emptied(let square, _):
            return fieldUpdate(square, code: 0)
        case .placed(let square, let piece, _):
            return fieldUpdate(square, code: DGTWire.code(of: piece))
        }
    }

    /// Sets the clock's times (boardsim's `clock` verb), at `time`.
    public mutating func setClock(
        left: TimeInterval, right: TimeInterval, running: Bool, at time: TimeInterval
    )
        -> [Data]
    {
        guard clock != nil else { return [] }
        clock?.set(left: left, right: right, running: running, at: time)
        return clockAfterChange()
    }

    private mutating func clockAfterChange() -> [Data] {
        switch mode {
        case .fieldsAndClockEverySecond, .fieldsAndClockOnChange: clockMessageIfChanged()
        case .idle, .fields: []
        }
    }

    private mutating func fieldUpdate(_ square: Square, code: UInt8) -> [Data] {
        if options.model == .revelationII { litSquares = [] }
        guard mode != .idle else { return [] }
        let wireSquare = isFlipped ? square.rotated : square
        return [Data(DGTWire.message(DGTWire.fieldUpdate, [DGTWire.field(of: wireSquare), code]))]
    }

    mutating func clockMessage() -> [Data] {
        guard let reading = clock?.reading else {
            return [Data(DGTWire.message(DGTWire.clockTimes, DGTClockTimes.noClockPayload))]
        }
        lastClockSent = reading
        return [Data(DGTWire.message(DGTWire.clockTimes, DGTClockTimes.payload(reading)))]
    }

    private mutating func clockMessageIfChanged() -> [Data] {
        guard let reading = clock?.reading, reading != lastClockSent else { return [] }
        return clockMessage()
    }
}
