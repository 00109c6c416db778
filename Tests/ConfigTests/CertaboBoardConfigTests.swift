import BoardKit
import Config
import Foundation
import TestSupport
import Testing

/// Issue #32: `certabo` and `sentio` boards are named by their serial device only.
@Suite struct CertaboBoardConfigTests {
    static let broken: [BrokenConfig] = [
        BrokenConfig(
            name: "certabo by address",
            yaml: "boards:\n  - id: a\n    family: certabo\n    address: \"00:11:22:33:44:55\"\n",
            expected: [
                "boards[0].address: a certabo board is on a USB serial line: give serial: instead (config.yaml:4:14)"
            ]),
        BrokenConfig(
            name: "sentio by name pattern",
            yaml: "boards:\n  - id: a\n    family: sentio\n    name_pattern: \"Sentio*\"\n",
            expected: [
                "boards[0].name_pattern: a sentio board is on a USB serial line: give serial: instead (config.yaml:4:19)"
            ]),
        BrokenConfig(
            name: "certabo without serial",
            yaml: "boards:\n  - id: a\n    family: certabo\n",
            expected: [#"boards[0]: missing required key "serial" (config.yaml:2:5)"#]),
    ]

    @Test(arguments: broken)
    func brokenBoardIsReported(_ broken: BrokenConfig) {
        do {
            _ = try ConfigLoader.parse(yamlText: broken.yaml)
            Issue.record("accepted: \(broken.yaml)")
        } catch {
            #expect(error.errors.map(\.description) == broken.expected)
        }
    }

    @Test func serialBoardsAreRead() throws {
        let config = try ConfigLoader.parse(
            yamlText: """
                boards:
                  - {id: c, family: certabo, serial: /dev/serial/by-id/usb-Certabo-if00}
                  - {id: s, family: sentio, serial: /dev/ttyUSB1}
                """)
        #expect(config.boards.map(\.family) == [.certabo, .sentio])
        #expect(config.boards.map(\.serial) == ["/dev/serial/by-id/usb-Certabo-if00", "/dev/ttyUSB1"])
        #expect(config.boards.map(\.match) == [.any, .any])
    }
}
