/// Where a byte offset lies in UTF-8 text, as a person reading it counts: the 1-based line
/// and the 1-based column in characters (Unicode scalars) from the line's start.
///
/// Every refused payload names the place of its problem, and under a flood of large
/// commands the count runs over up to a megabyte each: eight bytes are read at a time, and a
/// word without a newline only has its continuation bytes (`10xxxxxx`) counted, so the
/// scan costs about what reading the bytes costs. Bytes that are not UTF-8 count as they
/// would one by one (every byte that is not a continuation byte starts a character).
enum JSONTextPosition {
    /// The line and column of `offset` in `bytes` (clamped to `0...bytes.count`).
    static func of(_ offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), bytes.count)
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (1, 1) }
            var line = 1
            var column = 1
            var index = 0
            while index + 8 <= end {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if hasNewline(word) {
                    for byte in UnsafeBufferPointer(start: base + index, count: 8) {
                        count(byte, line: &line, column: &column)
                    }
                } else {
                    column += 8 - continuationBytes(in: word)
                }
                index += 8
            }
            while index < end {
                count(base[index], line: &line, column: &column)
                index += 1
            }
            return (line, column)
        }
    }

    private static let high: UInt64 = 0x8080_8080_8080_8080
    private static let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    private static let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A

    /// Whether one of the word's bytes is a newline (exact: the sum of a byte's low seven
    /// bits and `0x7F` never carries into the next byte).
    private static func hasNewline(_ word: UInt64) -> Bool {
        let differences = word ^ newlines
        let nonZero = (((differences & low) &+ low) | differences) & high
        return nonZero != high
    }

    /// How many of the word's bytes are `10xxxxxx`: bit 7 set and bit 6 (shifted up to bit
    /// 7 of the same byte) clear.
    private static func continuationBytes(in word: UInt64) -> Int {
        (word & ~(word << 1) & high).nonzeroBitCount
    }

    private static func count(_ byte: UInt8, line: inout Int, column: inout Int) {
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }
}
