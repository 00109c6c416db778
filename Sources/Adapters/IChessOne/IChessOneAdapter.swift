public import BoardKit
public import FoundationEssentials

/// The iChessOne board (``IChessOneWire``): piece identity, an RGB LED per square and a
/// battery, over the Nordic UART service.
///
/// The handshake turns on reports at every change (`CPIRQ`), asks for the position (`RP`)
/// and the battery (`RB`), on a fresh link and a restored one alike (whether the board keeps
/// the report mode across a link is not known; picochess sends both again). The first
/// position makes the adapter ``BoardEvent/ready``. Every position reply is an event, an
/// unchanged one too: the board sends one only at a change or when asked, so each says
/// something, and a request for the state (the kernel's, when it thinks it missed a
/// placement) must be answered even when nothing changed.
///
/// Replies are found by their fixed length (34 bytes for `=p`, 4 for `=b`, 2 for anything
/// else); a byte that starts none, or a position byte with a code of 13…15, is skipped and
/// surfaces as ``BoardEvent/raw(_:)``. Notifications may split a reply or join several.
///
/// The board always reports a8 first; a board set up the other way round is the kernel's
/// to tell (its orientation detection), as for every identity board.
public struct IChessOneAdapter: BoardAdapter {
    /// The Nordic UART service.
    public static let serviceUUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
    /// Board → host (notify).
    public static let notifyCharacteristicUUID = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
    /// Host → board (write with response, as every public driver writes).
    public static let writeCharacteristicUUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"

    /// Identification and GATT layout: the advertised name starts with `iChessOne`.
    public static let profile = BoardProfile(
        family: .iChessOne,
        namePrefixes: ["iChessOne"],
        advertisedServiceUUIDs: [],
        serviceUUID: serviceUUID,
        notifyCharacteristicUUIDs: [notifyCharacteristicUUID],
        writeCharacteristicUUID: writeCharacteristicUUID,
        writeType: .withResponse
    )

    /// 150 ms between writes (DGT ChessConnect's pacing; picochess keeps 100 ms).
    public static let writeFloor: TimeInterval = 0.15
    /// The largest ``BoardEvent/raw(_:)`` chunk of skipped bytes.
    public static let maximumGarbageChunk = 64

    var scanner = FrameScanner(maximumGarbageChunk: maximumGarbageChunk)
    var isReady = false

    /// A fresh adapter.
    public init() {}

    /// Identity sensing, coloured LEDs, a battery.
    public var capabilities: BoardCapabilities {
        [.occupancySensing, .pieceIdentity, .perSquareLEDs, .moveIndication, .batteryReporting]
    }

    /// ``writeFloor``.
    public var minimumWriteInterval: TimeInterval { Self.writeFloor }

    /// Bytes held for an incomplete reply plus skipped bytes not yet surfaced (at most a
    /// position reply plus ``maximumGarbageChunk``).
    public var bufferedByteCount: Int { scanner.bufferedByteCount }

    /// `CPIRQ`, `RP`, `RB`, a write floor apart, on every link.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        [(.startSession, 0), (.requestState, Self.writeFloor), (.requestBattery, Self.writeFloor)]
    }

    /// `startSession` `CPIRQ`, `requestState` `RP`, `requestBattery` `RB`, `indicate` an
    /// `EL` in the style's colour (``IChessOneWire/colour(for:)``), `clearIndications` the
    /// `EL` that turns every LED off, `custom` as is; no moves, no positions.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession: IChessOneWire.reportChanges
        case .requestState: IChessOneWire.requestPosition
        case .requestBattery: IChessOneWire.requestBattery
        case .indicate(let squares, let style): IChessOneWire.leds(squares, colour: IChessOneWire.colour(for: style))
        case .clearIndications: IChessOneWire.leds([Square](), colour: IChessOneWire.colour(for: .highlight))
        case .custom(let bytes): bytes
        case .executeMove, .loadPosition, .judgeMove, .endGame: nil
        }
    }

    /// Parses every complete reply; keeps an incomplete one for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [BoardEvent] = []
        for piece in scanner.scan(bytes, classify: Self.classify) {
            switch piece {
            case .garbage(let data):
                events.append(.raw(data))
            case .frame(let frame):
                handle(frame, into: &events)
            }
        }
        return events
    }

    /// Decides whether a reply starts at `index`, checking each byte as soon as it is there.
    static func classify(_ bytes: [UInt8], at index: Int) -> FrameVerdict {
        guard bytes[index] == IChessOneWire.replyMarker else { return .garbage }
        guard index + 1 < bytes.count else { return .needMore }
        let available = bytes.count - index
        switch bytes[index + 1] {
        case IChessOneWire.positionLetter:
            let length = IChessOneWire.positionFrameLength
            for offset in 2..<min(available, length) where !IChessOneWire.isPositionByte(bytes[index + offset]) {
                return .garbage
            }
            return available >= length ? .frame(length) : .needMore
        case IChessOneWire.batteryLetter:
            let length = IChessOneWire.batteryFrameLength
            guard available >= length else { return .needMore }
            return bytes[index + 3] <= 100 ? .frame(length) : .garbage
        default:
            return .frame(IChessOneWire.otherFrameLength)
        }
    }

    private mutating func handle(_ frame: [UInt8], into events: inout [BoardEvent]) {
        switch frame[1] {
        case IChessOneWire.positionLetter:
            guard let board = IChessOneWire.board(payload: frame[2...]) else { return }
            if !isReady {
                isReady = true
                events.append(.ready)
            }
            events.append(.pieces(board))
        case IChessOneWire.batteryLetter:
            // picochess reads status 1 as charging, BearChess any non-zero as on mains.
            let status = frame[2]
            events.append(.battery(percent: Int(frame[3]), charging: status <= 1 ? status == 1 : nil))
        default:
            events.append(.raw(Data(frame)))
        }
    }
}
