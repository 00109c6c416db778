/// Splits the Square Off notification stream into messages.
///
/// Wrapped frames `<code>#<body>*` end at `*`. The frame start is found backwards from the
/// terminator: the last `#` and the digits just before it; when those digits are longer than
/// a known code (garbage ran into the frame, `xx130#…`), the longest known suffix wins.
/// Anything before the frame start is garbage and is handed out as such (line breaks alone
/// are dropped silently).
///
/// With `recognisesBareTokens` (Square Off Neo), unwrapped tokens are recognised too while no
/// `#` is pending: a run of 64 `0`/`1` characters (occupancy), `e2u` / `e2d` (piece up/down)
/// and `OK` (motor ack).
///
/// The buffer never exceeds ``capacity``: when it fills without a terminator, the oldest
/// bytes are handed out as garbage and the newest ``kept`` bytes stay. Every decision depends
/// only on the byte stream, not on how it was cut into notifications.
struct SquareOffFramer: Sendable {
    /// A unit of the stream.
    enum Token: Equatable, Sendable {
        /// A message, with the bytes that carried it.
        case message(SquareOffMessage, bytes: [UInt8])
        /// Bytes that carry no message the adapter understands.
        case garbage([UInt8])
    }

    /// The most bytes held.
    static let capacity = 160
    /// How many of the newest bytes are kept when the buffer overflows (more than any frame).
    static let kept = 80

    let recognisesBareTokens: Bool
    private(set) var pending: [UInt8] = []
    private var hashCount = 0
    private var binaryRun = 0

    init(recognisesBareTokens: Bool) {
        self.recognisesBareTokens = recognisesBareTokens
    }

    /// Forgets everything buffered.
    mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        hashCount = 0
        binaryRun = 0
    }

    /// Appends `byte`; appends to `tokens` whatever it completes.
    mutating func push(_ byte: UInt8, into tokens: inout [Token]) {
        pending.append(byte)
        if byte == SquareOffWire.terminator {
            splitWrappedFrame(into: &tokens)
            reset()
            return
        }
        if byte == SquareOffWire.separator { hashCount += 1 }
        binaryRun = byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1") ? binaryRun + 1 : 0
        if recognisesBareTokens, hashCount == 0, recogniseBareToken(into: &tokens) { return }
        if pending.count >= Self.capacity {
            let dropped = pending.count - Self.kept
            tokens.append(.garbage(Array(pending[0..<dropped])))
            pending.removeFirst(dropped)
            hashCount = pending.count(where: { $0 == SquareOffWire.separator })
            binaryRun = min(binaryRun, pending.count)
        }
    }

    private mutating func recogniseBareToken(into tokens: inout [Token]) -> Bool {
        let count = pending.count
        var length = 0
        var message: SquareOffMessage?
        if binaryRun == 64, let map = SquareOffWire.occupancy(string: pending[(count - 64)...]) {
            (length, message) = (64, .occupancy(map))
        } else if count >= 3, Self.mayBePieceReport(pending[count - 3], pending[count - 2], pending[count - 1]),
            let report = SquareOffMessage.pieceReport(pending[(count - 3)...])
        {
            (length, message) = (3, report)
        } else if count >= 2, pending[count - 2] == UInt8(ascii: "O"), pending[count - 1] == UInt8(ascii: "K") {
            (length, message) = (2, .motorAcknowledged)
        }
        guard let message else { return false }
        emitGarbage(pending[0..<(count - length)], into: &tokens)
        tokens.append(.message(message, bytes: Array(pending[(count - length)...])))
        reset()
        return true
    }

    private func splitWrappedFrame(into tokens: inout [Token]) {
        let end = pending.count - 1
        guard let hash = pending[0..<end].lastIndex(of: SquareOffWire.separator) else {
            emitGarbage(pending[...], into: &tokens)
            return
        }
        var digitsStart = hash
        while digitsStart > 0, hash - digitsStart < 3, Self.isDigit(pending[digitsStart - 1]) { digitsStart -= 1 }
        let body = pending[(hash + 1)..<end]
        for start in digitsStart..<hash {
            guard let code = Int(String(decoding: pending[start..<hash], as: UTF8.self)),
                let message = SquareOffMessage(code: code, body: body)
            else { continue }
            emitGarbage(pending[0..<start], into: &tokens)
            tokens.append(.message(message, bytes: Array(pending[start...])))
            return
        }
        emitGarbage(pending[...], into: &tokens)
    }

    /// Hands `bytes` out as garbage unless they are empty or only line breaks and spaces.
    private func emitGarbage(_ bytes: ArraySlice<UInt8>, into tokens: inout [Token]) {
        guard bytes.contains(where: { !Self.isSpace($0) }) else { return }
        tokens.append(.garbage(Array(bytes)))
    }

    /// A cheap first check for `[a-h][1-8][ud]` (either case) before anything is allocated.
    private static func mayBePieceReport(_ file: UInt8, _ rank: UInt8, _ direction: UInt8) -> Bool {
        let lowerDirection = direction | 0x20
        return (lowerDirection == UInt8(ascii: "u") || lowerDirection == UInt8(ascii: "d"))
            && (UInt8(ascii: "1")...UInt8(ascii: "8")).contains(rank)
            && (UInt8(ascii: "a")...UInt8(ascii: "h")).contains(file | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\t")
    }
}
