import Foundation
import TestSupport
import Testing

@testable import JSON

@Suite struct JSONValueTests {
    @Test func encodesCompactlyInInsertionOrder() {
        let value: JSONValue = [
            "zeta": 1, "alpha": [true, false, nil], "mid": ["b": "x", "a": 2.5], "empty": [:], "list": [],
        ]
        #expect(
            value.encodedString()
                == #"{"zeta":1,"alpha":[true,false,null],"mid":{"b":"x","a":2.5},"empty":{},"list":[]}"#)
    }

    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (3.0, "3"), (-42.0, "-42"), (0.1, "0.1"), (5312.4, "5312.4"),
        (9_007_199_254_740_992.0, "9007199254740992"), (1e20, "1e+20"), (1.5e-7, "1.5e-07"),
        (Double.infinity, "null"), (Double.nan, "null"),
    ])
    func printsNumbers(value: Double, text: String) {
        #expect(JSONValue.number(value).encodedString() == text)
    }

    @Test func escapesStrings() {
        let value = JSONValue.string("a\"b\\c/d\n\r\t\u{8}\u{C}\u{1}\u{1F}é♞😀")
        #expect(value.encodedString() == "\"a\\\"b\\\\c/d\\n\\r\\t\\b\\f\\u0001\\u001fé♞😀\"")
    }

    @Test func parsesWhatItEncodes() throws {
        let value: JSONValue = [
            "s": "line\nbreak \"quoted\" ♞ 😀", "n": -12.75, "i": 7, "b": false, "z": nil,
            "a": [1, [2, [3]], ["k": "v"]],
        ]
        #expect(try JSONValue(parsing: value.encoded()) == value)
    }

    @Test func keepsDocumentOrder() throws {
        let value = try JSONValue(parsing: #" { "b" : 1 , "a" : { "y" : 2, "x" : 3 } } "#)
        #expect(value.objectValue?.keys == ["b", "a"])
        #expect(value["a"]?.objectValue?.keys == ["y", "x"])
        #expect(value.encodedString() == #"{"b":1,"a":{"y":2,"x":3}}"#)
    }

    /// Strings of every kind (plain runs, quotes, backslashes, every control character,
    /// two-, three- and four-byte characters, empty), seeded: quoted exactly as one byte at a
    /// time would (JSON's escapes, nothing else), and read back as they were, also when
    /// Foundation writes them (other escapes, `\/`, `\uXXXX`).
    @Test func quotesAndReadsBackEveryKindOfString() throws {
        var generator = SeededGenerator(seed: 0x4A53_4F4E)
        let pieces: [String] = [
            "e4", "Nf3+", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é", "♞",
            "😀", " ", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ]
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<12, using: &generator) {
                text +=
                    Bool.random(using: &generator)
                    ? pieces.randomElement(using: &generator)!
                    : String(UnicodeScalar(UInt8.random(in: 0..<0x80, using: &generator)))
            }
            var quoted: [UInt8] = []
            JSONText.appendQuoted(text, to: &quoted)
            #expect(quoted == Self.quotedByteByByte(text), "\(text.debugDescription)")
            #expect(try JSONValue(parsing: quoted) == .string(text), "\(text.debugDescription)")
            let foundation = try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            #expect(try JSONValue(parsing: foundation) == .array([.string(text)]), "\(text.debugDescription)")
        }
    }

    /// JSON's escaping as RFC 8259 states it, one byte at a time (the reference).
    private static func quotedByteByByte(_ text: String) -> [UInt8] {
        var output = Array("\"".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): output += Array("\\\\".utf8)
            case 0x0A: output += Array("\\n".utf8)
            case 0x0D: output += Array("\\r".utf8)
            case 0x09: output += Array("\\t".utf8)
            case 0x08: output += Array("\\b".utf8)
            case 0x0C: output += Array("\\f".utf8)
            case 0x00..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
        }
        return output + Array("\"".utf8)
    }

    /// Where a string goes wrong is named as before the runs were copied whole.
    @Test func aBrokenStringIsReportedWhereItBreaks() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: "\"abc") }
        for (text, column) in [("[\"ab\u{1}c\"]", 5), ("[\"abc", 6), ("{\"a\":\"x\\q\"}", 8)] {
            do {
                _ = try JSONValue(parsing: text)
                Issue.record("\(text.debugDescription) parsed")
            } catch {
                #expect(error.line == 1 && error.column == column, "\(text.debugDescription): \(error)")
            }
        }
        // Invalid UTF-8 in a run, with and without an escape before it.
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x22, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
    }

    @Test func decodesEscapes() throws {
        let value = try JSONValue(parsing: #""\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\""#)
        #expect(value == .string("é😀/\u{8}\u{C}\n\r\t\"\\"))
    }

    @Test func parsesNumbers() throws {
        #expect(try JSONValue(parsing: "-0.5e2") == .number(-50))
        #expect(try JSONValue(parsing: "12345678901234567890").doubleValue == 1.234_567_890_123_456_7e19)
        #expect(try JSONValue(parsing: "1E-400") == .number(0))
        #expect(try JSONValue(parsing: "3").intValue == 3)
        #expect(try JSONValue(parsing: "3.5").intValue == nil)
    }

    /// `{"k0":0,…}` with `count` keys, then `repeated` once more.
    static func objectOf(_ count: Int, then repeated: String) -> String {
        "{" + (0..<count).map { "\"k\($0)\":0" }.joined(separator: ",") + ",\"\(repeated)\":1}"
    }

    struct BadJSON: Sendable, CustomTestStringConvertible {
        let text: String
        let message: String
        var testDescription: String { text }
    }

    @Test(arguments: [
        BadJSON(text: "", message: "no JSON value at line 1, column 1"),
        BadJSON(text: "  \n ", message: "no JSON value at line 2, column 2"),
        BadJSON(text: #"{"a":1,}"#, message: "unexpected '}' (expected a key string) at line 1, column 8"),
        BadJSON(text: #"{"a":1,"a":2}"#, message: #"duplicate key "a" at line 1, column 8"#),
        // A repeated key among the first 16 members, and past them (where a set of the keys is kept).
        BadJSON(text: objectOf(15, then: "k14"), message: #"duplicate key "k14" at line 1, column 112"#),
        BadJSON(text: objectOf(16, then: "k0"), message: #"duplicate key "k0" at line 1, column 120"#),
        BadJSON(text: objectOf(20, then: "k3"), message: #"duplicate key "k3" at line 1, column 152"#),
        BadJSON(text: "{\n  \"move\": tru }", message: "unexpected ' ' (expected 'true') at line 2, column 14"),
        BadJSON(text: "[1,2", message: "unexpected end of payload (expected ',' or ']') at line 1, column 5"),
        BadJSON(text: "[1 2]", message: "unexpected '2' (expected ',' or ']') at line 1, column 4"),
        BadJSON(text: "01", message: "invalid number 01 at line 1, column 1"),
        BadJSON(text: "-", message: "invalid number - at line 1, column 1"),
        BadJSON(text: "1.", message: "invalid number 1. at line 1, column 1"),
        BadJSON(text: "1e400", message: "number 1e400 is out of range at line 1, column 1"),
        BadJSON(text: "true false", message: "unexpected 'f' after the JSON value at line 1, column 6"),
        BadJSON(
            text: #""abc"#, message: #"unexpected end of payload (expected '"' closing the string) at line 1, column 5"#
        ),
        BadJSON(text: "\"a\tb\"", message: "unescaped control character in string at line 1, column 3"),
        BadJSON(text: #""\x""#, message: #"invalid escape \x at line 1, column 2"#),
        BadJSON(text: #""\ud800""#, message: #"invalid unicode escape \ud800 at line 1, column 2"#),
        BadJSON(text: #""\udc00x""#, message: #"invalid unicode escape \udc00 at line 1, column 2"#),
        BadJSON(text: #""\u12G4""#, message: #"invalid unicode escape \u12 at line 1, column 2"#),
        BadJSON(text: "{'a':1}", message: "unexpected ''' (expected a key string) at line 1, column 2"),
        BadJSON(text: "é", message: "unexpected U+00E9 (expected a value) at line 1, column 1"),
        BadJSON(text: "[1] ♞", message: "unexpected U+265E after the JSON value at line 1, column 5"),
    ])
    func reportsProblemsWithPosition(bad: BadJSON) {
        #expect(throws: JSONError.self) { try JSONValue(parsing: bad.text) }
        do {
            _ = try JSONValue(parsing: bad.text)
        } catch {
            #expect(error.description == bad.message)
        }
    }

    @Test func rejectsInvalidUTF8InStrings() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]
        #expect(throws: JSONError(problem: .invalidUTF8, offset: 0, line: 1, column: 1)) {
            try JSONValue(parsing: bytes)
        }
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0xFF]) }
    }

    @Test func limitsDepthWithoutRecursingFurther() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError(problem: .tooDeep(limit: 64), offset: 64, line: 1, column: 65)) {
            try JSONValue(parsing: deep)
        }
        #expect(throws: JSONError.self) { try JSONValue(parsing: #"{"a":{"b":{"c":1}}}"#, maximumDepth: 2) }
        #expect(try JSONValue(parsing: #"{"a":{"b":1}}"#, maximumDepth: 2)["a"]?["b"] == 1)
    }

    @Test func objectSubscriptKeepsPositions() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = "two"
        object["d"] = 4
        object["a"] = nil
        #expect(JSONValue.object(object).encodedString() == #"{"b":"two","c":3,"d":4}"#)
        #expect(object.keys == ["b", "c", "d"])
        #expect(object.count == 3)
    }

    @Test func codableRoundTripThroughFoundation() throws {
        let value: JSONValue = ["b": [1, "x", nil, true], "a": ["n": 2.5]]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        // Decoding through Decodable sorts keys (a Decoder does not report order).
        #expect(decoded == ["a": ["n": 2.5], "b": [1, "x", nil, true]])
    }

    @Test func optionalInitialisersGiveNull() {
        #expect(JSONValue(String?.none) == .null)
        #expect(JSONValue(Int?.some(3)) == 3)
        #expect(JSONValue(Double?.some(.infinity)) == .null)
        #expect(JSONValue(Bool?.some(true)) == true)
    }
}
