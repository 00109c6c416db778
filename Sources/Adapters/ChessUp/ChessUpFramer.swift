/// Splits the ChessUp notification stream into frames. The protocol has no sync marker, no
/// length byte and no checksum: each opcode has a fixed length. A candidate frame is checked
/// byte by byte as it arrives (piece codes, square ranges, flags), so a false start is
/// rejected at its first impossible byte; the framer then moves that one byte to the garbage
/// run and rescans the rest. Everything it decides depends on the byte stream alone, never on
/// how the stream was cut into notifications.
struct ChessUpFramer: Sendable {
    /// A unit of the stream: a complete frame or a run of bytes that belong to no frame.
    enum Token: Equatable, Sendable {
        case frame([UInt8])
        case garbage([UInt8])
    }

    /// The longest garbage run kept before it is handed out as one chunk.
    static let garbageChunk = 64

    /// The bytes of the frame being assembled; `candidate[0..<validated]` passed the checks.
    private(set) var candidate: [UInt8] = []
    private var validated = 0
    /// Bytes that belong to no frame and have not been handed out yet.
    private(set) var garbage: [UInt8] = []

    /// How many bytes the framer holds (candidate frame and pending garbage).
    var bufferedByteCount: Int { candidate.count + garbage.count }

    /// Appends `byte` and appends to `tokens` every frame or garbage chunk it completes.
    mutating func push(_ byte: UInt8, into tokens: inout [Token]) {
        if candidate.isEmpty, ChessUpWire.frameLength(opcode: byte) == nil {
            appendGarbage(byte, into: &tokens)
            return
        }
        candidate.append(byte)
        resolve(into: &tokens)
    }

    /// Forgets everything buffered.
    mutating func reset() {
        candidate.removeAll(keepingCapacity: true)
        garbage.removeAll(keepingCapacity: true)
        validated = 0
    }

    private mutating func resolve(into tokens: inout [Token]) {
        while let opcode = candidate.first {
            guard let length = ChessUpWire.frameLength(opcode: opcode) else {
                reject(into: &tokens)
                continue
            }
            var valid = true
            while validated < min(candidate.count, length) {
                guard Self.isValid(byte: candidate[validated], at: validated, opcode: opcode) else {
                    valid = false
                    break
                }
                validated += 1
            }
            if valid, validated == length, !Self.isValidFrame(candidate[0..<length]) { valid = false }
            guard valid else {
                reject(into: &tokens)
                continue
            }
            guard validated == length else { return }
            if !garbage.isEmpty {
                tokens.append(.garbage(garbage))
                garbage.removeAll(keepingCapacity: true)
            }
            tokens.append(.frame(Array(candidate[0..<length])))
            candidate.removeFirst(length)
            validated = 0
        }
    }

    /// Moves the first candidate byte to the garbage run; the rest is rescanned.
    private mutating func reject(into tokens: inout [Token]) {
        validated = 0
        appendGarbage(candidate.removeFirst(), into: &tokens)
    }

    private mutating func appendGarbage(_ byte: UInt8, into tokens: inout [Token]) {
        garbage.append(byte)
        if garbage.count >= Self.garbageChunk {
            tokens.append(.garbage(garbage))
            garbage.removeAll(keepingCapacity: true)
        }
    }

    /// Whether `byte` may stand at `index` of a frame that starts with `opcode`.
    static func isValid(byte: UInt8, at index: Int, opcode: UInt8) -> Bool {
        if index == 0 { return byte == opcode }
        switch opcode {
        case ChessUpWire.moveOpcode: return index == 1 ? byte == ChessUpWire.moveSubtype : byte < 8
        case ChessUpWire.promotionOpcode: return ChessUpWire.promotionKind(code: byte) != nil
        case ChessUpWire.stateOpcode: return ChessUpState.isValid(byte: byte, at: index)
        case ChessUpWire.touchOpcode: return index == 1 ? byte < 64 : ChessUpWire.kind(code: byte) != nil
        case ChessUpWire.chargingOpcode, ChessUpWire.startPositionOpcode: return byte <= 1
        case ChessUpWire.boardInfoOpcode: return byte == 0 || (0x20...0x7E).contains(byte)
        case ChessUpWire.occupancyMarker: return index > 1 || byte == ChessUpWire.occupancyMarker
        default: return false
        }
    }

    /// Checks that need the whole frame (a move must go somewhere).
    static func isValidFrame(_ frame: ArraySlice<UInt8>) -> Bool {
        guard frame.first == ChessUpWire.moveOpcode else { return true }
        return ChessUpWire.move(frame: frame) != nil
    }
}
