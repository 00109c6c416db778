public import BoardKit
public import FoundationEssentials

/// Wire framing for DGT e-Boards, the classic protocol (board-protocols.md §4.1): USB and
/// serial boards at 9600 8N1, the Bluetooth e-Board over Bluetooth Classic, and the
/// Revelation II with its LEDs.
///
/// DGT states its copyright on this protocol. This adapter is written from the
/// documented facts only (message ids, sizes, field order, piece codes), never from
/// anyone's code.
///
/// An identity board: the handshake switches field updates on, then asks for the board
/// dump; the dump (`86`) makes the adapter ``BoardEvent/ready`` and is reported as
/// ``BoardEvent/pieces(_:)``, and every field update (`8E`) after it as the whole board
/// again. Serial number (`91`, `A2`) and version (`93`) read at connect come as
/// ``BoardEvent/serialNumber(_:)`` and ``BoardEvent/version(_:)``; the times of an
/// attached DGT 3000 (`8D`) as ``BoardEvent/clock(_:)``; battery (`A0`, Bluetooth boards)
/// as ``BoardEvent/battery(percent:charging:)``.
///
/// Framing resynchronises on the id byte (the only byte with bit 7 set), so garbage never
/// swallows a following message; messages longer than ``maximumFrameLength`` are
/// skipped as garbage, which bounds what is held.
public struct DGTAdapter: BoardAdapter {
    /// Which DGT e-Board this is: what it can do beyond sensing pieces.
    public enum Model: String, CaseIterable, Hashable, Sendable {
        /// USB or serial e-Board: no LEDs, no battery.
        case classic
        /// The Bluetooth e-Board: battery status (`4C` → `A0`).
        case bluetooth
        /// Revelation II: LEDs per field (`60`).
        case revelationII = "revelation2"
    }

    /// A DGT e-Board is no BLE device: the profile matches no advertisement and names no
    /// GATT service (the board is reached over a serial line or RFCOMM).
    public static let profile = BoardProfile.serialLine(.dgt)

    /// The serial line's settings: 9600 baud, 8 data bits, no parity, 1 stop bit.
    public static let baudRate = 9600
    /// The gap between handshake steps and the write floor (a step's one-byte command and
    /// its reply take a few milliseconds at 9600 baud).
    public static let stepInterval: TimeInterval = 0.05
    /// The longest message accepted; longer sizes are treated as garbage.
    public static let maximumFrameLength = 512
    /// The largest ``BoardEvent/raw(_:)`` chunk of skipped garbage.
    public static let maximumGarbageChunk = 64

    /// The model, which decides LEDs and battery.
    public let model: Model
    /// Whether the handshake asks for clock times (`4B`: field updates and the clock on
    /// every change) rather than field updates only (`44`).
    public let readsClock: Bool

    var scanner = FrameScanner(maximumGarbageChunk: maximumGarbageChunk)
    var board: BoardSnapshot?
    var isReady = false

    /// Creates an adapter for `model`.
    public init(model: Model = .classic, readsClock: Bool = true) {
        self.model = model
        self.readsClock = readsClock
    }

    /// Piece identity; LEDs on the Revelation II, battery on the Bluetooth board.
    public var capabilities: BoardCapabilities {
        var capabilities: BoardCapabilities = [.occupancySensing, .pieceIdentity]
        if model == .revelationII { capabilities.formUnion([.perSquareLEDs, .moveIndication]) }
        if model == .bluetooth { capabilities.insert(.batteryReporting) }
        return capabilities
    }

    /// 50 ms between writes.
    public var minimumWriteInterval: TimeInterval { Self.stepInterval }

    /// Bytes held for an incomplete message plus skipped bytes not yet surfaced
    /// (at most ``maximumFrameLength`` + ``maximumGarbageChunk``).
    public var bufferedByteCount: Int { scanner.bufferedByteCount }

    /// The board as the dump and the field updates since tell it, if a dump arrived.
    public var snapshot: BoardSnapshot? { board }

    /// Forgets framing state, the board and readiness (call on a new link).
    public mutating func reset() {
        scanner.reset()
        board = nil
        isReady = false
    }

    /// Fresh connect and reconnect alike (a board that was unplugged starts afresh):
    /// `40` (reset), `4D` (version), `45` (serial number), LEDs off on a Revelation II,
    /// then `4B` or `44` (updates), `42` (dump), `41` (clock now) when reading the clock,
    /// `4C` (battery) on a Bluetooth board; 50 ms apart.
    ///
    /// Updates are switched on before the dump is asked for, so no change falls between
    /// the two.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        var steps: [(command: BoardCommand, delayBefore: TimeInterval)] = [
            (.custom(Data([DGTWire.reset])), 0),
            (.custom(Data([DGTWire.requestVersion])), Self.stepInterval),
            (.custom(Data([DGTWire.requestSerial])), Self.stepInterval),
        ]
        if model == .revelationII { steps.append((.clearIndications, Self.stepInterval)) }
        steps += [(.startSession, Self.stepInterval), (.requestState, Self.stepInterval)]
        if readsClock { steps.append((.custom(Data([DGTWire.requestClock])), Self.stepInterval)) }
        if model == .bluetooth { steps.append((.requestBattery, Self.stepInterval)) }
        return steps
    }

    /// The wire bytes for `command`: `startSession` `4B` (or `44` without the clock),
    /// `requestState` `42`, `requestBattery` `4C` (Bluetooth board), `indicate` one
    /// `60 04 01 f f 00` per field after all off (Revelation II; every style alike),
    /// `clearIndications` `60 04 00 00 3F 00`, `custom` as is; no `executeMove`.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession:
            return Data([readsClock ? DGTWire.requestUpdatesNice : DGTWire.requestBoardUpdates])
        case .requestState:
            return Data([DGTWire.requestBoard])
        case .requestBattery:
            return model == .bluetooth ? Data([DGTWire.requestBattery]) : nil
        case .indicate(let squares, _):
            guard model == .revelationII else { return nil }
            var bytes = DGTWire.ledCommand(on: false, from: 0, to: 63)
            var lit: Set<UInt8> = []
            for square in squares where lit.insert(DGTWire.field(of: square)).inserted {
                let field = DGTWire.field(of: square)
                bytes += DGTWire.ledCommand(on: true, from: field, to: field)
            }
            return Data(bytes)
        case .clearIndications:
            return model == .revelationII ? Data(DGTWire.ledCommand(on: false, from: 0, to: 63)) : nil
        case .executeMove, .loadPosition, .judgeMove, .endGame:
            return nil
        case .custom(let bytes):
            return bytes
        }
    }
}
