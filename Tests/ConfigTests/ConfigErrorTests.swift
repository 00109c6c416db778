import Config
import Foundation
import TestSupport
import Testing

/// A broken configuration and the exact messages it must produce.
struct BrokenConfig: CustomTestStringConvertible, Sendable {
    let name: String
    let yaml: String
    let expected: [String]

    var testDescription: String { name }
}

/// A valid board block to append to cases that break something else.
private let board0 = """
    boards:
      - id: b0
        address: "AA:BB:CC:DD:EE:00"
        family: chessnut

    """

@Suite struct ConfigErrorTests {
    static let cases: [BrokenConfig] = [
        BrokenConfig(
            name: "unknown top-level key with suggestion", yaml: "base_topik: hall\n",
            expected: [#"unknown key "base_topik", did you mean "base_topic"? (config.yaml:1:1)"#]),
        BrokenConfig(
            name: "unknown nested key with suggestion", yaml: "mqtt:\n  usernmae: arbiter\n",
            expected: [#"mqtt: unknown key "usernmae", did you mean "username"? (config.yaml:2:3)"#]),
        BrokenConfig(
            name: "unknown key without a near match", yaml: "logging:\n  colour: red\n",
            expected: [#"logging: unknown key "colour", expected one of level, format (config.yaml:2:3)"#]),
        BrokenConfig(
            name: "wrong type: text for an integer", yaml: "mqtt:\n  keepalive: soon\n",
            expected: [#"mqtt.keepalive: expected an integer, got "soon" (config.yaml:2:14)"#]),
        BrokenConfig(
            name: "wrong type: list for a section", yaml: "mqtt: [1, 2]\n",
            expected: ["mqtt: expected a mapping, got a list (config.yaml:1:7)"]),
        BrokenConfig(
            name: "wrong type: yes for a boolean", yaml: "bluetooth:\n  discovery: yes\n",
            expected: [#"bluetooth.discovery: expected true or false, got "yes" (config.yaml:2:14)"#]),
        BrokenConfig(
            name: "wrong type: mapping for a string", yaml: "base_topic: {a: 1}\n",
            expected: ["base_topic: expected a string, got a mapping (config.yaml:1:13)"]),
        BrokenConfig(
            name: "out of range", yaml: "mqtt:\n  keepalive: 2\n",
            expected: ["mqtt.keepalive: 2 is out of range, expected 5 to 65535 (config.yaml:2:14)"]),
        BrokenConfig(
            name: "out of range fraction", yaml: "game:\n  desync_grace: 61.5\n",
            expected: ["game.desync_grace: 61.5 is out of range, expected 0 to 60 (config.yaml:2:17)"]),
        BrokenConfig(
            name: "unknown choice", yaml: "logging:\n  level: verbose\n",
            expected: [
                #"logging.level: unknown log level "verbose", expected one of debug, info, notice, warning, error (config.yaml:2:10)"#
            ]),
        BrokenConfig(
            name: "unknown notify method", yaml: "bluetooth:\n  notify_method: fast\n",
            expected: [
                #"bluetooth.notify_method: unknown notify method "fast", expected one of acquire_notify, start_notify (config.yaml:2:18)"#
            ]),
        BrokenConfig(
            name: "duplicate board id",
            yaml: """
                boards:
                  - id: a
                    address: "AA:BB:CC:DD:EE:01"
                    family: chessnut
                  - id: a
                    address: "AA:BB:CC:DD:EE:02"
                    family: chessnut
                """,
            expected: [#"boards[1].id: duplicate board id "a" (first at line 2) (config.yaml:5:9)"#]),
        BrokenConfig(
            name: "duplicate board id on a board with another error",
            yaml: """
                boards:
                  - id: a
                    address: "AA:BB:CC:DD:EE:01"
                    family: chessnut
                  - id: a
                    serial: ttyUSB0
                    family: dgt
                """,
            expected: [
                #"boards[1].id: duplicate board id "a" (first at line 2) (config.yaml:5:9)"#,
                #"boards[1].serial: invalid device path "ttyUSB0", expected an absolute path like /dev/serial/by-id/usb-… or /dev/ttyUSB0 (config.yaml:6:13)"#,
            ]),
        BrokenConfig(
            name: "duplicate address",
            yaml: """
                boards:
                  - id: a
                    address: "AA:BB:CC:DD:EE:01"
                    family: chessnut
                  - id: b
                    address: "aa:bb:cc:dd:ee:01"
                    family: chessnut
                """,
            expected: ["boards[1].address: address AA:BB:CC:DD:EE:01 is also used at line 3 (config.yaml:6:14)"]),
        BrokenConfig(
            name: "wildcard in base topic", yaml: "base_topic: \"hall/+/boards\"\n",
            expected: [#"base_topic: invalid topic character "+" (an MQTT wildcard) (config.yaml:1:13)"#]),
        BrokenConfig(
            name: "leading slash in base topic", yaml: "base_topic: /hall\n",
            expected: [#"base_topic: must not start or end with "/" (config.yaml:1:13)"#]),
        BrokenConfig(
            name: "empty level in base topic", yaml: "base_topic: hall//boards\n",
            expected: [#"base_topic: empty topic level ("//") (config.yaml:1:13)"#]),
        BrokenConfig(
            name: "NUL in base topic", yaml: "base_topic: \"hall\\0\"\n",
            expected: ["base_topic: invalid topic character NUL (config.yaml:1:13)"]),
        BrokenConfig(
            name: "slash in node", yaml: "node: pi/1\n",
            expected: [#"node: invalid topic character "/" (must be a single topic level) (config.yaml:1:7)"#]),
        BrokenConfig(
            name: "hash in discovery prefix", yaml: "homeassistant:\n  discovery_prefix: ha#\n",
            expected: [
                ##"homeassistant.discovery_prefix: invalid topic character "#" (an MQTT wildcard) (config.yaml:2:21)"##
            ]),
        BrokenConfig(
            name: "wildcard in board id",
            yaml: "boards:\n  - id: b+1\n    address: \"AA:BB:CC:DD:EE:01\"\n    family: chessnut\n",
            expected: [#"boards[0].id: invalid topic character "+" (an MQTT wildcard) (config.yaml:2:9)"#]),
        BrokenConfig(
            name: "reserved board id",
            yaml: "boards:\n  - id: bridge\n    address: \"AA:BB:CC:DD:EE:01\"\n    family: chessnut\n",
            expected: [#"boards[0].id: "bridge" is reserved for the bridge's own topics (config.yaml:2:9)"#]),
        BrokenConfig(
            name: "bad address",
            yaml: "boards:\n  - id: b1\n    address: \"AA:BB:CC:DD:EE\"\n    family: chessnut\n",
            expected: [
                #"boards[0].address: invalid Bluetooth address "AA:BB:CC:DD:EE", expected six hex pairs like AA:BB:CC:DD:EE:FF (config.yaml:3:14)"#
            ]),
        BrokenConfig(
            name: "bad time control",
            yaml: board0 + "    time_control: 300+\n",
            expected: [
                #"boards[0].time_control: invalid time control "300+": the increment after "+" must be a number of seconds (config.yaml:5:19)"#
            ]),
        BrokenConfig(
            name: "sudden death before the last period",
            yaml: board0 + "    time_control: 5400:40/1800\n",
            expected: [
                #"boards[0].time_control: invalid time control "5400:40/1800": only the last period may be without a move count ("40/") (config.yaml:5:19)"#
            ]),
        BrokenConfig(
            name: "unknown family",
            yaml: """
                boards:
                  - id: b0
                    address: "AA:BB:CC:DD:EE:00"
                    family: chessnut
                  - id: b1
                    address: "AA:BB:CC:DD:EE:01"
                    family: foo
                """,
            expected: [
                #"boards[1].family: unknown family "foo", expected one of chessnut, chessup, squareoff, pegasus, dgt, millennium, certabo, sentio, ichessone, cpp (config.yaml:7:13)"#
            ]),
        BrokenConfig(
            name: "missing required key",
            yaml: "boards:\n  - address: \"AA:BB:CC:DD:EE:01\"\n    family: chessnut\n",
            expected: [#"boards[0]: missing required key "id" (config.yaml:2:5)"#]),
        BrokenConfig(
            name: "neither address nor name pattern", yaml: "boards:\n  - id: b1\n    family: millennium\n",
            expected: [#"boards[0]: missing required key "address" (or "name_pattern") (config.yaml:2:5)"#]),
        BrokenConfig(
            name: "both address and name pattern",
            yaml: board0 + "    name_pattern: \"MILL*\"\n",
            expected: [#"boards[0].name_pattern: give either address or name_pattern, not both (config.yaml:5:19)"#]),
        BrokenConfig(
            name: "unclosed bracket in name pattern",
            yaml: "boards:\n  - id: b1\n    name_pattern: \"DGT_[0-9\"\n    family: pegasus\n",
            expected: [
                #"boards[0].name_pattern: invalid name pattern "DGT_[0-9" (empty, or an unclosed "[") (config.yaml:3:19)"#
            ]),
        BrokenConfig(
            name: "adapter not listed", yaml: board0 + "    adapter: hci3\n",
            expected: [
                #"boards[0].adapter: adapter "hci3" is not listed in bluetooth.adapters (hci0) (config.yaml:5:14)"#
            ]),
        BrokenConfig(
            name: "developer key on a non-Pegasus board", yaml: board0 + "    developer_key: 0102030405AB\n",
            expected: ["boards[0].developer_key: only pegasus boards take a developer key (config.yaml:5:20)"]),
        BrokenConfig(
            name: "reserved tag", yaml: board0 + "    tags:\n      result: 1-0\n",
            expected: ["boards[0].tags.result: this tag is set by the bridge from the game's result (config.yaml:6:7)"]),
        BrokenConfig(
            name: "bad broker URL", yaml: "mqtt:\n  url: http://broker\n",
            expected: [#"mqtt.url: unsupported URL scheme "http" (use mqtt or mqtts) (config.yaml:2:8)"#]),
        BrokenConfig(
            name: "broker URL with a port out of range", yaml: "mqtt:\n  url: mqtt://broker:99999\n",
            expected: [#"mqtt.url: invalid broker port "99999" (expected 1...65535) (config.yaml:2:8)"#]),
        BrokenConfig(
            name: "broker URL with credentials, not echoed", yaml: "mqtt:\n  url: mqtts://alice:hunter2@broker\n",
            expected: [
                #"mqtt.url: credentials in the server URL "mqtts://***@broker" are not accepted; "#
                    + #"set username and password separately (config.yaml:2:8)"#
            ]),
        BrokenConfig(
            name: "TLS settings without mqtts", yaml: "mqtt:\n  tls:\n    insecure: true\n",
            expected: ["mqtt.tls: TLS settings need an mqtts:// url (config.yaml:3:5)"]),
        BrokenConfig(
            name: "password without username", yaml: "mqtt:\n  password: hunter2\n",
            expected: ["mqtt.password: a password needs mqtt.username (config.yaml:2:13)"]),
        BrokenConfig(
            name: "two password sources",
            yaml: "mqtt:\n  username: u\n  password: hunter2\n  password_env: PW\n",
            expected: ["mqtt.password_env: give only one of password, password_file, password_env (config.yaml:4:3)"]),
        BrokenConfig(
            name: "duplicate YAML key", yaml: "node: a\nnode: b\n",
            expected: [#"duplicate key "node" (first at line 1) (config.yaml:2:1)"#]),
        BrokenConfig(
            name: "reconnect max below min", yaml: "mqtt:\n  reconnect: {min_delay: 5, max_delay: 2}\n",
            expected: ["mqtt.reconnect.max_delay: must not be less than min_delay (config.yaml:2:40)"]),
        BrokenConfig(
            name: "not a mapping: a list", yaml: "- mqtt\n- boards\n",
            expected: [
                "expected a mapping of sections (mqtt:, boards:, …) at the top level, got a list (config.yaml:1:1)"
            ]),
        BrokenConfig(
            name: "not a mapping: a scalar", yaml: "hello\n",
            expected: [
                #"expected a mapping of sections (mqtt:, boards:, …) at the top level, got "hello" (config.yaml:1:1)"#
            ]),
        BrokenConfig(
            name: "not YAML", yaml: "mqtt:\n  url: [mqtt://a\nnode: x\n",
            expected: [
                "not valid YAML: did not find expected ',' or ']' while parsing a flow sequence that started at line 2, "
                    + "column 8 (config.yaml:3:5)"
            ]),
        BrokenConfig(
            name: "two documents", yaml: "node: a\n---\nnode: b\n",
            expected: ["not valid YAML: more than one YAML document in the file (config.yaml:3:1)"]),
        BrokenConfig(
            name: "empty file", yaml: "# nothing but a comment\n",
            expected: ["the file is empty, expected a mapping of sections (mqtt:, boards:, …) (config.yaml:1:1)"]),
        BrokenConfig(
            name: "every error is reported, in file order",
            yaml: """
                mqtt:
                  keepalive: -1
                  protocol: 4
                base_topic: "#"
                boards:
                  - id: b1
                    address: nowhere
                    family: dgt
                    serial: /dev/ttyUSB0
                """,
            expected: [
                "mqtt.keepalive: -1 is out of range, expected 5 to 65535 (config.yaml:2:14)",
                #"mqtt.protocol: unknown MQTT protocol "4", expected one of 3.1.1, 5 (config.yaml:3:13)"#,
                ##"base_topic: invalid topic character "#" (an MQTT wildcard) (config.yaml:4:13)"##,
                #"boards[0].address: invalid Bluetooth address "nowhere", expected six hex pairs like AA:BB:CC:DD:EE:FF (config.yaml:7:14)"#,
                "boards[0].serial: give either serial or address, not both (config.yaml:9:13)",
            ]),
    ]

    @Test(arguments: cases)
    func brokenConfigIsReported(_ broken: BrokenConfig) {
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: broken.yaml) }
        do {
            _ = try ConfigLoader.parse(yamlText: broken.yaml)
        } catch {
            #expect(error.errors.map(\.description) == broken.expected)
        }
    }

    @Test func missingFileIsOneClearError() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("none.yaml").path
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.errors.map(\.description) == ["cannot read the configuration file: file not found (\(path))"])
        }
    }

    @Test func directoryIsOneClearError() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try ConfigLoader.load(path: directory.path, environment: [:])
            Issue.record("loading a directory succeeded")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "cannot read the configuration file: is a directory, not a file (\(directory.path))"
                ])
        }
    }

    @Test func errorsNameTheFileGiven() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hall.yaml").path
        try "mqtt:\n  keepalive: 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ConfigLoader.load(path: path, environment: [:])
            Issue.record("a bad file loaded")
        } catch {
            #expect(error.description == "mqtt.keepalive: 1 is out of range, expected 5 to 65535 (\(path):2:14)")
        }
    }

    @Test func invalidUTF8IsReportedWithItsPosition() {
        var bytes = Array("node: a\nbase_topic: ".utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        do {
            _ = try YAMLDocument.parse(bytes)
            Issue.record("invalid UTF-8 parsed")
        } catch {
            #expect(error.mark == YAMLMark(line: 2, column: 13))
        }
    }
}
