public import BoardKit
public import FoundationEssentials

/// A board speaking the Chess Peripheral Protocol (``ChessPeripheralWire``): it keeps the
/// host's position, compares it with its sensors and reports the moves it sees; the host
/// judges each one.
///
/// The handshake asks for two optional features, one write each: `submove_state` (the board
/// then sends its placement at every change, which the kernel reads as occupancy) and
/// `check` (the check square, shown on the board's LEDs through the `leds` command's `check`
/// style). The board answers each `ok` or `nok`, in order; the last answer makes the adapter
/// ``BoardEvent/ready``. The position itself is the host's to send (`begin`, from
/// ``BoardCommand/loadPosition(fen:)``), which the bridge does once the board is ready and
/// whenever the game's position changes other than by a move the board reported
/// (``BoardCapabilities/refereedMoves``).
///
/// Events: `sync`, `unsync`, `unsync_settable` and `state` carry a placement, read as
/// ``BoardEvent/occupancy(_:)`` (a board may not know which piece stands where); `move`
/// is a ``BoardEvent/moveReported(_:)`` the bridge answers with
/// ``BoardCommand/judgeMove(reported:taken:)`` (`ok`, `nok` or `promote <uci>`). Every
/// other message (`err`, `msg`, an `ok` nobody asked for) and bytes that are no message
/// surface as ``BoardEvent/raw(_:)``: never a move.
///
/// Each write or notification is one message: there is no terminator, so a message cut in
/// two by a link is two malformed or incomplete messages, refused (a `move` whose square
/// names are cut is no move). Nothing is buffered between notifications.
public struct ChessPeripheralAdapter: BoardAdapter {
    /// Identification and GATT layout: the advertised service (the name is free).
    public static let profile = BoardProfile(
        family: .chessPeripheral,
        namePrefixes: [],
        advertisedServiceUUIDs: [ChessPeripheralWire.serviceUUID],
        serviceUUID: ChessPeripheralWire.serviceUUID,
        notifyCharacteristicUUIDs: [ChessPeripheralWire.notifyCharacteristicUUID],
        writeCharacteristicUUID: ChessPeripheralWire.writeCharacteristicUUID,
        writeType: .withResponse
    )

    /// The optional features the handshake asks for, in order.
    public static let requestedFeatures = ["submove_state", "check"]
    /// 50 ms between writes: a verdict and the check square after it are not a burst (the
    /// protocol asks options be set at most every 100 ms; commands have no floor).
    public static let writeFloor: TimeInterval = 0.05

    /// The features the board accepted so far.
    public private(set) var acceptedFeatures: Set<String> = []
    /// How many of ``requestedFeatures`` the board answered.
    public private(set) var answeredFeatures = 0

    /// A fresh adapter (one per link).
    public init() {}

    /// Occupancy from its placements, reported moves judged by the host.
    public var capabilities: BoardCapabilities { [.occupancySensing, .reportsMoves, .refereedMoves] }

    /// ``writeFloor``.
    public var minimumWriteInterval: TimeInterval { Self.writeFloor }

    /// `feature <name>` for each of ``requestedFeatures``, a write floor apart, on every link
    /// (what a board accepted is not known across a link).
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        Self.requestedFeatures.enumerated().map { index, name in
            (.custom(ChessPeripheralWire.Message("feature", name).bytes), index == 0 ? 0 : Self.writeFloor)
        }
    }

    /// `loadPosition` `begin <fen>`, `judgeMove` `ok`/`nok`/`promote <uci>`, `endGame`
    /// `end <reason>`, `indicate` of one square in the check style `check <square>` (once the
    /// board accepted the feature), `custom` as is. Nothing else: the board has no LED
    /// commands of its own, no battery, and is no robot (`executeMove` would tell it the
    /// opponent moved, which on one board shared by two players never happens).
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .loadPosition(let fen):
            ChessPeripheralWire.Message("begin", fen).bytes
        case .judgeMove(let reported, let taken):
            ChessPeripheralWire.verdict(reported: reported, taken: taken).bytes
        case .endGame(let reason):
            ChessPeripheralWire.Message("end", ChessPeripheralWire.endReason(termination: reason)).bytes
        case .indicate(let squares, .check) where squares.count == 1 && acceptedFeatures.contains("check"):
            ChessPeripheralWire.Message("check", squares[0].name).bytes
        case .custom(let bytes):
            bytes
        case .startSession, .requestState, .requestBattery, .indicate, .clearIndications, .executeMove:
            nil
        }
    }

    /// Reads the messages of one notification.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [BoardEvent] = []
        for message in ChessPeripheralWire.messages(in: bytes) {
            guard let message else {
                events.append(.raw(bytes.prefix(ChessPeripheralWire.maximumMessageLength)))
                continue
            }
            handle(message, into: &events)
        }
        return events
    }

    private mutating func handle(_ message: ChessPeripheralWire.Message, into events: inout [BoardEvent]) {
        switch message.command {
        case "ok", "nok":
            guard message.argument.isEmpty, answeredFeatures < Self.requestedFeatures.count else {
                events.append(.raw(message.bytes))
                return
            }
            if message.command == "ok" { acceptedFeatures.insert(Self.requestedFeatures[answeredFeatures]) }
            answeredFeatures += 1
            if answeredFeatures == Self.requestedFeatures.count { events.append(.ready) }
        case "sync", "unsync", "unsync_settable", "state":
            guard let occupancy = ChessPeripheralWire.occupancy(fen: message.argument) else {
                events.append(.raw(message.bytes))
                return
            }
            events.append(.occupancy(occupancy))
        case "move":
            guard let move = BoardMove(uci: message.argument) else {
                events.append(.raw(message.bytes))
                return
            }
            events.append(.moveReported(move))
        default:
            events.append(.raw(message.bytes))
        }
    }
}
