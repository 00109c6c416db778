import Config
import Foundation
import TestSupport
import Testing

@Suite struct SecretTests {
    static let password = "Tr0ub4dor&3-unique-marker"

    /// Everything a secret could leak through.
    static func renderings(of config: BridgeConfiguration) -> [String] {
        var dumped = ""
        dump(config, to: &dumped)
        return [
            "\(config)", String(describing: config), String(reflecting: config), dumped, config.redactedDescription,
            "\(config.mqtt)", String(reflecting: config.mqtt), "\(config.boards)", String(reflecting: config.boards),
        ]
    }

    @Test func inlinePasswordAppearsInNoRendering() throws {
        let config = try ConfigLoader.parse(
            yamlText: "mqtt:\n  username: arbiter\n  password: \"\(Self.password)\"\n")
        #expect(config.mqtt.password?.reveal() == Self.password)
        for text in Self.renderings(of: config) {
            #expect(!text.contains(Self.password))
            #expect(!text.contains("Tr0ub4dor"))
        }
        #expect(config.redactedDescription.contains(#""password":"<redacted>""#))
        #expect("\(config.mqtt.password!)" == "<redacted>")
    }

    @Test func developerKeyAppearsInNoRendering() throws {
        let yaml = """
            boards:
              - id: p1
                address: "AA:BB:CC:DD:EE:FF"
                family: pegasus
                developer_key: "8E 87 B0 18 B6 F4"
            """
        let config = try ConfigLoader.parse(yamlText: yaml)
        #expect(config.boards.first?.developerKeyBytes() == [0x8E, 0x87, 0xB0, 0x18, 0xB6, 0xF4])
        for text in Self.renderings(of: config) {
            #expect(!text.lowercased().contains("8e87b018b6f4"))
            #expect(!text.contains("8E 87 B0"))
        }
        #expect(config.redactedDescription.contains(#""developer_key":"<redacted>""#))
    }

    @Test func arbiterPasswordAppearsInNoRendering() throws {
        let config = try ConfigLoader.parse(
            yamlText: "hall:\n  port: 8443\n  arbiter_password: \"\(Self.password)\"\n")
        #expect(config.hall.arbiterPassword?.reveal() == Self.password)
        for text in Self.renderings(of: config) + ["\(config.hall)", String(reflecting: config.hall)] {
            #expect(!text.contains("Tr0ub4dor"))
        }
        #expect(
            config.redactedDescription.contains(
                #""hall":{"address":"127.0.0.1","arbiter_password":"<redacted>","arbiters":[],"audit_file":null,"connection_limit":256,"port":8443,"public_url":null,"tls":null}"#
            ))
    }

    @Test func passwordNeverAppearsInErrors() {
        let cases = [
            // Wrong type, missing username, secret in a list, two sources, misspelt key.
            "mqtt:\n  password: [\"\(Self.password)\"]\n",
            "mqtt:\n  password: \"\(Self.password)\"\n",
            "mqtt:\n  username: u\n  password: \"\(Self.password)\"\n  password_file: /nonexistent\n",
            "mqtt:\n  username: u\n  pasword: \"\(Self.password)\"\n",
            "mqtt:\n  username: u\n  password: {\"\(Self.password)\": 1}\n",
            "boards:\n  - id: p\n    address: \"AA:BB:CC:DD:EE:FF\"\n    family: pegasus\n"
                + "    developer_key: \"\(Self.password)\"\n",
        ]
        for yaml in cases {
            do {
                _ = try ConfigLoader.parse(yamlText: yaml)
                Issue.record("expected an error for:\n\(yaml)")
            } catch {
                #expect(!error.errors.isEmpty)
                #expect(!error.description.contains("Tr0ub4dor"), "leaked in: \(error)")
            }
        }
    }

    @Test func passwordFromFileIsResolvedRelativeToTheConfig() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "\(Self.password)\n".write(
            to: directory.appendingPathComponent("mqtt-password"), atomically: true, encoding: .utf8)
        let configPath = directory.appendingPathComponent("config.yaml").path
        try "mqtt:\n  username: u\n  password_file: mqtt-password\n".write(
            toFile: configPath, atomically: true, encoding: .utf8)
        let config = try ConfigLoader.load(path: configPath, environment: [:])
        #expect(config.mqtt.password?.reveal() == Self.password)
        #expect(config.mqtt.password?.source == .file(directory.appendingPathComponent("mqtt-password").path))
    }

    @Test func missingSecretFileIsAClearError() throws {
        do {
            _ = try ConfigLoader.parse(
                yamlText: "mqtt:\n  username: u\n  password_file: /nonexistent/pw\n")
            Issue.record("a missing secret file was accepted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    #"mqtt.password_file: cannot read secret file "/nonexistent/pw": file not found (config.yaml:3:18)"#
                ])
        }
    }

    @Test func emptySecretFileIsAnError() throws {
        let directory = try TestTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("empty").path
        try "\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigErrors.self) {
            try ConfigLoader.parse(yamlText: "mqtt:\n  username: u\n  password_file: \(file)\n")
        }
    }

    @Test func passwordFromEnvironment() throws {
        let yaml = "mqtt:\n  username: u\n  password_env: BOARDBRIDGE_MQTT_PASSWORD\n"
        let config = try ConfigLoader.parse(
            yamlText: yaml, environment: ["BOARDBRIDGE_MQTT_PASSWORD": Self.password])
        #expect(config.mqtt.password?.reveal() == Self.password)
        #expect(config.mqtt.password?.source == .environment("BOARDBRIDGE_MQTT_PASSWORD"))
        do {
            _ = try ConfigLoader.parse(yamlText: yaml, environment: [:])
            Issue.record("an unset variable was accepted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    #"mqtt.password_env: environment variable "BOARDBRIDGE_MQTT_PASSWORD" is not set (config.yaml:3:17)"#
                ])
        }
    }

    @Test func developerKeyFromEnvironmentIsValidatedWithoutEcho() throws {
        let yaml = """
            boards:
              - id: p1
                address: "AA:BB:CC:DD:EE:FF"
                family: pegasus
                developer_key_env: PEGASUS_KEY
            """
        let config = try ConfigLoader.parse(yamlText: yaml, environment: ["PEGASUS_KEY": "be:f5:ae:dd:a9:5f"])
        #expect(config.boards.first?.developerKeyBytes() == [0xBE, 0xF5, 0xAE, 0xDD, 0xA9, 0x5F])
        do {
            _ = try ConfigLoader.parse(yamlText: yaml, environment: ["PEGASUS_KEY": "not-a-key-zz"])
            Issue.record("an invalid key was accepted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "boards[0].developer_key_env: expected 6 bytes as 12 hex digits (the value is not shown) "
                        + "(config.yaml:5:24)"
                ])
        }
    }
}
