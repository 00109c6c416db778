import TestSupport
import Testing

@testable import Bridge

/// Bad input never traps: random bytes and mutated valid commands only ever produce a
/// command or an error.
@Suite struct CommandFuzzTests {
    static let seeds: [String] = [
        #"{"leds":{"squares":["e2","e4"],"style":"move"},"transaction":1}"#,
        #"{"new_game":{"white":"A","black":"B","time_control":"40/5400+30:1800+30","fen":"8/8/8/4k3/8/8/8/4K3 w - - 0 1","tags":{"ECO":"C20"}}}"#,
        #"{"clock":{"action":"adjust","white":300.5,"black":1}}"#,
        #"{"raw":"a1b2c3","transaction":"x"}"#,
        #"{"position":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"}"#,
        #"{"s":"\u00e9\ud83d\ude00","n":[1,-2.5e3,true,null]}"#,
    ]

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 0xB0A2D)
        let parser = CommandParser()
        let names: [String?] = [nil, "leds", "move", "raw", "clock", "new_game", "position", "result"]
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let name = names.randomElement(using: &generator)!
            let parsed = parser.parse(bytes, name: name, rawAllowed: true)
            #expect((parsed.command == nil) != (parsed.error == nil))
        }
    }

    @Test func mutatedCommandsNeverTrap() throws {
        var generator = SeededGenerator(seed: 42)
        let parser = CommandParser()
        let alphabet = Array(#"{}[]",:\u0009 -+.eE0123456789abcdeftrunlsq/"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        var accepted = 0
        for seed in Self.seeds {
            let original = Array(seed.utf8)
            for _ in 0..<1_000 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                    }
                    if bytes.isEmpty { bytes = [0x7B] }
                }
                let parsed = parser.parse(bytes, rawAllowed: true)
                #expect((parsed.command == nil) != (parsed.error == nil))
                if parsed.command != nil { accepted += 1 }
                // Whatever parses as JSON re-encodes to JSON that parses to the same value.
                if let value = try? JSONValue(parsing: bytes) {
                    #expect(try JSONValue(parsing: value.encoded()) == value)
                }
            }
        }
        #expect(accepted > 0)
    }
}
