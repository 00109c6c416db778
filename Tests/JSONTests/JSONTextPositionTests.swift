import TestSupport
import Testing

@testable import JSON

/// The line and column of a refused payload's problem, read eight bytes at a time, against
/// the count byte by byte (`reference`): every kind of byte (newlines, ASCII, the lead and
/// continuation bytes of UTF-8, stray high bytes) at every alignment, in seeded random texts.
@Suite struct JSONTextPositionTests {
    static let seed: UInt64 = 0x7E47_C0DE

    /// The count byte by byte: a newline starts a line, every byte that is not `10xxxxxx`
    /// starts a character.
    static func reference(_ offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(max(offset, 0), bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    @Test func everyOffsetOfRandomTextsIsPlacedAsByteByByte() {
        var random = SeededGenerator(seed: Self.seed)
        // Bytes drawn so that words with and without newlines, runs of multi-byte
        // characters and invalid bytes all occur.
        let alphabet: [[UInt8]] = [
            [0x0A], Array("a".utf8), Array("{\"k\":".utf8), Array("é".utf8), Array("€".utf8), Array("𝄞".utf8),
            [0x80], [0xFF], [0xC3], Array("        ".utf8), [0x0A, 0x0A], [0x8A], [0x0B], [0x09],
        ]
        for _ in 0..<400 {
            var bytes: [UInt8] = []
            let pieces = Int(random.next() % 40)
            for _ in 0..<pieces { bytes += alphabet[Int(random.next() % UInt64(alphabet.count))] }
            for offset in -1...(bytes.count + 1) {
                let fast = JSONTextPosition.of(offset, in: bytes)
                let slow = Self.reference(offset, in: bytes)
                #expect(fast == slow, "offset \(offset) in \(bytes), seed \(Self.seed)")
                if fast != slow { return }
            }
        }
    }

    @Test func aLongLineAfterManyLinesIsCountedInCharacters() {
        let text = String(repeating: "line\n", count: 1_000) + String(repeating: "é", count: 30_000) + "}"
        let bytes = Array(text.utf8)
        #expect(JSONTextPosition.of(bytes.count - 1, in: bytes) == (1_001, 30_001))
        #expect(JSONTextPosition.of(bytes.count, in: bytes) == (1_001, 30_002))
    }

    @Test func aRefusedPayloadNamesTheLineAndColumnOfItsProblem() {
        let payload = "{\n  \"name\": \"Zoë\",\n  \"x\": ]\n}"
        #expect(throws: JSONError.self) { try JSONValue(parsing: payload) }
        do {
            _ = try JSONValue(parsing: payload)
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }
}
