import Chess
import Foundation
import Kernel
import TestScheduling
import TestSupport
import Testing

/// Issue #16: a seeded fuzzer for what a restart parses from disk — journal lines
/// (`SessionJournalReplay`, `SessionJournalLine`) and snapshot files (`SessionSnapshot`'s
/// decoding) — fed random bytes and mutations of the files in `Corpus/`. Whatever it
/// reads, the restored game is a prefix of the saved one: never a move that was not played.
///
/// `BOARDBRIDGE_FUZZ_ITERATIONS` sets the iterations per test (default 1000, a few
/// seconds); `BOARDBRIDGE_FUZZ_SEED` another seed. Failures name seed and iteration.
@Suite(.cpuBound) struct SessionJournalFuzzTests {
    /// The game the corpus saved: 20 plies of an Italian game, a move a second.
    static let reference: [String] = {
        var game = Game()
        let opening = "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Bc5 c3 d6 O-O O-O Nbd2 a6 Bb3 Ba7 h3 h6 Re1 Re8"
        for (index, san) in opening.split(separator: " ").enumerated() {
            _ = try? game.play(san: String(san), timestamp: Double(index))
        }
        return game.moves.map(\.move.uci)
    }()

    /// The empty game's snapshot every corpus journal follows (sequence 0).
    static let base = GameSession(game: Game(), inputPath: .identity).snapshot(at: 0)

    static let iterations = ProcessInfo.processInfo.environment["BOARDBRIDGE_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 1000
    static let seed = ProcessInfo.processInfo.environment["BOARDBRIDGE_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x16_2026

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    /// The files of `Corpus/<kind>`, sorted by name.
    static func files(_ kind: String) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpus.appendingPathComponent(kind)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            ($0, Array(try Data(contentsOf: directory.appendingPathComponent($0))))
        }
    }

    /// Whether `snapshot`'s moves are the first moves of ``reference``.
    static func isPrefix(_ snapshot: SessionSnapshot) -> Bool {
        let moves = snapshot.game.moves.map(\.move.uci)
        return moves.count <= reference.count && Array(reference.prefix(moves.count)) == moves
    }

    /// The corpus as saved: each journal restores the plies its name ends with.
    @Test func theCorpusJournalsRestoreWhatTheirNamesSay() throws {
        let journals = try Self.files("journal")
        #expect(journals.count >= 5)
        for (name, bytes) in journals {
            let plies = try #require(Int(name.split(separator: "-").last?.split(separator: ".").first ?? ""), "\(name)")
            let replay = SessionJournalReplay(journal: bytes, onto: Self.base, sequence: 0)
            #expect(replay.snapshot.game.moves.map(\.move.uci) == Array(Self.reference.prefix(plies)), "\(name)")
        }
        for (name, bytes) in try Self.files("snapshot") {
            let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(bytes))
            #expect(Self.isPrefix(snapshot) && !snapshot.game.moves.isEmpty, "\(name)")
        }
    }

    /// A changed square number in a snapshot still parses and, here, still replays (1. e3
    /// instead of 1. e4, and every later move stays legal): the recorded positions refuse it.
    @Test func aSnapshotWhoseMoveWasChangedIsRefused() throws {
        let bytes = try #require(try Self.files("snapshot").first { $0.name == "ply-10.json" }).bytes
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"{"from":12,"to":28}"#))
        let changed = Data(text.replacingOccurrences(of: #"{"from":12,"to":28}"#, with: #"{"from":12,"to":20}"#).utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SessionSnapshot.self, from: changed) }
        // The game alone (what the decoding checked before) takes it.
        let game = try #require(try JSONSerialization.jsonObject(with: changed) as? [String: Any])["game"]
        let replayed = try JSONDecoder().decode(Game.self, from: JSONSerialization.data(withJSONObject: game as Any))
        #expect(replayed.moves.first?.san == "e3")
        #expect(replayed.moves.count == 10)
    }

    @Test func journalsOfRandomBytesAndMutatedLinesNeverGiveAWrongMove() throws {
        let corpus = try Self.files("journal").map(\.bytes)
        var generator = SeededGenerator(seed: Self.seed)
        for iteration in 0..<Self.iterations {
            let input = Self.mutated(corpus, using: &generator)
            for sequence in [0, nil] as [Int?] {
                let replay = SessionJournalReplay(journal: input, onto: Self.base, sequence: sequence)
                #expect(Self.isPrefix(replay.snapshot), "seed \(Self.seed), iteration \(iteration)")
                #expect(
                    replay.applied + replay.skipped.count <= input.count, "seed \(Self.seed), iteration \(iteration)")
            }
        }
    }

    @Test func snapshotsOfRandomBytesAndMutationsNeverGiveAWrongMove() throws {
        let corpus = try Self.files("snapshot").map(\.bytes)
        var generator = SeededGenerator(seed: Self.seed &+ 1)
        for iteration in 0..<Self.iterations {
            let input = Self.mutated(corpus, using: &generator)
            guard let snapshot = try? JSONDecoder().decode(SessionSnapshot.self, from: Data(input)) else { continue }
            #expect(Self.isPrefix(snapshot), "seed \(Self.seed &+ 1), iteration \(iteration)")
        }
    }

    /// Random bytes, or a corpus file with a few random mutations: bytes flipped, inserted
    /// or deleted, lines repeated, dropped or swapped, a cut, lines of two files spliced.
    static func mutated(_ corpus: [[UInt8]], using generator: inout SeededGenerator) -> [UInt8] {
        if Int.random(in: 0..<8, using: &generator) == 0 {
            let alphabet = Array("J1 {}\":,0123456789abcdef\n".utf8)
            return (0..<Int.random(in: 0...600, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? UInt8.random(in: 0...255, using: &generator) : alphabet.randomElement(using: &generator)!
            }
        }
        var bytes = corpus.randomElement(using: &generator)!
        for _ in 0...Int.random(in: 0...3, using: &generator) {
            var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
            switch Int.random(in: 0..<8, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            case 1:
                bytes.insert(
                    UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator)
                )
            case 2 where !bytes.isEmpty:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator))
            case 3 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
            case 4 where lines.count > 1:
                let index = Int.random(in: 0..<lines.count, using: &generator)
                lines.insert(lines[index], at: Int.random(in: 0...lines.count, using: &generator))
                bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
            case 5 where lines.count > 1:
                lines.remove(at: Int.random(in: 0..<lines.count, using: &generator))
                bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
            case 6 where lines.count > 1:
                lines.swapAt(
                    Int.random(in: 0..<lines.count, using: &generator),
                    Int.random(in: 0..<lines.count, using: &generator))
                bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
            default:
                let other = corpus.randomElement(using: &generator)!
                let cut = Int.random(in: 0...other.count, using: &generator)
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) + other[cut...]
            }
        }
        return bytes
    }
}
