public import Adapters
public import BoardKit
public import FoundationEssentials

/// The firmware of a Chessnut Air/Pro/Go (classic) or Chessnut Move, as far as the
/// references describe it (board-protocols.md §1).
///
/// After `21 01 00` the board acks `23 01 00` and streams its state (`01 24` + 32 board
/// bytes + uptime seconds) every ``Options/streamInterval`` from ``tick(at:)``, changed or
/// not; a physical change is reported at once as well. Writes closer than 200 ms count as
/// ``ProtocolViolations/writesTooClose``; unknown or misshapen commands as
/// ``ProtocolViolations/malformedCommands``. A Move executes `42 21` auto-moves at once.
public struct ChessnutPersonality: BoardPersonality {
    /// Firmware and link settings.
    public struct Options: Hashable, Sendable {
        /// Classic or Move.
        public var model: ChessnutAdapter.Model
        /// Seconds between streamed state frames (the Air streams about ten a second).
        public var streamInterval: TimeInterval
        /// The payload length byte of state frames: `0x24` (Air captures) or `0x22`.
        public var statePayloadLength: UInt8
        /// The notification payload limit (ATT MTU − 3). The Chessnut truncates longer
        /// frames rather than splitting them; `nil` sends whole frames.
        public var notificationLimit: Int?

        /// Creates options.
        public init(
            model: ChessnutAdapter.Model = .classic, streamInterval: TimeInterval = 0.1,
            statePayloadLength: UInt8 = 0x24, notificationLimit: Int? = nil
        ) {
            self.model = model
            self.streamInterval = streamInterval
            self.statePayloadLength = statePayloadLength == 0x22 ? 0x22 : 0x24
            self.notificationLimit = notificationLimit
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
    /// Whether realtime streaming is on.
    public internal(set) var isStreaming = false
    /// The lit squares (physical) and their colour (classic boards: always green).
    public internal(set) var litSquares: [Square: ChessnutAdapter.LEDColor] = [:]
    /// How many auto-moves the motors executed.
    public internal(set) var autoMovesExecuted = 0

    var powerOnTime: TimeInterval?
    var lastWriteTime: TimeInterval?
    var lastStreamTime: TimeInterval?

    /// A board called `name` with `board` set up on it.
    public init(
        name: String = "Chessnut Air", board: BoardSnapshot = .startingPosition, isFlipped: Bool = false,
        batteryPercent: Int = 100, isCharging: Bool = false, options: Options = Options()
    ) {
        self.name = name
        self.options = options
        self.isFlipped = isFlipped
        physical = PhysicalBoard(pieces: board, batteryPercent: batteryPercent, isCharging: isCharging)
    }

    /// Chessnut.
    public var family: BoardFamily { .chessnut }
    /// ``ChessnutAdapter/profile``.
    public var profile: BoardProfile { ChessnutAdapter.profile }
    /// The pieces standing on the board.
    public var board: BoardSnapshot { physical.pieces }
    /// The stream interval.
    public var tickInterval: TimeInterval? { options.streamInterval }

    /// Nothing is sent until the host enables realtime mode.
    public mutating func linkEstablished(at time: TimeInterval) -> [Data] {
        if powerOnTime == nil { powerOnTime = time }
        isStreaming = false
        lastWriteTime = nil
        return []
    }

    /// Streaming stops; the board keeps its pieces.
    public mutating func linkLost() {
        isStreaming = false
        lastWriteTime = nil
        lastStreamTime = nil
    }

    /// Streams a state frame when realtime is on and the interval has passed (within 10 %:
    /// a timer firing a few milliseconds early must not skip a whole period, which would
    /// halve the stream rate).
    public mutating func tick(at time: TimeInterval) -> [Data] {
        guard isStreaming else { return [] }
        if let last = lastStreamTime, time - last < options.streamInterval * 0.9 { return [] }
        return send(stateFrame(at: time), at: time)
    }

    /// Applies the action; a board change is reported at once while streaming.
    public mutating func perform(_ action: PhysicalAction, at time: TimeInterval) -> [Data] {
        switch physical.apply(action) {
        case .none, .battery:
            return []
        case .emptied, .placed:
            return isStreaming ? send(stateFrame(at: time), at: time) : []
        case .button(let name):
            let code: UInt8? = name == "new_game" ? ChessnutWire.newGameButton : UInt8(name)
            guard let code else { return [] }
            return notifications([ChessnutWire.buttonType, 0x01, code])
        }
    }

    /// The current state frame (board as the sensors see it, uptime counter).
    public func stateFrame(at time: TimeInterval) -> [UInt8] {
        let wireBoard = isFlipped ? physical.pieces.rotated : physical.pieces
        var frame: [UInt8] = [ChessnutWire.stateType, options.statePayloadLength]
        frame += ChessnutWire.boardBytes(wireBoard)
        if options.statePayloadLength == 0x24 {
            let uptime = UInt32(clamping: Int(max(0, time - (powerOnTime ?? time))))
            frame += withUnsafeBytes(of: uptime.littleEndian) { Array($0) }
        } else {
            frame += [0, 0]
        }
        return frame
    }

    mutating func send(_ stateFrame: [UInt8], at time: TimeInterval) -> [Data] {
        lastStreamTime = time
        return notifications(stateFrame)
    }

    func notifications(_ frame: [UInt8]) -> [Data] {
        // The Chessnut truncates a frame longer than the payload limit.
        if let limit = options.notificationLimit, limit > 0, frame.count > limit {
            return [Data(frame.prefix(limit))]
        }
        return [Data(frame)]
    }
}
