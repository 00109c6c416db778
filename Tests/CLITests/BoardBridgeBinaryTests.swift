import BridgeCLI
import Foundation
import TestSupport
import Testing

/// Exit codes and streams of the real `boardbridge` executable (built by `swift build`).
@Suite struct BoardBridgeBinaryTests {
    struct Outcome {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs the binary to completion with stdout and stderr in separate files, stdin closed.
    /// The child exits by itself (every command here is one-shot); it is waited for by PID.
    func run(_ arguments: [String], in directory: URL? = nil) async throws -> Outcome {
        let binary = try TestTools.product("boardbridge")
        let scratch = try TestTools.temporaryDirectory("boardbridge-cli")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? scratch
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        // Waited for on a thread of its own, not one of the cooperative pool's few.
        await onOwnThread { process.waitUntilExit() }
        return Outcome(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            error: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    @Test func helpExitsZero() async throws {
        let outcome = try await run(["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output == BoardBridgeCLI.helpText)
        #expect(outcome.error.isEmpty)
    }

    @Test func versionExitsZero() async throws {
        let outcome = try await run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.output == BoardBridgeCLI.versionText + "\n")
    }

    @Test func decodePrintsEventsAsJSONLines() async throws {
        // The Chessnut start position (golden vector of the reference), then a battery frame.
        let start =
            "01 24 58 23 31 85 44 44 44 44 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
            + "77 77 77 77 a6 c9 9b 6a cb 01 00 00"
        let outcome = try await run(["decode", "--family", "chessnut", start, "zz"])
        #expect(outcome.status == 0)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"{"event":"pieces","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}"#))
        #expect(lines.last == #"{"error":"not hex: zz"}"#)
    }

    @Test func decodeReadsASentioLineAsTheBoardSendsIt() async throws {
        // picochess's reading: 8 rank bitmasks, rank 8 first, bit 7 = file a (1. e4 played).
        let outcome = try await run(
            ["decode", "--family", "sentio", ":255 255 0 0 0 0 255 255", ":255 255 0 0 8 0 247 255 L", "0a0d"])
        #expect(outcome.status == 0)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == #"{"event":"ready"}"#)
        #expect(
            lines.contains { $0.contains(#""event":"occupancy""#) && $0.contains(#""e4""#) && !$0.contains(#""e2""#) })
    }

    @Test func decodeReadsAnIChessOnePositionSplitAcrossTwoNotifications() async throws {
        // picochess's start-position fixture, cut where a 23-byte MTU cuts it, then its battery vector.
        let outcome = try await run([
            "decode", "--family", "ichessone", "3d70a89bc98a7777777700000000000000000000",
            "0000000000001111111142356324", "3d620164",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"{"event":"pieces","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}"#))
        #expect(lines.contains { $0.contains(#""event":"battery""#) && $0.contains("100") })
    }

    /// A Chess Peripheral Protocol exchange as text, one command a line, the features'
    /// answers first; a hex capture of the same move decodes alike.
    @Test func decodeReadsChessPeripheralCommandsAsText() async throws {
        let outcome = try await run([
            "decode", "--family", "cpp", "ok", "ok", "sync rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
            "move e2e4", "6d6f76652065376535",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == #"{"event":"ready"}"#)
        #expect(lines.contains { $0.contains(#""event":"occupancy""#) })
        #expect(lines.contains { $0.contains(#""event":"move""#) && $0.contains("e2e4") })
        #expect(lines.contains { $0.contains(#""event":"move""#) && $0.contains("e7e5") })
    }

    @Test func runWithABrokenConfigExits78() async throws {
        let scratch = try TestTools.temporaryDirectory("boardbridge-run")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config.yaml")
        try "base_topik: x\n".write(to: config, atomically: true, encoding: .utf8)
        let outcome = try await run(["run", "--config", config.path])
        #expect(outcome.status == 78)
        #expect(outcome.error.contains(#"did you mean "base_topic""#))
    }

    @Test func usageErrorExits64() async throws {
        let outcome = try await run(["--no-such-option"])
        #expect(outcome.status == 64)
        #expect(outcome.error.contains(#"unknown option "--no-such-option""#))
        #expect(outcome.error.contains("boardbridge --help"))
        #expect(outcome.output.isEmpty)
    }

    @Test func checkConfigOnTheShippedFileExitsZero() async throws {
        let outcome = try await run(["check-config", "--config", shippedConfig])
        #expect(outcome.status == 0)
        #expect(outcome.output.hasPrefix("configuration OK: 7 boards"))
    }

    @Test func checkConfigFindsConfigYamlInTheWorkingDirectory() async throws {
        let repository = URL(fileURLWithPath: shippedConfig).deletingLastPathComponent()
        let outcome = try await run(["check-config"], in: repository)
        #expect(outcome.status == 0)
        #expect(outcome.output == "configuration OK: 7 boards (config.yaml)\n")
    }

    @Test func checkConfigOnABadFileExits78WithLocations() async throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.yaml").path
        let yaml = """
            boards:
              - id: b1
                address: "AA:BB:CC:DD:EE:01"
                family: foo
            """
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = try await run(["check-config", "--config", path])
        #expect(outcome.status == 78)
        #expect(outcome.error.contains("boards[0].family: unknown family \"foo\""))
        #expect(outcome.error.contains("(\(path):4:13)"))
        #expect(outcome.output.isEmpty)
    }
}
