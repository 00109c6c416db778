import Testing

@testable import Bridge
@testable import Contract

/// An error answer quotes what it refuses, but never more than ``CommandError/echoLimit``
/// bytes of it (issue #16: 20,000 refused 60 KB commands answered with 60 KB each).
@Suite struct CommandErrorEchoTests {
    let parser = CommandParser()
    static let long = String(repeating: "x", count: 60_000)

    /// Payloads refused with each error that quotes a value, each carrying a 60 KB value.
    static let refused: [(payload: String, name: String?)] = [
        (#"{"\#(long)":1}"#, nil),
        (#"{"leds":{"squares":["e2"],"\#(long)":1}}"#, nil),
        (#"{"leds":"\#(long)"}"#, nil),
        (#"{"move":"\#(long)"}"#, nil),
        (#"{"position":"\#(long)"}"#, nil),
        (#"{"new_game":{"time_control":"\#(long)"}}"#, nil),
        (#"{"request":"\#(long)"}"#, nil),
        (#"{"move":"e2e4","\#(long)":1}"#, nil),
        (long, "move"),
        (long, "leds"),
    ]

    @Test(arguments: 0..<refused.count)
    func errorAnswersQuoteAtMostTheEchoLimit(index: Int) {
        let (payload, name) = Self.refused[index]
        let parsed = parser.parse(Array(payload.utf8), name: name)
        let message = parsed.error?.description ?? ""
        #expect(!message.isEmpty)
        #expect(message.utf8.count < CommandError.echoLimit + 200, "\(message.prefix(300))")
    }

    @Test func shortValuesAreQuotedWhole() {
        #expect(CommandError.badUCI("e9e4").description.contains(#""e9e4""#))
        let exact = String(repeating: "y", count: CommandError.echoLimit)
        #expect(CommandError.badSquare(exact).description == "bad square \"\(exact)\": expected a1 to h8")
    }

    @Test func cutsOnWholeCharactersAndNamesTheLength() {
        let text = String(repeating: "é", count: 150)  // 300 bytes
        let message = CommandError.unknownBoard(text).description
        #expect(message == "unknown board \"\(String(repeating: "é", count: 100))… (300 bytes)\"")
    }
}
