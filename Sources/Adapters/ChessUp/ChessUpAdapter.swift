public import BoardKit
public import FoundationEssentials

/// The ChessUp (gen-1) and ChessUp 2 wire protocol (reference §2): Nordic UART, one opcode
/// byte and a fixed length per opcode, mandatory acks.
///
/// The board reports completed, legal moves (`A3`) and board-side promotion picks (`97`)
/// only inside a phoneOTB session, which ``BoardCommand/startSession`` opens (`B9 05 …`).
/// Every `A3` must be answered with `21` and every `97` with `23` — also retransmissions —
/// or the board floods the link until it drops; ``takePendingResponses()`` hands those acks
/// out. Retransmissions are acked but produce no second event; the rule is documented on
/// the internal `ChessUpRetransmissionFilter`: a move identical to one of the last two
/// distinct reported moves is a retransmission (a legal game cannot repeat a move sooner),
/// and an undo (`BD`), a position load (`B1`), a `67` state frame that contradicts the
/// move, or ``reset()`` lift that memory.
///
/// Events: `A3` → ``BoardEvent/moveReported(_:)``; `97` → ``BoardEvent/promotionPicked(_:)``
/// (once per reported move that ends on the first or last rank, so a late retransmitted pick
/// is not taken for a new one); `67` → ``BoardEvent/gameState(_:sideToMove:fullmoveNumber:)``
/// (the board's own game; also for a frame identical to the one before, which answers a
/// state request all the same) then ``BoardEvent/pieces(_:)`` (unless identical), the first
/// one since creation or ``reset()`` preceded by ``BoardEvent/ready``;
/// `FD FD` → ``BoardEvent/occupancy(_:)``; `B2` → ``BoardEvent/version(_:)``; every other
/// known frame (touch `B8`/`BB`, acks `22`/`23`/`24`, `B1`, `BD`, charging flag `33`, `B0`)
/// and every run of unparseable bytes → ``BoardEvent/raw(_:)``. A frame byte-identical to the
/// frame just before it produces no event (except `BD`: two undos are two undos).
///
/// The battery level is not on the wire: it is the standard GATT Battery Service (`180F` /
/// `2A19`, read and notify, reference §2.1), listed in ``auxiliaryCharacteristics`` and
/// decoded by ``feed(value:of:)`` into ``BoardEvent/battery(percent:charging:)`` with the
/// charging flag of the last `33` frame.
public struct ChessUpAdapter: BoardAuxiliaryReading {
    /// Nordic UART service, notify on TX (`…0003`), write with response on RX (`…0002`);
    /// identified by the advertised name `ChessUp` (ChessUp 2 has the same GATT layout).
    /// The Nordic UART service UUID is not used for identification: Square Off and Pegasus
    /// advertise it too.
    public static let profile = BoardProfile(
        family: .chessUp,
        namePrefixes: ["ChessUp"],
        advertisedServiceUUIDs: [],
        serviceUUID: "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
        notifyCharacteristicUUIDs: ["6e400003-b5a3-f393-e0a9-e50e24dcca9e"],
        writeCharacteristicUUID: "6e400002-b5a3-f393-e0a9-e50e24dcca9e",
        writeType: .withResponse
    )

    /// The most bytes the adapter ever holds between calls (a partial frame of at most 72
    /// bytes plus a garbage run shorter than 64 bytes).
    public static let bufferCapacity = 72 + 63

    /// Whether a two-square ``BoardCommand/indicate(squares:style:)`` is sent as the `99 from to`
    /// show-move frame. Off by default: on the board `99` is a remote-move injection that
    /// changes its game state in remote modes, and its behaviour on ChessUp 2 is unverified.
    public let showsMoves: Bool

    private var framer = ChessUpFramer()
    private var filter = ChessUpRetransmissionFilter()
    private var pendingResponses: [Data] = []
    private var lastFrame: [UInt8]?
    private var promotionPickOpen = true
    /// The charging flag of the last `33` frame, if one came on this link.
    private var charging: Bool?
    /// The last Battery Level read or notified on this link: a `33` frame that changes the
    /// charging flag reports it again (the two arrive on different characteristics, in
    /// either order).
    private var level: Int?
    /// Whether the board has answered the handshake (`67`) since creation or ``reset()``.
    public private(set) var isReady = false

    /// Creates an adapter; `showsMoves` enables move indication through `99` (see ``showsMoves``).
    public init(showsMoves: Bool = false) {
        self.showsMoves = showsMoves
    }

    /// Occupancy sensing, completed-move reports from a game of its own, battery (GATT
    /// Battery Service); move indication when ``showsMoves``.
    public var capabilities: BoardCapabilities {
        var result: BoardCapabilities = [.occupancySensing, .reportsMoves, .ownGame, .batteryReporting]
        if showsMoves { result.insert(.moveIndication) }
        return result
    }

    /// No floor: the reference gives none, writes go with response, and acks must go out
    /// promptly.
    public var minimumWriteInterval: TimeInterval { 0 }

    /// How many bytes are buffered (a partial frame and pending garbage); never more than
    /// ``bufferCapacity``.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Forgets all link state: partial frames, retransmission memory, queued acks, readiness.
    /// Call it (or start from a fresh adapter) for every new link.
    public mutating func reset() {
        self = ChessUpAdapter(showsMoves: showsMoves)
    }

