import BridgeCLI
import Foundation
import TestSupport
import Testing

/// Collects what the CLI writes.
final class RecordedOutput: CLIOutput {
    var output = ""
    var error = ""

    func writeOutput(_ text: String) { output += text }
    func writeError(_ text: String) { error += text }
}

/// The repository's `config.yaml`.
let shippedConfig = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("config.yaml").path

@Suite struct BoardBridgeCLITests {
    @Test func versionPrintsTheOneVersionString() {
        let recorded = RecordedOutput()
        #expect(BoardBridgeCLI.run(["--version"], environment: [:], output: recorded) == ExitCode.success)
        #expect(recorded.output == BoardBridgeCLI.versionText + "\n")
        #expect(recorded.error.isEmpty)
    }

    @Test func helpGoesToStandardOutput() {
        let recorded = RecordedOutput()
        #expect(BoardBridgeCLI.run(["-h"], environment: [:], output: recorded) == ExitCode.success)
        #expect(recorded.output == BoardBridgeCLI.helpText)
        #expect(recorded.error.isEmpty)
    }

    @Test func usageErrorGoesToStandardErrorWith64() {
        let recorded = RecordedOutput()
        #expect(BoardBridgeCLI.run(["nope"], environment: [:], output: recorded) == ExitCode.usage)
        #expect(recorded.output.isEmpty)
        #expect(recorded.error.contains(#"unknown command "nope""#))
        #expect(recorded.error.contains("--help"))
    }

    @Test func checkConfigAcceptsTheShippedFile() {
        let recorded = RecordedOutput()
        let status = BoardBridgeCLI.run(
            ["check-config", "--config", shippedConfig], environment: [:], output: recorded)
        #expect(status == ExitCode.success)
        #expect(recorded.output == "configuration OK: 7 boards (\(shippedConfig))\n")
    }

    @Test func checkConfigListsEveryError() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.yaml").path
        try "mqtt:\n  keepalive: 1\nbase_topik: x\n".write(toFile: path, atomically: true, encoding: .utf8)
        let recorded = RecordedOutput()
        let status = BoardBridgeCLI.run(["check-config", "--config=\(path)"], environment: [:], output: recorded)
        #expect(status == ExitCode.config)
        #expect(recorded.output.isEmpty)
        #expect(
            recorded.error == """
                mqtt.keepalive: 1 is out of range, expected 5 to 65535 (\(path):2:14)
                unknown key "base_topik", did you mean "base_topic"? (\(path):3:1)
                boardbridge: 2 configuration errors in \(path)

                """)
    }

    /// Issue #23: a DGT board's serial device that is not there is named (`run` waits for it).
    @Test func checkConfigNamesAMissingSerialDevice() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("dgt.yaml").path
        let device = directory.appendingPathComponent("usb-DGT_DGT_Board_0001-if00").path
        try "boards:\n  - id: d1\n    family: dgt\n    serial: \(device)\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let recorded = RecordedOutput()
        #expect(
            BoardBridgeCLI.run(["check-config", "--config", path], environment: [:], output: recorded)
                == ExitCode.config)
        #expect(
            recorded.error == """
                boards[0].serial: no device at \(device) (is the board plugged in?) (\(path):4:13)
                boardbridge: 1 configuration error in \(path)

                """)
        #expect(FileManager.default.createFile(atPath: device, contents: nil))
        let present = RecordedOutput()
        #expect(
            BoardBridgeCLI.run(["check-config", "--config", path], environment: [:], output: present)
                == ExitCode.success)
    }

    @Test func checkConfigWithoutAFileHintsAtTheOption() {
        let recorded = RecordedOutput()
        let status = BoardBridgeCLI.run(["check-config"], environment: [:], output: recorded) { _ in false }
        #expect(status == ExitCode.config)
        #expect(recorded.error.contains("file not found (/etc/boardbridge/config.yaml)"))
        #expect(recorded.error.contains("use --config PATH"))
    }

    @Test func checkConfigReadsSecretsFromTheEnvironment() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.yaml").path
        try "mqtt:\n  username: u\n  password_env: BB_TEST_PW\n".write(toFile: path, atomically: true, encoding: .utf8)
        let found = RecordedOutput()
        let status = BoardBridgeCLI.run(
            ["check-config", "--config", path], environment: ["BB_TEST_PW": "pw-9f3a"], output: found)
        #expect(status == ExitCode.success)
        #expect(!found.output.contains("pw-9f3a"))
        let missing = RecordedOutput()
        #expect(BoardBridgeCLI.run(["check-config", "--config", path], environment: [:], output: missing) == 78)
        #expect(missing.error.contains(#"environment variable "BB_TEST_PW" is not set"#))
    }
}
