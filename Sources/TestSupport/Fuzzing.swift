import Foundation

/// How long the seeded fuzz targets run: a bounded default for CI, or as many
/// iterations as `BOARDBRIDGE_FUZZ_ITERATIONS` asks for (a long local run).
public enum FuzzBudget {
    /// The environment variable that sets the iterations of every fuzz target.
    public static let environmentKey = "BOARDBRIDGE_FUZZ_ITERATIONS"

    /// The iterations asked for in the environment, if a positive whole number.
    public static var requested: Int? {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], let count = Int(text), count > 0 else {
            return nil
        }
        return count
    }

    /// `ciDefault`, or the iterations asked for in the environment.
    public static func iterations(_ ciDefault: Int) -> Int {
        requested ?? ciDefault
    }

    /// The random bytes a framing target feeds an adapter: `ciDefault`, or 64 per
    /// iteration asked for in the environment.
    public static func garbageBytes(_ ciDefault: Int) -> Int {
        requested.map { $0 * 64 } ?? ciDefault
    }
}

/// Seeded mutations of byte strings: what the fuzz targets make of their corpus.
public enum FuzzMutator {
    /// `original` after 1…`maximumEdits` random edits, each one of: replace, insert or
    /// delete a byte (drawn from `alphabet`), duplicate or delete a slice, or splice in a
    /// slice of `donor` (another corpus entry).
    public static func mutate(
        _ original: [UInt8], alphabet: [UInt8], donor: [UInt8] = [], maximumEdits: Int = 4,
        using generator: inout SeededGenerator
    ) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...max(1, maximumEdits), using: &generator) {
            guard !bytes.isEmpty else {
                bytes = [alphabet.randomElement(using: &generator) ?? 0]
                continue
            }
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            let byte = alphabet.randomElement(using: &generator) ?? 0
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: bytes[position] = byte
            case 1: bytes.remove(at: position)
            case 2: bytes.insert(byte, at: position)
            case 3:
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: end)
            case 4:
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &generator))
                bytes.removeSubrange(position..<end)
            default:
                guard !donor.isEmpty else { continue }
                let start = Int.random(in: 0..<donor.count, using: &generator)
                let end = min(donor.count, start + Int.random(in: 1...64, using: &generator))
                bytes.insert(contentsOf: donor[start..<end], at: position)
            }
        }
        return bytes
    }
}

/// The seed inputs of a fuzz target, kept in the repository beside its tests.
public enum FuzzCorpus {
    /// Every file in `directory` (relative to the folder of `sourceFile`, the caller's
    /// `#filePath`), sorted by name, as name and bytes. Throws when the folder is missing
    /// or empty, so that a moved corpus fails the test instead of fuzzing nothing.
    public static func load(
        _ directory: String, besides sourceFile: String = #filePath
    ) throws -> [(
        name: String, bytes: [UInt8]
    )] {
        let folder = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().appendingPathComponent(directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
            .sorted()
        guard !names.isEmpty else { throw FuzzCorpusError(directory: folder.path) }
        return try names.map { name in
            (name, Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
    }
}

/// A fuzz corpus folder holds no file.
public struct FuzzCorpusError: Error, CustomStringConvertible {
    /// The folder.
    public let directory: String
    /// Names the folder.
    public var description: String { "the fuzz corpus \(directory) is empty" }
}
