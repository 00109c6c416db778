public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of an emulated Square Off board: Pro / (Grand) Kingdom, or Neo (Miko
/// firmware).
///
/// It senses occupancy only. A lift sends `0#e2u*`, putting a piece on an empty square
/// `0#e2d*` (the Neo sends the bare `e2u` / `e2d`; it also streams its bare 64-character
/// occupancy string on every tick). Host commands are answered as §3.3 describes; a Pro
/// executes `0#<uci>*` and `24#<from>,<to>*` moves with its robot, which moves the pieces
/// (captured pieces off the board, the rook when castling, the pawn taken en passant) and
/// reports every lift and placement like a hand would. A flipped board rotates every square
/// on the wire.
public struct SquareOffPersonality: BoardPersonality {
    /// Behaviour knobs of the emulated firmware.
    public struct Options: Hashable, Sendable {
        /// Which firmware dialect to speak.
        public var variant: SquareOffAdapter.Variant
        /// The MAC address answered to `1#*`.
        public var macAddress: String
        /// Seconds between the Neo's occupancy broadcasts.
        public var occupancyStreamInterval: TimeInterval

        /// Creates options.
        public init(
            variant: SquareOffAdapter.Variant = .pro, macAddress: String = "C0:FF:EE:00:00:01",
            occupancyStreamInterval: TimeInterval = 1.0
        ) {
            self.variant = variant
            self.macAddress = macAddress
            self.occupancyStreamInterval = occupancyStreamInterval
        }
    }

    /// The advertised name.
    public let name: String
    /// The firmware options.
    public let options: Options
    /// Square Off.
    public var family: BoardFamily { .squareOff }
    /// ``SquareOffAdapter/profile`` or, for the Neo, ``SquareOffAdapter/neoProfile``.
    public var profile: BoardProfile { SquareOffAdapter.profile(for: options.variant) }
    /// What is physically on the board.
    public internal(set) var board: BoardSnapshot
    /// Protocol violations counted so far.
    public internal(set) var violations = ProtocolViolations()
    /// Whether the board was set up with Black on the near side (every wire square rotates).
    public var isFlipped: Bool
    /// The Neo streams its occupancy; the Pro never acts on its own.
    public var tickInterval: TimeInterval? { options.variant == .neo ? options.occupancyStreamInterval : nil }

    /// The squares the host lit with `25#…*` (in ``Square`` order).
    public internal(set) var litSquares: [Square] = []
    /// The last status-LED command body (`ISG`, `ISR`, `ISB`).
    public internal(set) var statusLED: String?
    /// The last game-end signal body (`ck`, `wt`, `bl`, `dw`).
    public internal(set) var gameEndSignal: String?
    /// How often the host started a new game (`14#…*`).
    public internal(set) var newGameCount = 0
    /// The moves the robot executed.
    public internal(set) var executedMoves: [BoardMove] = []
    /// The battery level in percent.
    public private(set) var batteryPercent = 100
    /// Whether the board charges.
    public private(set) var isCharging = false
    /// Whether a link is up.
    public private(set) var isLinkUp = false

    var writeBuffer: [UInt8] = []
    private var lastBroadcast: TimeInterval?

    /// Creates the firmware of a board named `name` with `board` on it.
    public init(
        name: String = "Squareoff Pro", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        options: Options = Options()
    ) {
        self.name = name
        self.board = board
        self.isFlipped = isFlipped
        self.options = options
    }

    /// The link is up; the firmware says nothing until asked.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        isLinkUp = true
        lastBroadcast = nil
        return []
    }

    /// The link is gone: a half-received command is forgotten.
    public mutating func linkLost() {
        isLinkUp = false
        writeBuffer.removeAll()
    }

    /// The Neo broadcasts its occupancy string once per ``Options/occupancyStreamInterval``.
    public mutating func tick(at time: TimeInterval) -> [Data] {
        guard isLinkUp, options.variant == .neo else { return [] }
        if let last = lastBroadcast, time - last < options.occupancyStreamInterval { return [] }
        lastBroadcast = time
        return [Data(occupancyString.utf8)]
    }

    /// A person acts on the board.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        var frames: [Data] = []
        switch action {
        case .lift(let square), .knockOver(let square):
            frames += move(lifting: square)
        case .place(let piece, let square):
            frames += move(placing: piece, on: square)
        case .setBattery(let percent, let charging):
            batteryPercent = min(100, max(0, percent))
            isCharging = charging
            if options.variant == .neo { frames.append(batteryReport(code: SquareOffWire.batteryRequestCode)) }
        case .pressButton:
            break
        }
        return isLinkUp ? frames : []
    }

    /// Empties `square` and reports the lift (nothing when it was empty).
    mutating func move(lifting square: Square) -> [Data] {
        guard board[square] != nil else { return [] }
        board[square] = nil
        return [pieceReport(square, up: true)]
    }

    /// Puts `piece` on `square`; reports the placement when the square was empty.
    mutating func move(placing piece: Piece, on square: Square) -> [Data] {
        let wasEmpty = board[square] == nil
        board[square] = piece
        return wasEmpty ? [pieceReport(square, up: false)] : []
    }

    /// The 64-character occupancy string, file-major, in wire orientation.
    var occupancyString: String {
        SquareOffWire.occupancyString(isFlipped ? board.occupancy.rotated : board.occupancy)
    }

    /// The wire name of `square`.
    func wireName(_ square: Square) -> String {
        (isFlipped ? square.rotated : square).name
    }

    /// The square a wire name names, or `nil`.
    func square(wireName bytes: some Collection<UInt8>) -> Square? {
        guard let square = SquareOffWire.square(name: bytes) else { return nil }
        return isFlipped ? square.rotated : square
    }

    /// A battery report with `code`: percent for the Pro, cell millivolts for the Neo.
    func batteryReport(code: Int) -> Data {
        if options.variant == .neo {
            let millivolts = 3300 + batteryPercent * 9
            return SquareOffWire.frame(code: code, body: "\(millivolts).00")
        }
        return SquareOffWire.frame(code: code, body: "\(batteryPercent)")
    }

    private func pieceReport(_ square: Square, up: Bool) -> Data {
        let body = wireName(square) + (up ? "u" : "d")
        return options.variant == .neo
            ? Data(body.utf8) : SquareOffWire.frame(code: SquareOffWire.pieceCode, body: body)
    }
}
