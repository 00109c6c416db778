import Config
import Testing

/// Issue #16 (3): `mqtt.queue_bytes` bounds the outgoing queue in bytes and is checked like
/// the other numbers.
@Suite struct QueueBytesTests {
    @Test func defaultsTo16MiBAndReadsAValue() throws {
        #expect(try ConfigLoader.parse(yamlText: "mqtt:\n").mqtt.queueBytes == 16_777_216)
        #expect(try ConfigLoader.parse(yamlText: "mqtt:\n  queue_bytes: 65536\n").mqtt.queueBytes == 65_536)
    }

    @Test(arguments: ["1000", "2000000000", "lots"])
    func refusesValuesOutOfRange(_ value: String) {
        #expect {
            try ConfigLoader.parse(yamlText: "mqtt:\n  queue_bytes: \(value)\n")
        } throws: { error in
            "\(error)".contains("mqtt.queue_bytes") && "\(error)".contains("config.yaml:2:16")
        }
    }
}
