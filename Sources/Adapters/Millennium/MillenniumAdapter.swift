public import BoardKit
public import FoundationEssentials

/// Wire framing for the Millennium ChessLink family (Exclusive, Supreme, Performance,
/// eONE; board-protocols.md §5).
///
/// Replies are fixed-length by their lower-case letter and closed by an XOR checksum, so
/// the framer validates every candidate (letter, body characters, checksum, and parity
/// when ``checksParity``) and skips a byte on any mismatch; garbage surfaces as
/// ``BoardEvent/raw(_:)`` chunks. Automatic `s` reports may arrive between a command and
/// its ack; replies are matched by letter, never by order.
///
/// Orientation: the status string starts at the corner the board calls A8; a board used
/// the other way round sends the exact reverse. With ``Orientation/automatic`` the adapter
/// switches when it sees the full start position in either order (``isReversed``) and
/// maps squares and LEDs (LED n ↔ 82 − n) accordingly.
///
/// Writes: the LED command is 167 bytes. Millennium's own sample writes 20-byte
/// fragments; a transport that cannot write long values should split a payload with
/// ``writeChunks(_:)``. The board's UART takes the fragments as one stream, however far
/// apart; the transport keeps the write floor between every physical write, as the spec
/// asks (with the server's MTU of 160 the frame is two writes, 0.1 s apart).
public struct MillenniumAdapter: BoardAdapter {
    /// How the status string maps onto the board.
    public enum Orientation: String, Hashable, Sendable, CaseIterable {
        /// Detect from the start position (either order); documented order until then.
        case automatic
        /// Always the documented order (A8 first).
        case standard
        /// Always the reverse order (H1 first).
        case reversed
    }

    /// The Microchip/ISSC transparent UART service.
    public static let serviceUUID = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
    /// Board → host ("TX").
    public static let notifyCharacteristicUUID = "49535343-1e4d-4bd9-ba61-23c647249616"
    /// Host → board ("RX").
    public static let writeCharacteristicUUID = "49535343-8841-43f4-a8d4-ecbe34729bb3"

    /// Identification and GATT layout: advertised as `MILLENNIUM CHESS` (dual-mode; the
    /// transport must force LE).
    public static let profile = BoardProfile(
        family: .millennium,
        namePrefixes: ["MILLENNIUM CHESS"],
        advertisedServiceUUIDs: [],
        serviceUUID: serviceUUID,
        notifyCharacteristicUUIDs: [notifyCharacteristicUUID],
        writeCharacteristicUUID: writeCharacteristicUUID,
        writeType: .withResponse
    )

    /// At least 100 ms between messages.
    public static let writeFloor: TimeInterval = 0.1
    /// The largest write Millennium's own BLE sample makes.
    public static let maximumWriteChunk = 20
    /// The longest reply (`s`: letter, 64 squares, checksum).
    public static let maximumFrameLength = 67
    /// The largest ``BoardEvent/raw(_:)`` chunk of skipped garbage.
    public static let maximumGarbageChunk = 64

    /// The orientation setting.
    public let orientation: Orientation
    /// Whether replies must carry odd parity (the eONE's replies reportedly fail it).
    public let checksParity: Bool
    /// The E2ROM auto-report mode written by `startSession` (register `02`): 3 = on
    /// change, 4…7 = on change with 2…5 scans of debounce, 0 = every scan (a flood).
    public let reportMode: UInt8
    /// The LED slot time (units of 4.096 ms) of `L` commands.
    public var ledSlotTime: UInt8

    var scanner = FrameScanner(maximumGarbageChunk: maximumGarbageChunk)
    var lastStatus: [UInt8]?
    var reversed: Bool
    var isReady = false

    /// Creates an adapter.
    public init(
        orientation: Orientation = .automatic, checksParity: Bool = false, reportMode: UInt8 = 4,
        ledSlotTime: UInt8 = 0x0F
    ) {
        self.orientation = orientation
        self.checksParity = checksParity
        self.reportMode = reportMode & 0x07
        self.ledSlotTime = ledSlotTime
        reversed = orientation == .reversed
    }

    /// Identity sensing and LEDs; no battery.
    public var capabilities: BoardCapabilities {
        [.occupancySensing, .pieceIdentity, .perSquareLEDs, .moveIndication]
    }

    /// 100 ms between messages.
    public var minimumWriteInterval: TimeInterval { Self.writeFloor }

    /// Whether the status string is read in reverse order (detected or configured).
    public var isReversed: Bool { reversed }

    /// Bytes held for an incomplete reply plus skipped bytes not yet surfaced
    /// (at most ``maximumFrameLength`` + ``maximumGarbageChunk``).
    public var bufferedByteCount: Int { scanner.bufferedByteCount }

    /// Forgets framing state, the last status and readiness; keeps a detected orientation.
    public mutating func reset() {
        scanner.reset()
        lastStatus = nil
        isReady = false
    }

    /// `payload` cut into writes of at most ``maximumWriteChunk`` bytes.
    public static func writeChunks(_ payload: Data) -> [Data] {
        stride(from: 0, to: payload.count, by: maximumWriteChunk).map { offset in
            let start = payload.index(payload.startIndex, offsetBy: offset)
            let end = payload.index(start, offsetBy: min(maximumWriteChunk, payload.count - offset))
            return Data(payload[start..<end])
        }
    }

    /// Fresh connect: `V` (version), `W02 0m` (auto reports on change), `S` (status), 100 ms
    /// apart. Reconnect: `V` and `S` after 250 ms (the E2ROM setting persists).
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        let version = BoardCommand.custom(MillenniumWire.message("V"))
        if isReconnect {
            return [(version, 0.25), (.requestState, Self.writeFloor)]
        }
        return [(version, 0), (.startSession, Self.writeFloor), (.requestState, Self.writeFloor)]
    }

    /// The wire bytes for `command`: `startSession` `W02 0m`, `requestState` `S`,
    /// `indicate` `L` + slot time + 81 LED patterns (`FF` on the corners of every square;
    /// single-colour LEDs light every style alike), `clearIndications` `X`, `custom` as
    /// is; no battery, no `executeMove`.
    public func encode(_ command: BoardCommand) -> Data? {
        switch command {
        case .startSession:
            return MillenniumWire.message(Array("W02".utf8) + MillenniumWire.hexDigits(reportMode))
        case .requestState:
            return MillenniumWire.message("S")
        case .indicate(let squares, _):
            var patterns = [UInt8](repeating: 0, count: 81)
            for square in squares {
                for led in MillenniumWire.leds(for: square) {
                    let index = (reversed ? 82 - led : led) - 1
                    patterns[index] = 0xFF
                }
            }
            var text = Array("L".utf8) + MillenniumWire.hexDigits(ledSlotTime)
            for pattern in patterns { text += MillenniumWire.hexDigits(pattern) }
            return MillenniumWire.message(text)
        case .clearIndications:
            return MillenniumWire.message("X")
        case .requestBattery, .executeMove, .loadPosition, .judgeMove, .endGame:
            return nil
        case .custom(let bytes):
            return bytes
        }
    }
}
