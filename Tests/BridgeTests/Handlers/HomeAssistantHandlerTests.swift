import TestSupport
import Testing

@testable import Bridge
@testable import Contract

/// Home Assistant discovery through its handler: announced at each connection, for one
/// board when it joins or reports who it is, and again (with the boards' retained state)
/// once Home Assistant comes online.
@Suite @MainActor struct HomeAssistantHandlerTests {
    let publisher = RecordingPublisher()
    let boards: FakeBoards
    let handler: HomeAssistantHandler
    let discovery: HomeAssistantDiscovery

    init() throws {
        boards = try FakeBoards(others: ["b1", "b2"])
        discovery = try HomeAssistantDiscovery(prefix: "homeassistant", mode: .device, topics: HandlerFixture.topics)
        handler = HomeAssistantHandler(
            discovery: discovery, bridge: BridgeDescriptor(topics: HandlerFixture.topics, version: "1"),
            statusTopic: "homeassistant/status", boards: boards, publisher: publisher, logger: HandlerFixture.logger,
            reannounceDelay: 0...0)
    }

    private func announced(_ id: String) -> Bool {
        publisher.messages.contains { $0.topic.hasPrefix("homeassistant/") && $0.topic.contains("board_\(id)") }
    }

    @Test func everyConnectionAnnouncesTheBridgeAndEveryBoard() {
        #expect(handler.subscriptions == [BridgeSubscription(filter: "homeassistant/status", connection: .publishing)])
        handler.brokerConnected()
        let bridge = BridgeDescriptor(topics: HandlerFixture.topics, version: "1")
        #expect(publisher.messages.count >= discovery.bridgeDiscoveryMessages(bridge).count + 2)
        #expect(announced("b1") && announced("b2"))
    }

    @Test func aBoardThatReportsWhoItIsIsAnnouncedAlone() {
        boards.identities["b2"] = "SN-42"
        handler.boardIdentityChanged("b2")
        #expect(announced("b2") && !announced("b1"))
        #expect(publisher.messages.contains { String(decoding: $0.payload, as: UTF8.self).contains("SN-42") })
        publisher.clear()
        handler.boardAdded("nobody")
        #expect(publisher.messages.isEmpty)
    }

    /// `online` (however often) brings one re-announcement with every board's retained
    /// state; `offline` and other topics change nothing.
    @Test func homeAssistantComingOnlineBringsOneReannouncement() async {
        #expect(!handler.receive(HandlerFixture.message("boardbridge/b1/set", "online")))
        #expect(handler.receive(HandlerFixture.message("homeassistant/status", "offline")))
        #expect(!handler.isReannouncing)
        #expect(handler.receive(HandlerFixture.message("homeassistant/status", "online")))
        #expect(handler.receive(HandlerFixture.message("homeassistant/status", " online\n")))
        #expect(handler.isReannouncing)
        #expect(await eventually { boards.retainedPublished == 1 })
        #expect(announced("b1") && announced("b2"))
        #expect(!handler.isReannouncing)
    }

    @Test func stoppingCancelsAPendingReannouncement() async {
        #expect(handler.receive(HandlerFixture.message("homeassistant/status", "online")))
        handler.stop()
        #expect(!handler.isReannouncing)
        // A second re-announcement does run; the first one's timer, due no later, would
        // have fired in the same turn of the loop.
        #expect(handler.receive(HandlerFixture.message("homeassistant/status", "online")))
        #expect(await eventually { boards.retainedPublished >= 1 })
        #expect(boards.retainedPublished == 1)
    }
}
