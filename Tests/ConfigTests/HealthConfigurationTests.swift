import Config
import Testing

/// The `health` section (issue #20): `interval` and `stall_after`, checked like the others.
@Suite struct HealthConfigurationTests {
    @Test func defaultsToAMinuteAndTwoMinutes() throws {
        let health = try ConfigLoader.parse(yamlText: "node: a\n").health
        #expect(health == HealthConfiguration(interval: 60, stallAfter: 120))
        #expect(try ConfigLoader.parse(yamlText: "health: {}\n").health == HealthConfiguration())
    }

    @Test func takesBothKeysAndShowsThemInTheRedactedConfig() throws {
        let config = try ConfigLoader.parse(yamlText: "health:\n  interval: 2.5\n  stall_after: 0\n")
        #expect(config.health == HealthConfiguration(interval: 2.5, stallAfter: 0))
        #expect(config.redactedDescription.contains(#""health":{"interval":2.5,"stall_after":0}"#))
    }

    @Test(arguments: [
        ("health:\n  interval: 0\n", "health.interval: 0 is out of range, expected 1 to 86400 (config.yaml:2:13)"),
        ("health:\n  stall_after: 2\n", "health.stall_after: must be 0 (off) or at least 4 seconds (config.yaml:2:16)"),
        (
            "health:\n  stall_after: -1\n",
            "health.stall_after: -1 is out of range, expected 0 to 86400 (config.yaml:2:16)"
        ),
    ])
    func refusesBadValuesWithTheirPosition(_ text: String, _ message: String) {
        do {
            _ = try ConfigLoader.parse(yamlText: text, fileName: "config.yaml")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func refusesUnknownKeys() {
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: "health: {stall: 5}\n") }
    }
}
