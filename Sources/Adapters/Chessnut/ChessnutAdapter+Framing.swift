import BoardKit
import FoundationEssentials

extension ChessnutAdapter {
    /// What the bytes at one position of the input are.
    enum Verdict {
        /// Too few bytes to decide; wait for more input.
        case needMore
        /// The byte cannot start a frame: skip it.
        case garbage
        /// A valid frame of this many bytes starts here.
        case frame(Int)
    }

    /// Whether `raw` is exactly one board frame repeating the last board, with nothing
    /// buffered or skipped before it (the caller checks the buffer): ``scan(_:into:)`` would
    /// consume it whole and emit nothing, so it can be skipped without classifying it.
    @inline(__always)
    func isRepeatedBoardFrame(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard isReady, garbage.isEmpty, let lastBoard, raw.count >= 34, raw[0] == ChessnutWire.stateType else {
            return false
        }
        let length = Int(raw[1])
        guard length + 2 == raw.count, length >= 32, length <= Self.maximumStatePayload else { return false }
        return ChessnutBoardWords(raw, at: 2) == lastBoard
    }

    /// Parses `raw` from its start; returns how many bytes were consumed (the rest is an
    /// incomplete frame, always shorter than ``maximumFrameLength``).
    mutating func scan(_ raw: UnsafeRawBufferPointer, into events: inout [BoardEvent]) -> Int {
        var index = 0
        while index < raw.count {
            switch classify(raw, at: index) {
            case .needMore:
                return index
            case .garbage:
                garbage.append(raw[index])
                index += 1
                if garbage.count >= Self.maximumGarbageChunk { flushGarbage(into: &events) }
            case .frame(let length):
                if !garbage.isEmpty { flushGarbage(into: &events) }
                handleFrame(raw, at: index, length: length, into: &events)
                index += length
            }
        }
        return index
    }

    private mutating func flushGarbage(into events: inout [BoardEvent]) {
        events.append(.raw(Data(garbage)))
        garbage.removeAll(keepingCapacity: true)
    }

    /// Decides whether a frame starts at `index`, from the bytes alone (so every way of
    /// splitting the input gives the same answer).
    func classify(_ raw: UnsafeRawBufferPointer, at index: Int) -> Verdict {
        let available = raw.count - index
        let type = raw[index]
        switch type {
        case 0x01, 0x0F, 0x23, 0x2A, 0x32, 0x36, 0x37, 0x38, 0x41: break
        default: return .garbage
        }
        guard available >= 2 else { return .needMore }
        let length = Int(raw[index + 1])
        let expected: Bool
        switch type {
        case 0x01: expected = length >= 32 && length <= Self.maximumStatePayload
        case 0x0F, 0x23, 0x32, 0x37: expected = length == 1
        case 0x2A: expected = length == 2
        case 0x36: expected = length == 8
        case 0x38: expected = length == 4
        default: expected = length == 3 || length == 5 || length == 0x89
        }
        guard expected else { return .garbage }
        let total = length + 2
        switch type {
        case ChessnutWire.stateType:
            switch stateFrame(raw, at: index) {
            case .valid: return .frame(total)
            case .invalid: return .garbage
            case .incomplete: return .needMore
            }
        case 0x41:
            guard available >= 3 else { return .needMore }
            let sub = raw[index + 2]
            let known = (length == 3 && sub == 0x0C) || (length == 5 && sub == 0x15) || (length == 0x89 && sub == 0x0B)
            guard known else { return .garbage }
            return available >= total ? .frame(total) : .needMore
        default:
            break
        }
        guard available >= total else { return .needMore }
        switch type {
        case 0x23 where raw[index + 2] > 1,
            0x37 where raw[index + 2] != 0xBE && raw[index + 2] != 0xED:
            return .garbage
        default:
            break
        }
        // A short frame must not swallow the start of a valid board frame whose header
        // lies inside it (a stray type byte in front of a real board frame).
        for inner in (index + 1)..<(index + total - 1) where raw[inner] == ChessnutWire.stateType {
            switch stateFrame(raw, at: inner) {
            case .valid: return .garbage
            case .invalid: continue
            case .incomplete: return .needMore
            }
        }
        return .frame(total)
    }

