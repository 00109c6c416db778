public import BoardKit
public import FoundationEssentials

/// The Square Off wire protocol (reference §3): ASCII frames `<code>#<body>*` over Nordic
/// UART. The boards sense occupancy only; moves are inferred by the host from piece up/down
/// reports and occupancy snapshots. Pro and (Grand) Kingdom are motorised and execute moves
/// sent as `0#<uci>*`.
///
/// Events: `0#e2u*` → ``BoardEvent/pieceLifted(_:)``; `0#e2d*` →
/// ``BoardEvent/piecePlaced(_:piece:)`` (piece unknown); `30#<64 × 0/1>*` (file-major) →
/// ``BoardEvent/occupancy(_:)``, the first one since creation or ``reset()`` preceded by
/// ``BoardEvent/ready``; `22#<value>*` / `4#<value>*` → ``BoardEvent/battery(percent:charging:)``;
/// `14#GO*`, `1#<mac>*`, the Neo's bare `OK`, unknown frames and garbage →
/// ``BoardEvent/raw(_:)``. A message byte-identical to the one just before it produces no
/// event (the Neo streams the same occupancy over and over).
public struct SquareOffAdapter: BoardAdapter {
    /// The protocol dialects the adapter speaks.
    public enum Variant: String, Hashable, Sendable, CaseIterable {
        /// Square Off Pro and (Grand) Kingdom: the numbered protocol on Nordic UART.
        case pro
        /// Square Off Neo (Miko firmware): the numbered subset plus unwrapped tokens on extra
        /// characteristics (piece up/down `e2u`, occupancy strings, motor `OK`). Its motor
        /// routes go to a separate write characteristic, so moves cannot be executed.
        case neo
    }

    /// Pro / Kingdom (and any Square Off): Nordic UART, notify on TX, write on RX, matched by
    /// the names `Squareoff Pro`, `Square Off`, `Square Off Neo - xxx`.
    public static let profile = BoardProfile(
        family: .squareOff,
        namePrefixes: ["Squareoff", "Square Off"],
        advertisedServiceUUIDs: [],
        serviceUUID: nordicUARTService,
        notifyCharacteristicUUIDs: [nordicUARTTX],
        writeCharacteristicUUID: nordicUARTRX,
        writeType: .withResponse
    )

    /// Square Off Neo: Nordic UART plus the two extra notify characteristics seen in the Miko
    /// capture (piece up/down, occupancy). The reference does not say which service holds
    /// them; they are listed with the Nordic UART ones.
    public static let neoProfile = BoardProfile(
        family: .squareOff,
        namePrefixes: ["Square Off Neo"],
        advertisedServiceUUIDs: [],
        serviceUUID: nordicUARTService,
        notifyCharacteristicUUIDs: [
            nordicUARTTX, "4496994f-2600-4e7e-81d5-e0f7b67ebd48", "777ac5a4-6fa8-474b-841d-091bd57d28c4",
        ],
        writeCharacteristicUUID: nordicUARTRX,
        writeType: .withResponse
    )

    private static let nordicUARTService = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
    private static let nordicUARTTX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
    private static let nordicUARTRX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"

    /// The most bytes the adapter ever holds between calls.
    public static let bufferCapacity = SquareOffFramer.capacity

    /// The profile of `variant`.
    public static func profile(for variant: Variant) -> BoardProfile {
        variant == .neo ? neoProfile : profile
    }

    /// The variant an advertised name suggests (`Square Off Neo…` → Neo, anything else → Pro).
    public static func variant(forAdvertisedName name: String) -> Variant {
        name.lowercased().hasPrefix("square off neo") ? .neo : .pro
    }

    /// The dialect this adapter speaks.
    public let variant: Variant
    private var framer: SquareOffFramer
    private var lastMessageBytes: [UInt8]?
    /// Whether the board has sent its occupancy since creation or ``reset()``.
    public private(set) var isReady = false

