import BoardKit
import JSON
import Testing

@testable import Bridge
@testable import Contract

/// What Home Assistant shows agrees with what the bridge publishes (issue #18 items 2, 7).
@Suite(.serialized) @MainActor struct HomeAssistantStateTests {
    let topics = try! Topics(node: "hall-a")

    /// Item 7: the device block's model is the state payload's `model`, not the advertised
    /// Bluetooth name ("Square Off" vs "Square Off Pro").
    @Test func deviceModelIsTheStatePayloadsModel() async throws {
        let harness = try SessionHarness(family: .squareOff, name: "Square Off Pro")
        await harness.connect()
        let state = try #require(harness.publisher.payloads(on: "boardbridge/board-01").last)
        let bridge = BridgeDescriptor(topics: topics, version: "0.1.0")
        let board = BoardDescriptor(id: "board-01", name: "Board 1", family: .squareOff)
        let discovery = try HomeAssistantDiscovery(topics: topics)
        let sensor = try #require(discovery.discoveryMessages(for: board, bridge: bridge).first)
        let device = try #require(try JSONValue(parsing: sensor.payload)["device"])
        #expect(state["model"] == "Square Off")
        #expect(device["model"] == state["model"])
    }

    /// Item 2: a null SAN (no move yet, or the only move taken back) renders empty, not the
    /// text `None` that Home Assistant before 2025 shows for a template yielding null.
    @Test func lastMoveTemplateRendersNullAsEmpty() throws {
        let discovery = try HomeAssistantDiscovery(topics: topics)
        let bridge = BridgeDescriptor(topics: topics, version: "0.1.0")
        let message = try #require(
            discovery.discoveryMessages(for: BoardDescriptor(id: "b1", family: .chessnut), bridge: bridge).first {
                $0.topic.hasSuffix("/last_move/config")
            })
        #expect(try JSONValue(parsing: message.payload)["value_template"] == "{{ value_json.last_move.san or '' }}")
    }
}