    enum StateFrameStatus {
        case valid
        case invalid
        case incomplete
    }

    /// Whether a board frame starts at `index` (`01`, a length of 32…64, 32 valid board
    /// bytes), judged as early as the bytes allow: a bad length or nibble rejects at once.
    func stateFrame(_ raw: UnsafeRawBufferPointer, at index: Int) -> StateFrameStatus {
        guard index + 1 < raw.count else { return .incomplete }
        let length = Int(raw[index + 1])
        guard length >= 32, length <= Self.maximumStatePayload else { return .invalid }
        if index + 2 + length <= raw.count {
            return boardBytesAreValid(raw, at: index + 2) ? .valid : .invalid
        }
        let end = min(raw.count, index + 34)
        var offset = index + 2
        while offset < end {
            if !ChessnutWire.isValidBoardByte(raw[offset]) { return .invalid }
            offset += 1
        }
        return .incomplete
    }

    /// Whether the 32 bytes at `offset` hold only valid nibble codes (0…C). Four
    /// word-wide tests; a copy of the previous board is valid without testing.
    @inline(__always)
    func boardBytesAreValid(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        let words = ChessnutBoardWords(raw, at: offset)
        if words == lastBoard { return true }
        // A nibble is invalid (D, E, F) when bits 3 and 2 are set and bit 1 or bit 0 is.
        @inline(__always) func invalid(_ word: UInt64) -> UInt64 {
            let mask: UInt64 = 0x8888_8888_8888_8888
            return word & (word << 1) & ((word << 2) | (word << 3)) & mask
        }
        return invalid(words.a) | invalid(words.b) | invalid(words.c) | invalid(words.d) == 0
    }

    private mutating func handleFrame(
        _ raw: UnsafeRawBufferPointer, at index: Int, length: Int, into events: inout [BoardEvent]
    ) {
        let type = raw[index]
        switch type {
        case ChessnutWire.stateType:
            if !isReady {
                isReady = true
                events.append(.ready)
            }
            let words = ChessnutBoardWords(raw, at: index + 2)
            guard words != lastBoard else { return }
            lastBoard = words
            events.append(.pieces(Self.decodeBoard(raw, at: index + 2)))
        case ChessnutWire.ackType where raw[index + 2] == 0:
            // Re-arm the duplicate filter: the frame after an ack (also the reply to a
            // state request, which re-sends `21 01 00`) is always reported.
            lastBoard = nil
            if !isReady {
                isReady = true
                events.append(.ready)
            }
        case ChessnutWire.batteryType:
            let level = raw[index + 2]
            let charging = level & 0x80 != 0 || raw[index + 3] == 1
            events.append(.battery(percent: min(Int(level & 0x7F), 100), charging: charging))
        case ChessnutWire.buttonType:
            let code = raw[index + 2]
            events.append(.button(code == ChessnutWire.newGameButton ? .named("new_game") : .code(Int(code))))
        case ChessnutWire.moveQueryType where raw[index + 2] == 0x0C:
            events.append(.battery(percent: min(Int(raw[index + 4]), 100), charging: raw[index + 3] == 1))
        default:
            events.append(.raw(Data(UnsafeRawBufferPointer(rebasing: raw[index..<(index + length)]))))
        }
    }

    /// The snapshot in the 32 (valid) board bytes at `offset`.
    static func decodeBoard(_ raw: UnsafeRawBufferPointer, at offset: Int) -> BoardSnapshot {
        let table = ChessnutWire.pieceForNibble
        let squares = [Piece?](unsafeUninitializedCapacity: 64) { buffer, count in
            for byteIndex in 0..<32 {
                let byte = raw[offset + byteIndex]
                buffer.initializeElement(at: 63 - 2 * byteIndex, to: table[Int(byte & 0x0F)])
                buffer.initializeElement(at: 62 - 2 * byteIndex, to: table[Int(byte >> 4)])
            }
            count = 64
        }
        return BoardSnapshot(squares: squares)
    }
}