    /// Creates an adapter for `variant`.
    public init(variant: Variant = .pro) {
        self.variant = variant
        framer = SquareOffFramer(recognisesBareTokens: variant == .neo)
    }

    /// Occupancy sensing, square LEDs (which also show moves), battery; Pro/Kingdom also
    /// execute moves.
    public var capabilities: BoardCapabilities {
        var result: BoardCapabilities = [.occupancySensing, .perSquareLEDs, .moveIndication, .batteryReporting]
        if variant == .pro { result.insert(.motorised) }
        return result
    }

    /// 150 ms: the reference asks for 150–500 ms between initialisation steps.
    public var minimumWriteInterval: TimeInterval { 0.15 }

    /// How many bytes are buffered; never more than ``bufferCapacity``.
    public var bufferedByteCount: Int { framer.pending.count }

    /// Forgets all link state (partial frames, repeat memory, readiness). Call it (or start
    /// from a fresh adapter) for every new link.
    public mutating func reset() {
        self = SquareOffAdapter(variant: variant)
    }

    /// Parses `bytes` (framing is stateful) and returns the events of every completed message.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        var events: [BoardEvent] = []
        var tokens: [SquareOffFramer.Token] = []
        for byte in Array(bytes) {
            framer.push(byte, into: &tokens)
            guard !tokens.isEmpty else { continue }
            for token in tokens {
                switch token {
                case .message(let message, let bytes): handle(message, bytes: bytes, into: &events)
                case .garbage(let bytes): events.append(.raw(Data(bytes)))
                }
            }
            tokens.removeAll(keepingCapacity: true)
        }
        return events
    }

    /// `startSession` → `14#1*`, `requestState` → `30#R*`, `requestBattery` → `4#*`,
    /// `indicate` → `25#e2e4*` (names concatenated; single-colour LEDs, so every style looks
    /// alike), `clearIndications` → `25#*`, `executeMove` → `0#<uci>*` (Pro/Kingdom only; the
    /// reference marks its semantics unverified), `custom` → its bytes.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession:
            SquareOffWire.frame(code: SquareOffWire.newGameCode, body: "1")
        case .requestState:
            SquareOffWire.frame(code: SquareOffWire.occupancyCode, body: "R")
        case .requestBattery:
            SquareOffWire.frame(code: SquareOffWire.batteryRequestCode)
        case .indicate(let squares, _):
            SquareOffWire.frame(code: SquareOffWire.ledCode, body: squares.map(\.name).joined())
        case .clearIndications:
            SquareOffWire.frame(code: SquareOffWire.ledCode)
        case .executeMove(let uci):
            variant == .pro
                ? BoardMove(uci: uci.lowercased()).map {
                    SquareOffWire.frame(code: SquareOffWire.pieceCode, body: $0.uci)
                }
                : nil
        case .custom(let data):
            data
        case .loadPosition, .judgeMove, .endGame:
            nil
        }
    }

    /// First connect: `14#1*` after 250 ms, then `30#R*` after 150 ms. Reconnect: only `30#R*`
    /// after 250 ms (`14#1*` would reset the board's game).
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        isReconnect
            ? [(.requestState, 0.25)]
            : [(.startSession, 0.25), (.requestState, 0.15)]
    }

    private mutating func handle(_ message: SquareOffMessage, bytes: [UInt8], into events: inout [BoardEvent]) {
        let repeated = bytes == lastMessageBytes
        lastMessageBytes = bytes
        switch message {
        case .occupancy(let map):
            if !isReady {
                isReady = true
                events.append(.ready)
            } else if repeated {
                return
            }
            events.append(.occupancy(map))
        case _ where repeated:
            return
        case .lifted(let square):
            events.append(.pieceLifted(square))
        case .placed(let square):
            events.append(.piecePlaced(square, piece: nil))
        case .battery(let percent):
            events.append(.battery(percent: percent, charging: nil))
        case .newGameAcknowledged, .macAddress, .motorAcknowledged:
            events.append(.raw(Data(bytes)))
        }
    }
}
