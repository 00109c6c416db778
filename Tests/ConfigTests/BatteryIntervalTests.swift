import Config
import Testing

/// Issue #15 (10): `game.battery_interval`, seconds between battery reads.
@Suite struct BatteryIntervalTests {
    @Test func defaultsToFiveMinutes() throws {
        #expect(try ConfigLoader.parse(yamlText: "game: {}\n").game.batteryInterval == 300)
        #expect(GameConfiguration().batteryInterval == 300)
    }

    @Test func takesSecondsWithFractions() throws {
        #expect(try ConfigLoader.parse(yamlText: "game: {battery_interval: 2.5}\n").game.batteryInterval == 2.5)
        let redacted = try ConfigLoader.parse(yamlText: "game: {battery_interval: 60}\n").redactedDescription
        #expect(redacted.contains(#""battery_interval":60"#), "\(redacted)")
    }

    @Test(arguments: ["0", "-5", "86401", "soon"])
    func refusesValuesOutOfRange(_ value: String) {
        #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: "game: {battery_interval: \(value)}\n") }
    }
}
