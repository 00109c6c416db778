public import BoardKit
public import FoundationEssentials

/// Why a ``PegasusAdapter`` cannot be built from its configuration.
public enum PegasusAdapterError: Error, Equatable, Sendable {
    /// A developer key must be 6 bytes; the associated value is the length given.
    case invalidDeveloperKeyLength(Int)
}

/// Wire framing for the DGT Pegasus (board-protocols.md §4.2): classic DGT messages over
/// the Nordic UART service; occupancy only; unlocked by a developer key.
///
/// Without a valid key the board reports `7F` on every square and sends no field
/// updates: such a dump, or a key state `A5 00 01 00`, makes ``isUnlocked`` `false` and
/// is reported once per link as ``BoardEvent/handshakeFailed(reason:)`` ("the board
/// rejected the developer key"). ``BoardEvent/ready`` follows the first dump with real
/// occupancy.
///
/// Framing resynchronises on the id byte (the only byte with bit 7 set), so garbage never
/// swallows a following message. Squares are reported as the board counts them; a board
/// set up the other way round is the kernel's business (occupancy cannot show it).
public struct PegasusAdapter: BoardAdapter {
    /// LED parameters of the `60` command (their meaning differs between sources).
    public struct LEDSettings: Hashable, Sendable {
        /// Blink speed (`02` normal alternate blink, `FF` all pulse together).
        public var speed: UInt8
        /// Mode or repeat count (`00` steady).
        public var mode: UInt8
        /// Intensity.
        public var intensity: UInt8

        /// Creates settings; the defaults light squares steadily.
        public init(speed: UInt8 = 0x02, mode: UInt8 = 0x00, intensity: UInt8 = 0x05) {
            self.speed = speed
            self.mode = mode
            self.intensity = intensity
        }
    }

    /// The Nordic UART service (shared with ChessUp and Square Off).
    public static let nordicUARTServiceUUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
    /// Host → board.
    public static let writeCharacteristicUUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
    /// Board → host.
    public static let notifyCharacteristicUUID = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"

    /// Identification and GATT layout. Matched by the factory name (`DGT_Pegasus…`, or
    /// `PCS-REVII…` as emulators advertise); users often rename the board, and the NUS
    /// service alone cannot tell it from ChessUp or Square Off, so a renamed board needs
    /// an explicit family in the configuration (or the `4D` → `93` major-1 probe).
    public static let profile = BoardProfile(
        family: .dgtPegasus,
        namePrefixes: ["DGT_Pegasus", "PCS-REVII"],
        advertisedServiceUUIDs: [],
        serviceUUID: nordicUARTServiceUUID,
        notifyCharacteristicUUIDs: [notifyCharacteristicUUID],
        writeCharacteristicUUID: writeCharacteristicUUID,
        writeType: .withResponse
    )

    /// The developer key of mono424/dgtdriver (White Pawn), which the official DGT app
    /// is also reported to send. A third party's key: obtain your own from DGT for
    /// production use and pass it to ``init(developerKey:ledSettings:)``.
    public static let defaultDeveloperKey = Data([0xBE, 0xF5, 0xAE, 0xDD, 0xA9, 0x5F])
    /// The key DGTCentaurUniversal saw in the DGT app's first packet.
    public static let alternateDeveloperKey = Data([0x8E, 0x87, 0xB0, 0x18, 0xB6, 0xF4])
    /// The wait after subscribing before the first write.
    public static let initialDelay: TimeInterval = 0.3
    /// The gap between handshake steps and the write floor.
    public static let stepInterval: TimeInterval = 0.05
    /// The longest message accepted; longer sizes are treated as garbage.
    public static let maximumFrameLength = 256
    /// The largest ``BoardEvent/raw(_:)`` chunk of skipped garbage.
    public static let maximumGarbageChunk = 64

    /// The key written during the handshake, or `nil` to skip the unlock.
    public let developerKey: Data?
    /// The parameters of LED commands.
    public var ledSettings: LEDSettings

    var scanner = FrameScanner(maximumGarbageChunk: maximumGarbageChunk)
    var trackedOccupancy: OccupancyMap?
    var unlockState: Bool?
    var isReady = false
    var reportedLock = false