    /// Parses `bytes` (framing is stateful) and returns the events of every completed frame.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        var events: [BoardEvent] = []
        var tokens: [ChessUpFramer.Token] = []
        for byte in Array(bytes) {
            framer.push(byte, into: &tokens)
            guard !tokens.isEmpty else { continue }
            for token in tokens {
                switch token {
                case .frame(let frame): handle(frame: frame, into: &events)
                case .garbage(let bytes): events.append(.raw(Data(bytes)))
                }
            }
            tokens.removeAll(keepingCapacity: true)
        }
        return events
    }

    /// The acks queued since the last call: one `21` per `A3` and one `23` per `97` received,
    /// retransmissions included. Each is returned exactly once.
    public mutating func takePendingResponses() -> [Data] {
        defer { pendingResponses.removeAll() }
        return pendingResponses
    }

    /// `startSession` → `B9 05 00 01 00 00 01 00 00 00 00 00` (phoneOTB session: the board's
    /// game starts afresh), `requestState` → `67`, `loadPosition` → `66 …` (its game set to
    /// the FEN; `nil` for a malformed FEN), a two-square `indicate` → `99 from to` when
    /// ``showsMoves``, `custom` → its bytes; `nil` for everything else (`requestBattery`
    /// reads ``BoardAuxiliaryCharacteristic/batteryLevel`` instead).
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession:
            ChessUpWire.sessionOpenFrame
        case .requestState:
            Data([ChessUpWire.stateOpcode])
        case .indicate(let squares, _):
            showsMoves && squares.count == 2
                ? Data([ChessUpWire.showMoveOpcode, UInt8(squares[0].rawValue), UInt8(squares[1].rawValue)]) : nil
        case .loadPosition(let fen):
            ChessUpWire.loadPositionFrame(fen: fen)
        case .custom(let data):
            data
        case .requestBattery, .clearIndications, .executeMove, .judgeMove, .endGame:
            nil
        }
    }

    /// The GATT Battery Level (`180F` / `2A19`).
    public var auxiliaryCharacteristics: [BoardAuxiliaryCharacteristic] { [.batteryLevel] }

    /// A Battery Level value (one byte, percent, clamped to 100) →
    /// ``BoardEvent/battery(percent:charging:)`` with the last `33` charging flag; an empty
    /// value or another characteristic → nothing.
    public mutating func feed(value: Data, of characteristic: BoardAuxiliaryCharacteristic) -> [BoardEvent] {
        guard characteristic.characteristicUUID == BoardAuxiliaryCharacteristic.batteryLevel.characteristicUUID,
            let level = value.first
        else { return [] }
        self.level = min(Int(level), 100)
        return [.battery(percent: min(Int(level), 100), charging: charging)]
    }

    /// First connect: open the phoneOTB session, then read the state 150 ms later.
    /// Reconnect: only read the state after 250 ms — `B9` would start a new game.
    /// Either way, 50 ms after the state request, `50` switches the `FD FD` occupancy
    /// stream on (it stops with the link): the board reports only the moves its engine
    /// accepts, so what the sensors see is how a refused move (a bishop moved like a rook, a
    /// move into check) or a knocked piece is known at all.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        let stream: (command: BoardCommand, delayBefore: TimeInterval) = (
            .custom(Data([ChessUpWire.enableOccupancyOpcode])), 0.05
        )
        return isReconnect
            ? [(.requestState, 0.25), stream]
            : [(.startSession, 0), (.requestState, 0.15), stream]
    }

    private mutating func handle(frame: [UInt8], into events: inout [BoardEvent]) {
        defer { lastFrame = frame }
        let repeated = frame == lastFrame
        switch frame[0] {
        case ChessUpWire.moveOpcode:
            pendingResponses.append(Data([ChessUpWire.moveAck]))
            guard let move = ChessUpWire.move(frame: frame), !filter.isRetransmission(move) else { return }
            filter.record(move)
            promotionPickOpen = move.to.rank == 0 || move.to.rank == 7
            events.append(.moveReported(move))
        case ChessUpWire.promotionOpcode:
            pendingResponses.append(Data([ChessUpWire.promotionAck]))
            guard promotionPickOpen, let kind = ChessUpWire.promotionKind(code: frame[1]) else { return }
            promotionPickOpen = false
            events.append(.promotionPicked(kind))
        case ChessUpWire.stateOpcode:
            guard let state = ChessUpState(frame: frame) else { return }
            filter.prune(keepingMovesConsistentWith: state.pieces)
            let game = BoardEvent.gameState(
                state.pieces, sideToMove: state.sideToMove, fullmoveNumber: Int(state.fullmoveNumber))
            if !isReady {
                isReady = true
                events.append(.ready)
            } else if repeated {
                // An answer to a state request, although nothing changed.
                events.append(game)
                return
            }
            events += [game, .pieces(state.pieces)]
        case ChessUpWire.occupancyMarker:
            guard !repeated, let map = ChessUpWire.occupancy(frame: frame) else { return }
            events.append(.occupancy(map))
        case ChessUpWire.boardInfoOpcode:
            guard !repeated, let model = ChessUpWire.model(frame: frame) else { return }
            events.append(.version(model))
        case ChessUpWire.undoOpcode:
            // An undo made on the board: its next state frame shows its game a ply back.
            filter.clear()
            events.append(.button(.undo))
        case ChessUpWire.loadCompleteOpcode:
            filter.clear()
            if !repeated { events.append(.raw(Data(frame))) }
        case ChessUpWire.chargingOpcode:
            let wasCharging = charging
            charging = frame[1] == 1
            if let level, charging != wasCharging {
                events.append(.battery(percent: level, charging: charging))
            } else if !repeated {
                events.append(.raw(Data(frame)))
            }
        default:
            if !repeated { events.append(.raw(Data(frame))) }
        }
    }
}
