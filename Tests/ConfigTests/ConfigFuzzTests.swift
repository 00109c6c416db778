import Config
import Foundation
import TestScheduling
import TestSupport
import Testing

/// The loader on mutated configurations: whatever the bytes, it returns a configuration
/// or errors that each name a line and column or a key path; it never traps or hangs.
/// The seeds are the files of `Corpus/` (the shipped `config.yaml` among them); set
/// `BOARDBRIDGE_FUZZ_ITERATIONS` for a longer run.
@Suite(.cpuBound) struct ConfigFuzzTests {
    /// YAML's structural characters, and bytes that break encodings.
    static let alphabet =
        Array("[]{}:,-?&*!|>'\"#%@` \t\n\r\\0123456789abcxyz~.".utf8) + [0x00, 0xC3, 0xA9, 0xFF, 0xFE]

    @Test func corpusFilesGiveAConfigurationOrPositionedErrors() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, bytes) in try FuzzCorpus.load("Corpus") {
            Self.expectValueOrPositionedErrors(bytes, base: directory.path, context: name)
        }
    }

    @Test(arguments: [UInt64(0xC0_F1_6)])
    func mutatedConfigurationsGiveAConfigurationOrPositionedErrors(seed: UInt64) throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = try FuzzCorpus.load("Corpus")
        var generator = SeededGenerator(seed: seed)
        var accepted = 0
        for iteration in 0..<FuzzBudget.iterations(3_000) {
            let seedFile = corpus[iteration % corpus.count]
            let donor = corpus.randomElement(using: &generator)?.bytes ?? []
            let bytes = FuzzMutator.mutate(
                seedFile.bytes, alphabet: Self.alphabet, donor: donor, maximumEdits: 8, using: &generator)
            let context = "seed \(seed), iteration \(iteration), from \(seedFile.name)"
            if Self.expectValueOrPositionedErrors(bytes, base: directory.path, context: context) { accepted += 1 }
        }
        // Some mutations leave a valid configuration: the target reaches past the parser.
        #expect(accepted > 0)
    }

    /// Deep and wide shapes at random sizes: refused at the limits, at a position.
    @Test(arguments: [UInt64(0xDEE9)])
    func randomNestingIsRefusedAtAPosition(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let openers = Array("[{".utf8) + Array("- ".utf8)
        for iteration in 0..<FuzzBudget.iterations(200) {
            let depth = Int.random(in: 60...20_000, using: &generator)
            var bytes: [UInt8] = []
            for _ in 0..<depth {
                bytes.append(openers.randomElement(using: &generator) ?? UInt8(ascii: "["))
                if Int.random(in: 0..<8, using: &generator) == 0 { bytes += Array("a: ".utf8) }
            }
            Self.expectValueOrPositionedErrors(
                bytes, base: "/nonexistent", context: "seed \(seed), iteration \(iteration), depth \(depth)")
        }
    }

    /// Loads `bytes`; every error must carry a mark or a key path. Returns whether a
    /// configuration came out.
    @discardableResult
    static func expectValueOrPositionedErrors(_ bytes: [UInt8], base: String, context: String) -> Bool {
        do {
            _ = try ConfigLoader.parse(yamlBytes: bytes, fileName: "config.yaml", baseDirectory: base)
            return true
        } catch {
            #expect(!error.errors.isEmpty, "\(context): thrown without an error")
            for problem in error.errors {
                #expect(problem.mark != nil || !problem.path.isEmpty, "\(context): unpositioned \(problem)")
            }
            return false
        }
    }
}
