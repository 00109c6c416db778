import BoardKit
import Config
import Foundation
import JSON
import TestSupport
import Testing

/// Issue #23: `family: dgt` boards named by a serial device path or a Bluetooth address.
@Suite struct DGTBoardConfigTests {
    static let broken: [BrokenConfig] = [
        BrokenConfig(
            name: "serial on a Bluetooth LE family",
            yaml: "boards:\n  - id: a\n    family: chessnut\n    serial: /dev/ttyUSB0\n",
            expected: [
                "boards[0].serial: only dgt, certabo, sentio boards connect over a serial line (this board is chessnut) "
                    + "(config.yaml:4:13)"
            ]
        ),
        BrokenConfig(
            name: "dgt without serial or address",
            yaml: "boards:\n  - id: a\n    family: dgt\n",
            expected: [
                #"boards[0]: missing required key "serial" (or "address" for a Bluetooth e-Board) (config.yaml:2:5)"#
            ]),
        BrokenConfig(
            name: "dgt by name pattern",
            yaml: "boards:\n  - id: a\n    family: dgt\n    name_pattern: \"DGT*\"\n",
            expected: [
                "boards[0].name_pattern: a Bluetooth DGT e-Board is paired and found by its address (or give serial: for USB) (config.yaml:4:19)"
            ]),
        BrokenConfig(
            name: "serial and name pattern",
            yaml: "boards:\n  - id: a\n    family: dgt\n    serial: /dev/ttyACM0\n    name_pattern: \"DGT*\"\n",
            expected: [
                "boards[0].serial: give either serial or name_pattern, not both (config.yaml:4:13)",
                "boards[0].name_pattern: a Bluetooth DGT e-Board is paired and found by its address (or give serial: for USB) (config.yaml:5:19)",
            ]),
        BrokenConfig(
            name: "not a string",
            yaml: "boards:\n  - id: a\n    family: dgt\n    serial: [1]\n",
            expected: ["boards[0].serial: expected a string, got a sequence (config.yaml:4:13)"]),
        BrokenConfig(
            name: "an adapter for a serial board",
            yaml: "boards:\n  - id: a\n    family: dgt\n    serial: /dev/ttyUSB0\n    adapter: hci0\n",
            expected: ["boards[0].adapter: a board on a serial line uses no Bluetooth adapter (config.yaml:5:14)"]),
        BrokenConfig(
            name: "one device for two boards",
            yaml: """
                boards:
                  - {id: a, family: dgt, serial: /dev/ttyUSB0}
                  - {id: b, family: dgt, serial: /dev/ttyUSB0}
                """,
            expected: ["boards[1].serial: serial /dev/ttyUSB0 is also used at line 2 (config.yaml:3:34)"]),
    ]

    @Test(arguments: broken)
    func brokenDGTBoardIsReported(_ broken: BrokenConfig) {
        do {
            _ = try ConfigLoader.parse(yamlText: broken.yaml)
            Issue.record("accepted: \(broken.yaml)")
        } catch {
            #expect(error.errors.map(\.description) == broken.expected)
        }
    }

    @Test func serialAndRFCOMMBoardsAreRead() throws {
        let config = try ConfigLoader.parse(
            yamlText: """
                boards:
                  - id: usb
                    family: dgt
                    serial: /dev/serial/by-id/usb-DGT_DGT_Board-if00
                  - id: bt
                    family: dgt
                    address: "00:11:22:33:44:55"
                """)
        #expect(config.boards.map(\.serial) == ["/dev/serial/by-id/usb-DGT_DGT_Board-if00", nil])
        #expect(config.boards.map(\.match) == [.any, .address("00:11:22:33:44:55")])
        let usb = config.redactedValue["boards"]?.arrayValue?.first
        #expect(usb?["serial"] == .string("/dev/serial/by-id/usb-DGT_DGT_Board-if00"))
        #expect(usb?["address"] == nil)
        #expect(config.redactedValue["boards"]?.arrayValue?.last?["serial"] == nil)
    }

    /// `run` waits for an unplugged board; `check-config` names the missing device.
    @Test func onlyACheckNamesAMissingDevice() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config.yaml").path
        let missing = directory.appendingPathComponent("ttyUSB9").path
        let yaml = """
            boards:
              - id: present
                family: dgt
                serial: /dev/null
              - id: missing
                family: dgt
                serial: \(missing)

            """
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try ConfigLoader.load(path: path, environment: [:]).boards.count == 2)
        do {
            _ = try ConfigLoader.load(path: path, environment: [:], checkingDevices: true)
            Issue.record("a missing device passed the check")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "boards[1].serial: no device at \(missing) (is the board plugged in?) (\(path):7:13)"
                ])
        }
    }
}
