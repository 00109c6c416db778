public import BoardKit
public import FoundationEssentials

/// Wire framing for Chessnut Air, Air+, Pro, Go and Move (board-protocols.md §1).
///
/// Frames are `[type][len][payload]` with no sync marker and no checksum, so the framer
/// accepts only the frame types and lengths the firmware sends and validates every
/// board nibble; anything else is garbage, skipped one byte at a time and surfaced as
/// ``BoardEvent/raw(_:)`` chunks of at most ``maximumGarbageChunk`` bytes. A short frame
/// that overlaps a complete, valid board frame gives way to it (a stray type byte in
/// front of a board frame cannot swallow it).
///
/// The board streams its state about ten times a second; a frame whose 32 board bytes
/// equal the previous one emits nothing (the comparison runs on raw bytes before any
/// decoding). Squares are reported as the board senses them (White's side = the side
/// the board calls rank 1); orientation is the kernel's business.
public struct ChessnutAdapter: BoardAdapter {
    /// The hardware line: classic boards light single-colour LEDs; the Move has motors
    /// and red/green/blue LEDs.
    public enum Model: String, Hashable, Sendable, CaseIterable {
        /// Chessnut Air, Air+, Pro, Go.
        case classic
        /// Chessnut Move (motorised, colour LEDs).
        case move

        /// The model an advertised name announces: exactly `Chessnut Move` (surrounding
        /// whitespace ignored) is a Move, anything else a classic board.
        public init(advertisedName: String) {
            let trimmed = advertisedName.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
            self = String(trimmed.reversed()).lowercased() == "chessnut move" ? .move : .classic
        }
    }

    /// The board-state service (notify characteristic 8262).
    public static let stateServiceUUID = "1b7e8261-2877-41c3-b46e-cf057c562023"
    /// Board-state notifications.
    public static let stateCharacteristicUUID = "1b7e8262-2877-41c3-b46e-cf057c562023"
    /// The command service (write 8272, notify 8273).
    public static let commandServiceUUID = "1b7e8271-2877-41c3-b46e-cf057c562023"
    /// Commands (write and write-without-response).
    public static let writeCharacteristicUUID = "1b7e8272-2877-41c3-b46e-cf057c562023"
    /// Acks, battery, buttons.
    public static let responseCharacteristicUUID = "1b7e8273-2877-41c3-b46e-cf057c562023"

    /// Identification and GATT layout. The Air advertises no service UUIDs, so boards are
    /// found by name (`Chessnut…`, some firmware `Smart Chess…`); both 8262 and 8273 must
    /// be subscribed before the handshake.
    public static let profile = BoardProfile(
        family: .chessnut,
        namePrefixes: ["Chessnut", "Smart Chess"],
        advertisedServiceUUIDs: [],
        serviceUUID: stateServiceUUID,
        notifyCharacteristicUUIDs: [stateCharacteristicUUID, responseCharacteristicUUID],
        writeCharacteristicUUID: writeCharacteristicUUID,
        additionalServices: [commandServiceUUID: [writeCharacteristicUUID, responseCharacteristicUUID]],
        writeType: .withResponse
    )

    /// The official SDKs' write floor: 200 ms between writes.
    public static let writeFloor: TimeInterval = 0.2
    /// The wait before `21 01 00` on a restored link.
    public static let reconnectDelay: TimeInterval = 0.25
    /// The largest payload length accepted for a board frame (sanity cap).
    public static let maximumStatePayload = 64
    /// The longest frame the board sends (the Move's 139-byte piece-status reply);
    /// the framing buffer never holds more than this.
    public static let maximumFrameLength = 139
    /// The largest ``BoardEvent/raw(_:)`` chunk of skipped garbage.
    public static let maximumGarbageChunk = 64

    /// Which hardware line this adapter drives.
    public let model: Model
    /// Whether an auto-move stops when a person touches a moving piece (`01`) rather
    /// than forcing through (`00`). Chessnut Move only.
    public var autoMoveStopsOnInterference: Bool

    var buffer: [UInt8] = []
    var garbage: [UInt8] = []
    var lastBoard: ChessnutBoardWords?
    var isReady = false

    /// Creates an adapter for `model`.
    public init(model: Model = .classic, autoMoveStopsOnInterference: Bool = true) {
        self.model = model
        self.autoMoveStopsOnInterference = autoMoveStopsOnInterference
    }

    /// Identity sensing with LEDs and battery; the Move is also motorised.
    public var capabilities: BoardCapabilities {
        var result: BoardCapabilities = [
            .occupancySensing, .pieceIdentity, .perSquareLEDs, .moveIndication, .batteryReporting,
        ]
        if model == .move { result.insert(.motorised) }
        return result
    }

    /// 200 ms (the firmware's write floor).
    public var minimumWriteInterval: TimeInterval { Self.writeFloor }

    /// Bytes held for an incomplete frame plus skipped bytes not yet surfaced
    /// (at most ``maximumFrameLength`` + ``maximumGarbageChunk``).
    public var bufferedByteCount: Int { buffer.count + garbage.count }

    /// The position of the last board frame, if one arrived since the last ``reset()``.
    public var lastSnapshot: BoardSnapshot? {
        lastBoard.flatMap { ChessnutWire.snapshot(boardBytes: $0.bytes) }
    }

    /// Forgets framing state, the last board and readiness: call on every new link
    /// (notifications restart on a frame boundary after a reconnect).
    public mutating func reset() {
        buffer = []
        garbage = []
        lastBoard = nil
        isReady = false
    }

    /// First connect: `21 01 00` at once. Reconnect: the same after 250 ms.
    public func handshakeCommands(isReconnect: Bool) -> [(command: BoardCommand, delayBefore: TimeInterval)] {
        [(command: .startSession, delayBefore: isReconnect ? Self.reconnectDelay : 0)]
    }

    /// Parses every complete frame; keeps an incomplete tail for the next call.
    public mutating func feed(bytes: Data) -> [BoardEvent] {
        guard !bytes.isEmpty else { return [] }
        var events: [BoardEvent] = []
        if buffer.isEmpty {
            bytes.withUnsafeBytes { raw in
                // The steady state: the board's ten-a-second repeat of an unchanged position.
                if isRepeatedBoardFrame(raw) { return }
                let consumed = scan(raw, into: &events)
                if consumed < raw.count { buffer.append(contentsOf: raw[consumed...]) }
            }
        } else {
            var pending = buffer
            buffer = []
            pending.append(contentsOf: bytes)
            pending.withUnsafeBytes { raw in
                let consumed = scan(raw, into: &events)
                if consumed < raw.count { buffer.append(contentsOf: raw[consumed...]) }
            }
        }
        return events
    }
}

/// The 32 board bytes of a frame as four words: equality is four integer compares.
struct ChessnutBoardWords: Hashable, Sendable {
    var a: UInt64
    var b: UInt64
    var c: UInt64
    var d: UInt64

    init(_ raw: UnsafeRawBufferPointer, at offset: Int) {
        a = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        b = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        c = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
        d = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
    }

    var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for word in [a, b, c, d] {
            for shift in stride(from: 0, to: 64, by: 8) { result.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return result
    }
}
