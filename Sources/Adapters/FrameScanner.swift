import FoundationEssentials

/// What a family's framer decides about the bytes starting at one position.
enum FrameVerdict {
    /// A frame may start here but is not complete yet.
    case needMore
    /// No frame starts here: skip one byte.
    case garbage
    /// A complete frame of this many bytes starts here.
    case frame(Int)
}

/// The resynchronising scan shared by framers whose frames can be recognised at any
/// position (Millennium, Pegasus): bytes that start no frame are skipped one at a time
/// and handed back as garbage chunks of at most ``maximumGarbageChunk`` bytes; an
/// incomplete tail is kept for the next call. Both buffers are bounded by the framer's
/// longest frame plus the garbage chunk.
struct FrameScanner: Sendable {
    /// One piece of the input, in order.
    enum Piece {
        /// A complete frame.
        case frame([UInt8])
        /// Skipped bytes, for a `.raw` event.
        case garbage(Data)
    }

    /// The largest garbage chunk handed back at once.
    let maximumGarbageChunk: Int
    private(set) var buffer: [UInt8] = []
    private(set) var garbage: [UInt8] = []

    init(maximumGarbageChunk: Int) {
        self.maximumGarbageChunk = maximumGarbageChunk
    }

    /// Bytes held between calls (an incomplete frame and unreported garbage).
    var bufferedByteCount: Int { buffer.count + garbage.count }

    /// Forgets everything held.
    mutating func reset() {
        buffer = []
        garbage = []
    }

    /// Appends `bytes` and splits everything held into complete frames and garbage.
    mutating func scan(_ bytes: Data, classify: ([UInt8], Int) -> FrameVerdict) -> [Piece] {
        var pending = buffer
        buffer = []
        pending.append(contentsOf: bytes)
        var pieces: [Piece] = []
        var index = 0
        scanning: while index < pending.count {
            switch classify(pending, index) {
            case .needMore:
                break scanning
            case .garbage:
                garbage.append(pending[index])
                index += 1
                if garbage.count >= maximumGarbageChunk { flushGarbage(into: &pieces) }
            case .frame(let length):
                if !garbage.isEmpty { flushGarbage(into: &pieces) }
                pieces.append(.frame(Array(pending[index..<(index + length)])))
                index += length
            }
        }
        buffer = Array(pending[index...])
        return pieces
    }

    private mutating func flushGarbage(into pieces: inout [Piece]) {
        pieces.append(.garbage(Data(garbage)))
        garbage.removeAll(keepingCapacity: true)
    }
}
