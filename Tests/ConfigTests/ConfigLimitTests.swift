import Config
import Foundation
import TestSupport
import Testing

/// The loader's limits: nesting, size, empty files and paths that must be directories.
/// Every refusal names the file with a line and column, or the key path.
@Suite struct ConfigLimitTests {
    /// 1 MB of `[` (under the 1 MiB limit): libyaml's document API took over 15 minutes on
    /// it; the event pass stops at the 65th level.
    @Test func aMegabyteOfOpenBracketsIsRefusedAtTheDepthLimit() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        do {
            _ = try YAMLDocument.parse(bytes)
            Issue.record("1 MB of [ parsed")
        } catch {
            #expect(error.problem == "nesting deeper than 64 levels")
            #expect(error.mark == YAMLMark(line: 1, column: 65))
        }
    }

    /// 200 kB of `[[…]]` took 15.6 s; several such files would make the suite hang.
    @Test(arguments: [0, 1, 2, 3, 4])
    func deeplyNestedFlowSequencesAreRefusedAtTheDepthLimit(copy: Int) {
        let text = String(repeating: "[", count: 100_000 + copy) + String(repeating: "]", count: 100_000 + copy)
        do {
            _ = try YAMLDocument.parse(text)
            Issue.record("200 kB of [[…]] parsed")
        } catch {
            #expect(error.description == "nesting deeper than 64 levels (1:65)")
        }
    }

    @Test func deeplyNestedBlockMappingsAreRefusedWhereTheyGoTooDeep() {
        var text = ""
        for level in 0..<70 { text += String(repeating: " ", count: level) + "k\(level):\n" }
        text += String(repeating: " ", count: 70) + "leaf: 1\n"
        do {
            _ = try YAMLDocument.parse(text)
            Issue.record("70 nested mappings parsed")
        } catch {
            // The mapping of level d starts at line d, column d (the root is level 1).
            #expect(error.description == "nesting deeper than 64 levels (65:65)")
        }
    }

    @Test func sixtyFourLevelsStillParse() throws {
        let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try YAMLDocument.parse(text) != nil)
    }

    @Test func tooManyNodesAreRefusedBeforeTheDocumentIsBuilt() {
        let text = "[" + Array(repeating: "1", count: 150_000).joined(separator: ",") + "]"
        do {
            _ = try YAMLDocument.parse(text)
            Issue.record("150 000 nodes parsed")
        } catch {
            #expect(error.problem == "more than 100000 nodes")
            #expect(error.mark == YAMLMark(line: 1, column: 2 + 2 * 99_999))
        }
    }

    @Test func theDeepFileNamesFileLineAndColumn() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.yaml").path
        try ("mqtt:\n  deep: " + String(repeating: "[", count: 900_000)).write(
            toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("a deep file loaded")
        } catch {
            // Levels 1 and 2 are the root and `mqtt:`; the 63rd `[` (column 9 + 62) is level 65.
            #expect(error.description == "not valid YAML: nesting deeper than 64 levels (\(path):2:71)")
        }
    }

    @Test func anEmptyFileNamesLineAndColumn() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.yaml").path
        try Data().write(to: URL(fileURLWithPath: path))
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("an empty file loaded")
        } catch {
            #expect(
                error.description
                    == "the file is empty, expected a mapping of sections (mqtt:, boards:, …) (\(path):1:1)")
        }
    }

    /// Lines of 10 bytes: the first byte past 1 MiB (offset 1 048 576) is on line 104 858,
    /// column 7.
    @Test func anOversizedFileNamesWhereTheLimitIsCrossed() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.yaml").path
        try String(repeating: "#23456789\n", count: 110_000).write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("an oversized file loaded")
        } catch {
            #expect(
                error.description == "cannot read the configuration file: is larger than 1 MiB (\(path):104858:7)")
        }
    }

    @Test func aStateDirectoryThatIsAFileIsRefusedWithItsKey() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state").path
        try "not a directory".write(toFile: file, atomically: true, encoding: .utf8)
        let yaml =
            "state_directory: state\nboards:\n  - id: b0\n    address: \"AA:BB:CC:DD:EE:00\"\n    family: chessnut\n"
        do {
            _ = try ConfigLoader.parse(yamlText: yaml, fileName: directory.appendingPathComponent("config.yaml").path)
            Issue.record("a file was accepted as the state directory")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "state_directory: is a file, not a directory (\(directory.path)/config.yaml:1:18)"
                ])
        }
        let below = "state_directory: state/games\n" + yaml.dropFirst("state_directory: state\n".count)
        do {
            _ = try ConfigLoader.parse(yamlText: below, fileName: directory.appendingPathComponent("config.yaml").path)
            Issue.record("a path through a file was accepted as the state directory")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "state_directory: a part of the path is not a directory (\(directory.path)/config.yaml:1:18)"
                ])
        }
        // A directory that does not exist yet is fine: the bridge creates it.
        let fresh = "state_directory: games\n" + yaml.dropFirst("state_directory: state\n".count)
        _ = try ConfigLoader.parse(yamlText: fresh, fileName: directory.appendingPathComponent("config.yaml").path)
    }
}