    /// Creates an adapter. `developerKey` must be 6 bytes (or `nil`: no unlock step).
    public init(
        developerKey: Data? = PegasusAdapter.defaultDeveloperKey, ledSettings: LEDSettings = LEDSettings()
    ) throws(PegasusAdapterError) {
        if let developerKey, developerKey.count != 6 {
            throw .invalidDeveloperKeyLength(developerKey.count)
        }
        self.developerKey = developerKey
        self.ledSettings = ledSettings
    }

    /// Occupancy, LEDs, battery.
    public var capabilities: BoardCapabilities {
        [.occupancySensing, .perSquareLEDs, .moveIndication, .batteryReporting]
    }

    /// 50 ms between writes.
    public var minimumWriteInterval: TimeInterval { Self.stepInterval }

    /// Bytes held for an incomplete message plus skipped bytes not yet surfaced
    /// (at most ``maximumFrameLength`` + ``maximumGarbageChunk``).
    public var bufferedByteCount: Int { scanner.bufferedByteCount }

    /// The occupancy as the dump and field updates since tell it, if a dump arrived.
    public var occupancy: OccupancyMap? { trackedOccupancy }

    /// Whether the board accepted the developer key (`A5` reply or a real dump), did not
    /// (`A5 … 00` or a locked dump), or has not said yet.
    public var isUnlocked: Bool? { unlockState }

    /// Forgets framing state, occupancy, unlock state and readiness (call on a new link).
    public mutating func reset() {
        scanner.reset()
        trackedOccupancy = nil
        unlockState = nil
        isReady = false
        reportedLock = false
    }

    /// Why the board stays locked, as ``BoardEvent/handshakeFailed(reason:)`` says it.
    public var lockReason: String {
        developerKey == nil
            ? "the board is locked and no developer key is configured"
            : "the board rejected the developer key"
    }

    /// Fresh connect and reconnect alike (the unlock is per link): after 300 ms `40`
    /// (reset), then every 50 ms the key `63 07 … 00` and its check `5A`, `4D` (version),
    /// LEDs off, `44` (field updates), `42` (dump), `4C` (battery).
    ///
    /// Field updates are switched on before the dump is requested, so no change can fall
    /// between the two: the dump (which makes the adapter ``BoardEvent/ready``) shows the
    /// board as it is, and every change after it comes as a field update. In the opposite
    /// order a piece lifted in the gap was never reported and the occupancy seen stayed
    /// wrong for the rest of the game.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        var steps: [(command: BoardCommand, delayBefore: TimeInterval)] = [
            (.custom(Data([PegasusWire.reset])), Self.initialDelay)
        ]
        if let developerKey {
            steps.append((.custom(PegasusWire.unlockCommand(key: developerKey)), Self.stepInterval))
            steps.append((.custom(Data([PegasusWire.requestKeyState])), Self.stepInterval))
        }
        steps += [
            (.custom(Data([PegasusWire.requestVersion])), Self.stepInterval),
            (.clearIndications, Self.stepInterval),
            (.startSession, Self.stepInterval),
            (.requestState, Self.stepInterval),
            (.requestBattery, Self.stepInterval),
        ]
        return steps
    }

    /// The wire bytes for `command`: `startSession` `44`, `requestState` `42`,
    /// `requestBattery` `4C`, `indicate` `60 <len> 05 <speed> <mode> <intensity> <fields…> 00`
    /// (every style alike: single-colour LEDs), `clearIndications` `60 02 00 00`,
    /// `custom` as is; no `executeMove`.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession: return Data([PegasusWire.requestUpdates])
        case .requestState: return Data([PegasusWire.requestBoard])
        case .requestBattery: return Data([PegasusWire.requestBattery])
        case .indicate(let squares, _):
            guard !squares.isEmpty else { return Data(PegasusWire.ledsOff) }
            var fields: [UInt8] = []
            for square in squares where !fields.contains(PegasusWire.field(of: square)) {
                fields.append(PegasusWire.field(of: square))
            }
            let body: [UInt8] = [0x05, ledSettings.speed, ledSettings.mode, ledSettings.intensity] + fields + [0x00]
            return Data([PegasusWire.led, UInt8(body.count)] + body)
        case .clearIndications: return Data(PegasusWire.ledsOff)
        case .executeMove, .loadPosition, .judgeMove, .endGame: return nil
        case .custom(let bytes): return bytes
        }
    }
}
