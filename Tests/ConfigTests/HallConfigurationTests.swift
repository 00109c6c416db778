import Config
import Foundation
import JSON
import Testing

/// Issue #21: the `hall:` section of `boardbridge hall`.
@Suite struct HallConfigurationTests {
    @Test func defaultsToLoopbackAndReadOnly() throws {
        let hall = try ConfigLoader.parse(yamlText: "hall: {}\n").hall
        #expect(hall.address == "127.0.0.1")
        #expect(hall.port == 8080)
        #expect(hall.tls == nil)
        #expect(hall.arbiterPassword == nil)
        #expect(hall == HallConfiguration())
    }

    @Test func readsEveryKey() throws {
        let hall = try ConfigLoader.parse(
            yamlText: "hall:\n  address: '::1'\n  port: 9000\n  connection_limit: 64\n  arbiter_password_env: ARB\n",
            environment: ["ARB": "long enough secret"]
        ).hall
        #expect(hall.address == "::1")
        #expect(hall.port == 9000)
        #expect(hall.connectionLimit == 64)
        #expect(hall.arbiterPassword?.reveal() == "long enough secret")
    }

    @Test(arguments: [
        ("hall: {port: 0}\n", "hall.port"),
        ("hall: {port: 70000}\n", "hall.port"),
        ("hall: {address: example.org}\n", "hall.address"),
        ("hall: {address: 1.2.3.400}\n", "hall.address"),
        // Issue #29: IPv6 text that no socket can bind to.
        ("hall: {address: '1::2::3'}\n", "hall.address"),
        ("hall: {address: '12345::'}\n", "hall.address"),
        ("hall: {address: ':::'}\n", "hall.address"),
        ("hall: {address: '1:2:3:4:5:6:7:8:9'}\n", "hall.address"),
        ("hall: {address: '::1.2.3.400'}\n", "hall.address"),
        ("hall: {arbiter_password: short}\n", "hall.arbiter_password"),
        ("hall: {arbiter_password: abcdefghij, arbiter_password_env: X}\n", "hall.arbiter_password_env"),
        ("hall: {tls: {cert_file: /nonexistent/cert.pem, key_file: /nonexistent/key.pem}}\n", "hall.tls.cert_file"),
        ("hall: {tls: {cert_file: /etc/passwd}}\n", "hall.tls.key_file"),
        ("hall: {prot: 80}\n", #"unknown key "prot""#),
        // Issue #30: named arbiter accounts.
        ("hall: {arbiters: [{name: Jane, password: short}]}\n", "hall.arbiters[0].password"),
        ("hall: {arbiters: [{password: long-enough-1}]}\n", "hall.arbiters[0].name"),
        ("hall: {arbiters: [{name: 'a:b', password: long-enough-1}]}\n", "hall.arbiters[0].name"),
        ("hall: {arbiters: [{name: arbiter, password: long-enough-1}]}\n", "hall.arbiters[0].name"),
        ("hall: {arbiters: [{name: Jane}]}\n", "hall.arbiters[0].password"),
        (
            "hall: {arbiters: [{name: Jane, password: long-enough-1}, {name: Jane, password: long-enough-2}]}\n",
            "hall.arbiters[1].name"
        ),
        ("hall: {arbiters: [{name: Jane, pasword: long-enough-1}]}\n", #"unknown key "pasword""#),
        ("hall: {audit_file: ''}\n", "hall.audit_file"),
    ])
    func refusesWithPosition(_ yaml: String, _ path: String) {
        do {
            _ = try ConfigLoader.parse(yamlText: yaml, environment: ["X": "abcdefghij"])
            Issue.record("accepted \(yaml)")
        } catch {
            let text = error.description
            #expect(text.contains(path), "\(text)")
            #expect(text.contains(":1:") || text.contains(":2:"), "no line and column: \(text)")
        }
    }

    /// Issue #30 (7): where Home Assistant's device pages link to.
    @Test func theHallViewsAddressForLinks() throws {
        #expect(try ConfigLoader.parse(yamlText: "hall: {}\n").hall.viewURL == nil)
        #expect(try ConfigLoader.parse(yamlText: "hall: {address: 0.0.0.0}\n").hall.viewURL == nil)
        #expect(
            try ConfigLoader.parse(yamlText: "hall: {address: 192.0.2.7, port: 8081}\n").hall.viewURL
                == "http://192.0.2.7:8081/")
        #expect(
            try ConfigLoader.parse(yamlText: "hall: {address: 0.0.0.0, public_url: 'https://hall.example'}\n").hall
                .viewURL == "https://hall.example/")
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: "hall: {public_url: hall.local}\n") }
    }

    @Test func namedArbitersAndTheAuditFile() throws {
        let config = try ConfigLoader.parse(
            yamlText: """
                state_directory: /tmp
                hall:
                  arbiter_password: shared-secret-1
                  audit_file: /var/log/hall-audit.jsonl
                  arbiters:
                    - name: Jane Doe
                      password: jane-secret-1
                    - name: Max
                      password_env: MAX_PASSWORD

                """, environment: ["MAX_PASSWORD": "max-secret-1"])
        let hall = config.hall
        #expect(hall.arbiters.map(\.name) == ["Jane Doe", "Max"])
        #expect(hall.arbiters.map { $0.password.reveal() } == ["jane-secret-1", "max-secret-1"])
        #expect(hall.arbiterAccounts.map(\.name) == ["Jane Doe", "Max", "arbiter"])
        #expect(hall.auditFile == "/var/log/hall-audit.jsonl")
        let redacted = hall.redactedValue.encodedString()
        #expect(!redacted.contains("jane-secret-1") && redacted.contains("Jane Doe"))
    }

    @Test(arguments: ["0.0.0.0", "192.0.2.1", "::", "::1", "fe80::1", "::ffff:192.0.2.1", "2001:db8:0:0:0:0:0:1"])
    func acceptsEveryBindableAddress(_ address: String) throws {
        let hall = try ConfigLoader.parse(yamlText: "hall: {address: '\(address)'}\n").hall
        #expect(hall.address == address)
    }

    @Test func thePasswordIsNeverPrinted() throws {
        let config = try ConfigLoader.parse(yamlText: "hall: {arbiter_password: 'very secret words'}\n")
        #expect(!"\(config)".contains("very secret"))
        #expect(!"\(config.hall)".contains("very secret"))
    }
}
