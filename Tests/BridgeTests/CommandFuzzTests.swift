import JSON
import TestScheduling
import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Bad input never traps: random bytes and mutated valid commands only ever produce a
/// command or an error, and every topic parses to an input whose own topic it is, or to
/// nothing. The seeds are the files of `Corpus/commands` and `Corpus/topics`; set
/// `BOARDBRIDGE_FUZZ_ITERATIONS` for a longer run.
@Suite(.cpuBound) struct CommandFuzzTests {
    static let alphabet = Array(#"{}[]",:\u0009 -+.eE0123456789abcdeftrunlsq/"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]

    @Test func randomBytesNeverTrap() {
        let seed: UInt64 = 0xB0A2D
        var generator = SeededGenerator(seed: seed)
        let parser = CommandParser()
        let names: [String?] = [nil, "", "leds", "move", "raw", "clock", "new_game", "position", "result"]
        for iteration in 0..<FuzzBudget.iterations(3_000) {
            let length = Int.random(in: 0...48, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let name = names.randomElement(using: &generator)!
            let parsed = parser.parse(bytes, name: name, rawAllowed: true)
            #expect((parsed.command == nil) != (parsed.error == nil), "seed \(seed), iteration \(iteration)")
        }
    }

    @Test func mutatedCommandsNeverTrap() throws {
        let seed: UInt64 = 42
        var generator = SeededGenerator(seed: seed)
        let parser = CommandParser()
        let corpus = try FuzzCorpus.load("Corpus/commands")
        var accepted = 0
        for iteration in 0..<FuzzBudget.iterations(6_000) {
            let original = corpus[iteration % corpus.count]
            let donor = corpus.randomElement(using: &generator)?.bytes ?? []
            let bytes = FuzzMutator.mutate(original.bytes, alphabet: Self.alphabet, donor: donor, using: &generator)
            let context = "seed \(seed), iteration \(iteration), from \(original.name)"
            let parsed = parser.parse(bytes, rawAllowed: true)
            #expect((parsed.command == nil) != (parsed.error == nil), "\(context)")
            if parsed.command != nil { accepted += 1 }
            // Whatever parses as JSON re-encodes to JSON that parses to the same value.
            if let value = try? JSONValue(parsing: bytes) {
                #expect(try JSONValue(parsing: value.encoded()) == value, "\(context)")
            }
            // The value alone, as `set/<name>` takes it.
            if let name = CommandParser.commandNames.randomElement(using: &generator) {
                let attribute = parser.parse(bytes, name: name, rawAllowed: true)
                #expect((attribute.command == nil) != (attribute.error == nil), "\(context), set/\(name)")
            }
        }
        #expect(accepted > 0)
    }

    /// Topic levels as brokers deliver them: this bridge's, other nodes', empty, wildcard
    /// characters, long and non-ASCII ones.
    static let levels = [
        "boardbridge", "bridge", "hall-a", "hall-b", "set", "request", "response", "board-07", "leds", "info", "",
        "+", "#", "$SYS", "é", String(repeating: "x", count: 300), "move", "state",
    ]

    @Test func everyTopicParsesToItsOwnInputOrToNothing() throws {
        let seed: UInt64 = 0x70_91C
        var generator = SeededGenerator(seed: seed)
        let topics = try Topics(base: "boardbridge", node: "hall-a")
        let corpus = try FuzzCorpus.load("Corpus/topics").flatMap { file in
            String(decoding: file.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let alphabet = Array("/+#abset-_0\u{0}".utf8) + [0xC3, 0xA9]
        var inputs = 0
        for iteration in 0..<FuzzBudget.iterations(20_000) {
            let topic: String
            if iteration % 2 == 0 {
                let count = Int.random(in: 0...6, using: &generator)
                topic = (0..<count).map { _ in Self.levels.randomElement(using: &generator)! }.joined(separator: "/")
            } else {
                let original = Array(corpus[iteration / 2 % corpus.count].utf8)
                topic = String(
                    decoding: FuzzMutator.mutate(original, alphabet: alphabet, using: &generator), as: UTF8.self)
            }
            let context = "seed \(seed), iteration \(iteration), topic \(topic.debugDescription)"
            switch topics.parse(topic) {
            case .boardCommand(let board, let name)?:
                inputs += 1
                #expect(!board.isEmpty, "\(context)")
                #expect(topic == name.map { topics.set(board, command: $0) } ?? topics.set(board), "\(context)")
            case .bridgeRequest(let op)?:
                inputs += 1
                #expect(topic == topics.bridgeRequest(op), "\(context)")
            case nil:
                #expect(
                    !topic.hasPrefix("boardbridge/bridge/hall-a/request/") || topic.contains("//"), "\(context)")
            }
        }
        #expect(inputs > 0)
    }
}
