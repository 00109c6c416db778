import Config
import JSON
import Testing

@Suite struct ValueRulesTests {
    @Test func topicRules() {
        #expect(TopicRules.problem(in: "boardbridge", singleLevel: false) == nil)
        #expect(TopicRules.problem(in: "club/hall-1/boards", singleLevel: false) == nil)
        for bad in ["", "a/+/b", "a/#", "/a", "a/", "a//b", "$SYS/x", "a\0b"] {
            #expect(TopicRules.problem(in: bad, singleLevel: false) != nil, "accepted \(bad)")
        }
        #expect(TopicRules.problem(in: "a/b", singleLevel: true) != nil)
        #expect(TopicRules.boardIDProblem(in: "board_7-b") == nil)
        #expect(TopicRules.boardIDProblem(in: "board 7") != nil)
        #expect(TopicRules.boardIDProblem(in: "bridge") != nil)
    }

    @Test func brokerURLsAreParsedByTheMQTTModule() throws {
        let config = try ConfigLoader.parse(yamlText: "mqtt:\n  url: mqtts://broker:9000/\n")
        #expect(config.mqtt.url == "mqtts://broker:9000/")
        #expect(config.mqtt.endpoint.host == "broker")
        #expect(config.mqtt.endpoint.port == 9000)
        #expect(config.mqtt.endpoint.usesTLS)
        #expect("\(config.mqtt.endpoint)" == "mqtts://broker:9000")
        let ipv6 = try ConfigLoader.parse(yamlText: "mqtt:\n  url: \"mqtt://[::1]:1884\"\n")
        #expect("\(ipv6.mqtt.endpoint)" == "mqtt://[::1]:1884")
        for bad in ["broker:1883", "mqtt://", "mqtt://b:0", "mqtt://b:x", "mqtt://u@b", "mqtt://b/t"] {
            #expect(throws: ConfigErrors.self) { try ConfigLoader.parse(yamlText: "mqtt:\n  url: \"\(bad)\"\n") }
        }
    }

    @Test func redactedValueIsDeterministicJSON() throws {
        let config = try ConfigLoader.parse(
            yamlText:
                "boards:\n  - id: b1\n    name: \"Say \\\"hi\\\"\"\n    name_pattern: \"X*\"\n    family: chessnut\n")
        let json = config.redactedDescription
        #expect(json == config.redactedDescription)
        #expect(json.hasPrefix(#"{"base_topic":"boardbridge","bluetooth":{"#))
        #expect(json.contains(#""name":"Say \"hi\"""#))
        #expect(json.contains(#""name_pattern":"X*""#))
        #expect(json.contains(#""password":null"#))
    }

    /// Issue #17: the redacted view is a `JSONValue` (keys sorted), published as it is; it
    /// reads back to itself, as the serialise-and-parse step it replaces did.
    @Test func redactedValueIsSortedJSONThatReadsBackToItself() throws {
        let config = try ConfigLoader.parse(
            yamlText:
                "bluetooth: {connect_timeout: 12.5}\nboards:\n  - {id: b1, name_pattern: \"X*\", family: chessnut, tags: {z: \"1\", a: \"2\"}}\n"
        )
        let value = config.redactedValue
        #expect(try JSONValue(parsing: config.redactedDescription) == value)
        #expect(value.objectValue?.keys == value.objectValue?.keys.sorted())
        #expect(value["bluetooth"]?["connect_timeout"] == 12.5)
        #expect(value["boards"]?.arrayValue?.first?["tags"]?.objectValue?.keys == ["A", "Z"])
        #expect(config.redactedDescription.contains(#""max_takeback_plies":"#))
    }
}
