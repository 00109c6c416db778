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
///
/// A board of the protocol's 2024 dialect (``Dialect/acknowledged``) answers the `begin` it
/// does not know with `nok` before any placement; the adapter then speaks that dialect for
/// the rest of the link and says ``BoardEvent/ready`` again, so that the host gives it its
/// position once more, as `fen`.
public struct ChessPeripheralAdapter: BoardAdapter {
    /// The protocol's two dialects.
    public enum Dialect: Hashable, Sendable {
        /// Since April 2025 (the README at `a0a7d8c`): `begin`, `sync`/`unsync`, `state`,
        /// `end`; the board answers only `feature` and `variant`.
        case current
        /// Before it (the README at `3b1220d`; ArduinoBleChess up to 0.2, which
        /// OPENCHESSBOARD's firmware runs): the host starts a round with `fen <fen>`, every
        /// command is answered `ok` or `nok` (the board says `ok` to a `fen` its squares
        /// show, else `nok` and `fen <placement>`, and sends `fen <placement>` while they
        /// differ), and there is no `end`.
        case acknowledged
    }

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
    /// The dialect the board speaks, as far as it has shown (``Dialect/current`` until it
    /// answers `begin` with `nok`).
    public private(set) var dialect = Dialect.current
    /// Whether the board said what its squares show on this link.
    private var sawPlacement = false

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

    /// `loadPosition` `begin <fen>` (2024 dialect: `fen <fen>`, the whole FEN: the README's
    /// example gives the placement and side only, and OPENCHESSBOARD compares the placement
    /// alone, so the castling rights and en passant square are there for a board that
    /// reads them), `judgeMove`
    /// `ok`/`nok`/`promote <uci>`, `endGame` `end <reason>` (the 2024 dialect has none),
    /// `indicate` of one square in the check style `check <square>` (once the board accepted
    /// the feature), `custom` as is. Nothing else: the board has no LED commands of its own,
    /// no battery, and is no robot (`executeMove` would tell it the opponent moved, which on
    /// one board shared by two players never happens).
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .loadPosition(let fen) where dialect == .acknowledged:
            ChessPeripheralWire.Message("fen", fen).bytes
        case .loadPosition(let fen):
            ChessPeripheralWire.Message("begin", fen).bytes
        case .judgeMove(let reported, let taken):
            ChessPeripheralWire.verdict(reported: reported, taken: taken).bytes
        case .endGame where dialect == .acknowledged:
            nil
        case .endGame(let reason):
            ChessPeripheralWire.Message("end", ChessPeripheralWire.endReason(termination: reason)).bytes
        case .indicate(let squares, .check)
        where squares.count == 1 && acceptedFeatures.contains("check") && dialect == .current:
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
            guard message.argument.isEmpty else {
                events.append(.raw(message.bytes))
                return
            }
            guard answeredFeatures == Self.requestedFeatures.count else {
                if message.command == "ok" { acceptedFeatures.insert(Self.requestedFeatures[answeredFeatures]) }
                answeredFeatures += 1
                if answeredFeatures == Self.requestedFeatures.count { events.append(.ready) }
                return
            }
            answered(message, into: &events)
        case "sync", "unsync", "unsync_settable", "state", "fen":
            guard let occupancy = ChessPeripheralWire.occupancy(fen: message.argument) else {
                events.append(.raw(message.bytes))
                return
            }
            sawPlacement = true
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

    /// An `ok` or `nok` once the features are answered. A board of today's dialect sends
    /// none; a `nok` before any placement is a 2024 board refusing the `begin` it does not
    /// know. In that dialect they answer what the host sent: `ok` to a `fen` says the
    /// squares show it (or acknowledges a `promote`, after which they show the game's
    /// position too), `nok` says they do not (its placement follows) or refuses a command.
    private mutating func answered(_ message: ChessPeripheralWire.Message, into events: inout [BoardEvent]) {
        switch (dialect, message.command) {
        case (.current, "nok") where !sawPlacement:
            dialect = .acknowledged
            events.append(.ready)
        case (.acknowledged, "ok"):
            events.append(.positionConfirmed)
        case (.acknowledged, _):
            break
        default:
            events.append(.raw(message.bytes))
        }
    }
}
